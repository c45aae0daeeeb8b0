"""The media library of an ads account, its account media and the media creatives that put account
media on line items (issue 23).

A library item is media uploaded through roost's media upload (`/2/media/upload`, `/1.1/media/upload`),
added by its `media_key`; it must have been uploaded by (or for, `additional_owners`) the caller or a
promotable user of the account. An `AMPLIFY_VIDEO` added to the library also becomes a PREROLL
account media, as on the platform; roost has no other way to make account media.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.entities import Entities
from roost.ads.paging import AdsResult, page_window, stored_page
from roost.core import jsonio
from roost.core.records import Row
from roost.domain import media_files
from roost.storage import media_uploads as upload_rows
from roost.storage import users as user_rows
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database, Executor

LIBRARY = "media_library"
ACCOUNT_MEDIA = "account_media"
MEDIA_CREATIVE = "media_creative"
MEDIA_TYPES = ("GIF", "IMAGE", "VIDEO")
CREATIVE_TYPES = (
    "BANNER",
    "BANNER_TABLET",
    "INTERSTITIAL",
    "INTERSTITIAL_LANDSCAPE",
    "INTERSTITIAL_LANDSCAPE_TABLET",
    "INTERSTITIAL_TABLET",
    "MEDIUM_RECTANGLE",
    "PREROLL",
    "VAST_PREROLL",
)
_TYPES = {"photo": "IMAGE", "animated_gif": "GIF", "video": "VIDEO"}
_DEFAULT_CATEGORY = {"IMAGE": "TWEET_IMAGE", "GIF": "TWEET_GIF", "VIDEO": "TWEET_VIDEO"}
_VIDEO_ONLY = ("title", "description", "poster_media_key")
_HIDDEN = ("id", "_width", "_height")


def visible(body: dict[str, Any]) -> dict[str, Any]:
    """A library item as the API shows it: no ads id (it is named by its media key), no sizes."""
    return {k: v for k, v in body.items() if k not in _HIDDEN}


def _aspect_ratio(width: int | None, height: int | None) -> str | None:
    if not width or not height:
        return "16:9"  # roost's videos carry no size; the platform's usual ratio
    a, b = width, height
    while b:
        a, b = b, a % b
    return f"{width // a}:{height // a}"


def _terms(text: str) -> list[str]:
    return [t for t in re.split(r"\W+", text.lower()) if t]


class MediaLibrary:
    """Library items, account media and media creatives of an account."""

    def __init__(self, db: Database, store: AdsStore, entities: Entities) -> None:
        self._db = db
        self._store = store
        self._entities = entities

    # ---- the library --------------------------------------------------------------------------

    async def item(
        self, account_id: str, media_key: str, reader: Executor | None = None, *, parameter: str = "media_key"
    ) -> Row:
        """The live library item of a media key, or the platform's 404 naming it."""
        rows, _ = await self._store.entities(EntityQuery(LIBRARY, account_id, parent_ids=[media_key]), reader)
        if not rows:
            raise errors.not_found(LIBRARY, media_key, account_id, parameter)
        return rows[0]

    async def get(self, account_id: str, media_key: str) -> dict[str, Any]:
        return visible((await self.item(account_id, media_key))["body"])

    async def add(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        media_key = params["media_key"]
        async with self._db.transaction() as tx:
            existing, _ = await self._store.entities(
                EntityQuery(LIBRARY, actor.account_id, parent_ids=[media_key]), tx
            )
            if existing:  # adding it again changes nothing
                return visible(existing[0]["body"])
            media, category = await self._uploaded(tx, actor, media_key)
            media_type = _TYPES[media["type"]]
            _check_video_only(params, media_type)
            attributes = _library_body(media, media_type, category, params)
            body = await self._entities.create(
                tx,
                LIBRARY,
                actor.account_id,
                attributes,
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=media_key,
            )
            if category == "AMPLIFY_VIDEO":
                await self._entities.create(
                    tx,
                    ACCOUNT_MEDIA,
                    actor.account_id,
                    {"video_id": media_key, "media_url": None, "creative_type": "PREROLL"},
                    now_ms=actor.now_ms,
                    user_id=actor.user_id,
                    parent_id=media_key,
                )
        return visible(body)

    async def update(self, actor: Actor, media_key: str, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self.item(actor.account_id, media_key, tx)
            _check_video_only(params, row["body"]["media_type"])
            changes = {name: params[name] for name in ("name", "file_name", *_VIDEO_ONLY) if name in params}
            if "poster_media_key" in changes:
                poster = await self._poster(tx, changes["poster_media_key"])
                changes["poster_media_url"] = poster
            body = await self._entities.update(tx, row, changes, now_ms=actor.now_ms, user_id=actor.user_id)
        return visible(body)

    async def delete(self, actor: Actor, media_key: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self.item(actor.account_id, media_key, tx)
            body = await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)
        return visible(body)

    async def page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        """Newest first, as the Media Library UI lists them; `media_type` and `q` (terms) filter."""
        rows, _ = await self._store.entities(EntityQuery(LIBRARY, account_id, sort=("created_at", True)))
        wanted_type = params.get("media_type")
        terms = _terms(params.get("q") or "")
        bodies = []
        for row in rows:
            body = row["body"]
            if wanted_type and body.get("media_type") != wanted_type:
                continue
            if terms:
                words = set(
                    _terms(
                        " ".join(
                            str(body.get(f) or "") for f in ("name", "title", "file_name", "description")
                        )
                    )
                )
                if not all(term in words for term in terms):
                    continue
            bodies.append(visible(body))
        offset, count = page_window(params)
        total = len(bodies) if params.get("with_total_count") else None
        return stored_page(bodies[offset : offset + count + 1], offset, count, total, params)

    async def _uploaded(self, tx: Executor, actor: Actor, media_key: str) -> tuple[Row, str]:
        """The media object of an upload the account may use, and its category (upper case)."""
        invalid = errors.bad_request(
            "INVALID_MEDIA_ID", f"Media {media_key} is not a valid media key", "media_key"
        )
        found = await user_rows.get_media_tx(tx, [media_key])
        if not found or found[0]["type"] not in _TYPES:
            raise invalid
        media = found[0]
        upload = await upload_rows.upload_tx(tx, int(media["id"]))
        owners = {media["owner_id"]} if media["owner_id"] is not None else set()
        if upload is not None:
            if upload["state"] != "finalized":
                raise invalid
            owners |= {int(u) for u in jsonio.loads(upload["additional_owners"] or "[]")}
        promotable, _ = await self._store.entities(EntityQuery("promotable_user", actor.account_id), tx)
        allowed = {actor.user_id} | {int(row["body"]["user_id"]) for row in promotable}
        if upload is not None and not upload["shared"] and not owners & allowed:
            raise invalid
        named = media_files.category_of(upload["category"] or None) if upload is not None else None
        category = (named or "").upper() or _DEFAULT_CATEGORY[_TYPES[media["type"]]]
        return media, category

    async def _poster(self, tx: Executor, media_key: str | None) -> str | None:
        if not media_key:
            return None
        found = await user_rows.get_media_tx(tx, [media_key])
        if not found or found[0]["type"] != "photo":
            raise errors.bad_request(
                "INVALID_MEDIA_ID", f"Media {media_key} is not a valid poster image", "poster_media_key"
            )
        return str(found[0]["url"])

    # ---- account media ------------------------------------------------------------------------

    async def account_media_page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        types = params.get("creative_types")
        query = EntityQuery(ACCOUNT_MEDIA, account_id, ids=params.get("account_media_ids"))
        if not types:
            return await self._entities.list_page(query, params)
        return await self._filtered(query, params, lambda body: body.get("creative_type") in types)

    async def _filtered(
        self, query: EntityQuery, params: dict[str, Any], keep: Callable[[dict[str, Any]], bool]
    ) -> AdsResult:
        offset, count = page_window(params)
        rows, _ = await self._store.entities(
            EntityQuery(
                query.kind,
                query.account_id,
                ids=query.ids,
                parent_ids=query.parent_ids,
                with_deleted=bool(params.get("with_deleted")),
                sort=params.get("sort_by"),
            )
        )
        bodies = [row["body"] for row in rows if keep(row["body"])]
        total = len(bodies) if params.get("with_total_count") else None
        return stored_page(bodies[offset : offset + count + 1], offset, count, total, params)

    async def delete_account_media(self, actor: Actor, ident: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._entities.load(ACCOUNT_MEDIA, actor.account_id, ident, reader=tx)
            return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)

    # ---- media creatives ----------------------------------------------------------------------

    async def create_creative(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            line_item = await self._entities.load(
                "line_item", actor.account_id, params["line_item_id"], parameter="line_item_id", reader=tx
            )
            media = await self._entities.load(
                ACCOUNT_MEDIA,
                actor.account_id,
                params["account_media_id"],
                parameter="account_media_id",
                reader=tx,
            )
            landing_url = params.get("landing_url")
            if line_item["body"].get("objective") == "WEBSITE_CLICKS" and not landing_url:
                raise errors.missing_parameter("landing_url")
            if media["body"]["creative_type"] == "PREROLL":
                landing_url = None  # ignored for preroll: their links are preroll call-to-actions
            return await self._entities.create(
                tx,
                MEDIA_CREATIVE,
                actor.account_id,
                {
                    "line_item_id": line_item["id"],
                    "landing_url": landing_url,
                    "creative_type": media["body"]["creative_type"],
                    "entity_status": "ACTIVE",
                    "account_media_id": media["id"],
                    "approval_status": "ACCEPTED",
                },
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=line_item["id"],
            )

    async def creatives_page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        parents = params.get("line_item_ids")
        campaign_id = params.get("campaign_id")
        if campaign_id:
            rows, _ = await self._store.entities(
                EntityQuery("line_item", account_id, parent_ids=[campaign_id], with_deleted=True)
            )
            in_campaign = [row["id"] for row in rows]
            parents = [p for p in parents if p in in_campaign] if parents else in_campaign
            if not parents:
                return AdsResult([], paged=True, total_count=0 if params.get("with_total_count") else None)
        query = EntityQuery(
            MEDIA_CREATIVE, account_id, ids=params.get("media_creative_ids"), parent_ids=parents
        )
        return await self._entities.list_page(query, params)

    async def delete_creative(self, actor: Actor, ident: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._entities.load(MEDIA_CREATIVE, actor.account_id, ident, reader=tx)
            return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)


def _check_video_only(params: dict[str, Any], media_type: str) -> None:
    if media_type == "VIDEO":
        return
    for name in _VIDEO_ONLY:
        if params.get(name):
            raise errors.invalid_parameter(name, f"{name} can only be used with videos")


def _library_body(media: Row, media_type: str, category: str, params: dict[str, Any]) -> dict[str, Any]:
    variants = jsonio.loads(media["variants"]) if media["variants"] else []
    media_url = media["url"] if media_type == "IMAGE" else (variants[0]["url"] if variants else None)
    body: dict[str, Any] = {
        "tweeted": False,
        "name": params.get("name"),
        "file_name": params.get("file_name"),
        "media_url": media_url,
        "media_category": category,
        "media_key": media["media_key"],
        "media_status": "TRANSCODE_COMPLETED",
        "media_type": media_type,
        "_width": media["width"],
        "_height": media["height"],
    }
    if media_type != "IMAGE":
        body.update(
            duration=media["duration_ms"],
            poster_media_url=media["preview_image_url"],
            poster_media_key=params.get("poster_media_key"),
            title=params.get("title"),
            description=params.get("description"),
            aspect_ratio=_aspect_ratio(media["width"], media["height"]),
        )
    return body
