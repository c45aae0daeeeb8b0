"""Cards (issue 23): the component cards of `accounts/:id/cards` and the older poll, image
conversation and video conversation cards, each with a `card_uri` (`card://<number>`) posts carry.

Component cards take their id from the card's number (`"id": "1321554298900107264"`, `card_uri:
card://1321554298900107264`), are soft-deleted and listed at `cards`; the older kinds have short
base-36 ids, a number of their own in `card_uri`, are hard-deleted and listed at their own paths.
Every card keeps its uri's number in `parent_id` so a uri finds its card (`storage/ads_creatives.py`).
Media named by a card must be in the account's Media Library.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.ads import card_components as components
from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.entities import Entities
from roost.ads.media_library import MediaLibrary
from roost.ads.paging import AdsResult, page_window, stored_page
from roost.ads.params import format_time
from roost.core.ids import SnowflakeGenerator
from roost.core.records import Row
from roost.storage import ads_creatives as creative_rows
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database, Executor

CARD = "card"
POLL = "poll_card"
IMAGE_CONVERSATION = "image_conversation_card"
VIDEO_CONVERSATION = "video_conversation_card"
LEGACY_KINDS = (POLL, IMAGE_CONVERSATION, VIDEO_CONVERSATION)
CARD_KINDS = (CARD, *LEGACY_KINDS)
URI_PREFIX = "card://"
_CTAS = ("first", "second", "third", "fourth")


def card_number(uri: str) -> str | None:
    number = uri[len(URI_PREFIX) :] if uri.startswith(URI_PREFIX) else ""
    return number if number.isdigit() else None


class Cards:
    def __init__(
        self,
        db: Database,
        store: AdsStore,
        entities: Entities,
        library: MediaLibrary,
        ids: SnowflakeGenerator,
    ) -> None:
        self._db = db
        self._store = store
        self._entities = entities
        self._library = library
        self._ids = ids  # card numbers

    # ---- lookups --------------------------------------------------------------------------------

    async def by_uri(self, account_id: str, uri: str, reader: Executor | None = None) -> Row:
        """The live card of this account a post's `card_uri` names, or 404 naming the parameter."""
        number = card_number(uri)
        row = await creative_rows.card_by_number(reader or self._db, number, CARD_KINDS) if number else None
        if row is None or row["account_id"] != account_id or row["deleted"]:
            raise errors.AdsError(
                404,
                [errors.item("NOT_FOUND", f"Card {uri} was not found for Account {account_id}", "card_uri")],
            )
        return row

    async def fetch(self, account_id: str, uris: Sequence[str], with_deleted: bool) -> AdsResult:
        """`cards/all`: the account's cards of any kind by uri, in the order asked, unknown ones left out."""
        found = []
        for uri in dict.fromkeys(uris):
            number = card_number(uri)
            row = await creative_rows.card_by_number(self._db, number, CARD_KINDS) if number else None
            if row is not None and row["account_id"] == account_id and (with_deleted or not row["deleted"]):
                found.append(row["body"])
        return AdsResult(found, paged=True)

    async def fetch_one(self, account_id: str, card_id: str, with_deleted: bool) -> dict[str, Any]:
        row = await self._store.entity(card_id)
        if (
            row is None
            or row["kind"] not in CARD_KINDS
            or row["account_id"] != account_id
            or (row["deleted"] and not with_deleted)
        ):
            raise errors.not_found(CARD, card_id, account_id, "card_id")
        return dict(row["body"])

    # ---- component cards ------------------------------------------------------------------------

    async def create(self, actor: Actor, body: Any) -> dict[str, Any]:
        document = _document(body)
        if not document.get("name"):
            raise errors.missing_parameter("name")
        async with self._db.transaction() as tx:
            attributes = await self._designed(tx, actor.account_id, document, {})
            number = str(self._ids.next_id())
            return await self._entities.create(
                tx,
                CARD,
                actor.account_id,
                {**attributes, "card_uri": URI_PREFIX + number},
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=number,
                ident=number,
            )

    async def update(self, actor: Actor, card_id: str, body: Any) -> dict[str, Any]:
        document = _document(body)
        async with self._db.transaction() as tx:
            row = await self._entities.load(CARD, actor.account_id, card_id, parameter="card_id", reader=tx)
            changes = await self._designed(tx, actor.account_id, document, row["body"])
            return await self._entities.update(tx, row, changes, now_ms=actor.now_ms, user_id=actor.user_id)

    async def delete(self, actor: Actor, card_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._entities.load(CARD, actor.account_id, card_id, parameter="card_id", reader=tx)
            return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)

    async def page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        ids = list(params.get("card_id") or [])
        for uri in params.get("card_uris") or []:
            ids.append(card_number(uri) or uri)
        types = params.get("card_types")
        query = EntityQuery(CARD, account_id, ids=ids or None, name_prefix=params.get("q"))
        if not types:
            return await self._entities.list_page(query, params)
        offset, count = page_window(params)
        rows, _ = await self._store.entities(
            EntityQuery(
                CARD,
                account_id,
                ids=ids or None,
                name_prefix=params.get("q"),
                with_deleted=bool(params.get("with_deleted")),
                sort=params.get("sort_by"),
            )
        )
        bodies = [row["body"] for row in rows if row["body"]["card_type"] in types]
        total = len(bodies) if params.get("with_total_count") else None
        return stored_page(bodies[offset : offset + count + 1], offset, count, total, params)

    async def _designed(
        self, tx: Executor, account_id: str, document: dict[str, Any], current: dict[str, Any]
    ) -> dict[str, Any]:
        """The attributes a create or update sets: name, components (or slides) and their card_type."""
        if "components" in document and "slides" in document:
            raise errors.exclusive("components", "slides")
        out: dict[str, Any] = {}
        if "name" in document:
            name = document["name"]
            if not isinstance(name, str) or len(name) > components.MAX_NAME:
                raise errors.invalid_parameter(
                    "name", f"Maximum length of {components.MAX_NAME} exceeded for name"
                )
            out["name"] = name
        if "slides" in document:
            slides = components.check_slides(document["slides"])
            keys = [key for slide in slides for key in components.media_keys(slide)]
            out.update(slides=slides, components=None)
            out["card_type"] = components.slides_type(slides, await self._media_types(tx, account_id, keys))
        elif "components" in document or not current:
            parts = components.check_shape(document.get("components"))
            types = await self._media_types(tx, account_id, components.media_keys(parts))
            out.update(components=parts, card_type=components.card_type(parts, types))
            if current.get("slides") is not None:
                out["slides"] = None
        return out

    async def _media_types(self, tx: Executor, account_id: str, keys: Sequence[str]) -> dict[str, str]:
        types = {}
        for key in keys:
            item = await self._library.item(account_id, key, tx)
            types[key] = item["body"]["media_type"]
        return types

    # ---- poll and conversation cards ------------------------------------------------------------

    async def create_legacy(self, actor: Actor, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            if kind == POLL:
                attributes = await self._poll(tx, actor, params)
            else:
                attributes = await self._conversation(tx, actor.account_id, kind, params, {})
            number = str(self._ids.next_id())
            return await self._entities.create(
                tx,
                kind,
                actor.account_id,
                {**attributes, "card_uri": URI_PREFIX + number},
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=number,
            )

    async def update_legacy(
        self, actor: Actor, kind: str, card_id: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._entities.load(kind, actor.account_id, card_id, parameter="card_id", reader=tx)
            changes = await self._conversation(tx, actor.account_id, kind, params, row["body"])
            return await self._entities.update(tx, row, changes, now_ms=actor.now_ms, user_id=actor.user_id)

    async def delete_legacy(self, actor: Actor, kind: str, card_id: str) -> dict[str, Any]:
        """A hard delete: the answer shows the card deleted, and no read finds it again."""
        async with self._db.transaction() as tx:
            row = await self._entities.load(kind, actor.account_id, card_id, parameter="card_id", reader=tx)
            await creative_rows.remove_entity(tx, row["id"])
        return {**row["body"], "deleted": True, "updated_at": format_time(actor.now_ms)}

    async def get_legacy(self, account_id: str, kind: str, card_id: str) -> dict[str, Any]:
        row = await self._entities.load(kind, account_id, card_id, parameter="card_id")
        return dict(row["body"])

    async def legacy_page(self, account_id: str, kind: str, params: dict[str, Any]) -> AdsResult:
        query = EntityQuery(kind, account_id, ids=params.get("card_ids"), name_prefix=params.get("q"))
        return await self._entities.list_page(query, params)

    async def _poll(self, tx: Executor, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        choices = [params.get(f"{which}_choice") for which in _CTAS]
        for index in (2, 3):
            if choices[index] and not all(choices[:index]):
                name = f"{_CTAS[index]}_choice"
                raise errors.invalid_parameter(name, f"{name} needs every earlier choice")
        minutes = params["duration_in_minutes"]
        start = format_time(actor.now_ms)
        attributes: dict[str, Any] = {"name": params["name"], "start_time": start}
        for which, choice in zip(_CTAS, choices, strict=True):
            if choice:
                attributes[f"{which}_choice"] = choice
        attributes["end_time"] = format_time(actor.now_ms + minutes * 60_000)
        attributes["duration_in_minutes"] = str(minutes)  # the platform writes it as text
        card_type = "TEXT_POLLS"
        if params.get("media_key"):
            item = (await self._library.item(actor.account_id, params["media_key"], tx))["body"]
            attributes.update(_media_fields(item))
            card_type = "VIDEO_POLLS" if item["media_type"] == "VIDEO" else "IMAGE_POLLS"
        attributes["card_type"] = card_type
        return attributes

    async def _conversation(
        self, tx: Executor, account_id: str, kind: str, params: dict[str, Any], current: dict[str, Any]
    ) -> dict[str, Any]:
        merged = {**current, **{k: v for k, v in params.items() if v is not None}}
        if "fouth_cta" in params and "fourth_cta" not in params:  # the SDK's spelling
            merged["fourth_cta"] = params["fouth_cta"]
        if "fouth_cta_tweet" in params and "fourth_cta_tweet" not in params:
            merged["fourth_cta_tweet"] = params["fouth_cta_tweet"]
        if not merged.get("title") and not merged.get("second_cta"):
            raise errors.missing_parameter("title")
        for which in _CTAS:
            if merged.get(f"{which}_cta") and not merged.get(f"{which}_cta_tweet"):
                raise errors.missing_parameter(f"{which}_cta_tweet")
        changes: dict[str, Any] = {}
        for name in ("name", "title", "thank_you_text", "thank_you_url"):
            if name in params and params[name] is not None:
                changes[name] = params[name]
        for which in _CTAS:
            for suffix in ("_cta", "_cta_tweet"):
                name = which + suffix
                if merged.get(name) is not None and merged.get(name) != current.get(name):
                    changes[name] = merged[name]
        video = kind == VIDEO_CONVERSATION
        if params.get("media_key"):
            item = (await self._library.item(account_id, params["media_key"], tx))["body"]
            if (item["media_type"] == "VIDEO") != video:
                wanted = "a video" if video else "an image"
                raise errors.invalid_parameter(
                    "media_key", f"media_key must name {wanted} of the Media Library"
                )
            changes["media_key"] = item["media_key"]
            changes["media_url"] = item["media_url"]
            if video:
                changes.update(
                    video_width="16", video_height="9", poster_media_url=item.get("poster_media_url")
                )
            else:
                changes.update(_image_size(item))
        for name in ("unlocked_image_media_key", "unlocked_video_media_key", "poster_media_key"):
            if params.get(name):
                await self._library.item(account_id, params[name], tx, parameter=name)
        if not current:
            changes["card_type"] = "VIDEO_CONVERSATION" if video else "IMAGE_CONVERSATION"
        return changes


def _document(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.invalid_json("The request body must be a JSON object")
    return body


def _image_size(item: dict[str, Any]) -> dict[str, str]:
    return {
        "image_display_width": str(item.get("_width") or 1200),
        "image_display_height": str(item.get("_height") or 628),
    }


def _media_fields(item: dict[str, Any]) -> dict[str, Any]:
    """The media a poll card shows, in the card's flat shape (sizes as text, as the platform writes)."""
    if item["media_type"] != "VIDEO":
        return {"image": item["media_url"], **_image_size(item)}
    return {
        "video_url": item["media_url"],
        "video_hls_url": item["media_url"],
        "video_poster_url": item.get("poster_media_url"),
        "video_width": "16",
        "video_height": "9",
        "video_poster_width": "16",
        "video_poster_height": "9",
        "content_duration_seconds": str((item.get("duration") or 0) // 1000),
    }
