"""Posts made and read through an ads account (issue 23): `POST accounts/:id/tweet` (promoted-only
posts, by default, of a promotable user), `GET accounts/:id/tweets` and `tweet_previews`, in the v1.1
shape the ads API still answers with. Posts are made by the platform's own post service, so every
rule of a post (length, duplicates, media, cards) holds; its refusals become ads errors here.
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Sequence
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.cards import Cards
from roost.ads.entities import Entities
from roost.ads.media_library import MediaLibrary
from roost.ads.paging import AdsResult, page_window, stored_page
from roost.core import jsonio
from roost.core.errors import ApiError
from roost.core.records import Row
from roost.domain.posts import PostService
from roost.storage import ads_creatives as creative_rows
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database, Executor
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

TWEET_NAME = "tweet_name"  # the `name` an ads post was given (posts have no such column)
SOURCE = '<a href="https://ads-api.x.com" rel="nofollow">Ads API Internal Test App</a>'
MAX_MEDIA = {"IMAGE": 4, "GIF": 1, "VIDEO": 1}
PREVIEW_URL = "https://ton.twimg.com/ads-manager/tweet-preview/index.html?data="


def v1_time(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%a %b %d %H:%M:%S +0000 %Y")


def ads_refusal(error: ApiError) -> errors.AdsError:
    """A refusal of the post service as the ads API words it."""
    message = str(error)
    if "duplicate" in message:
        return errors.bad_request("DUPLICATE_TWEET", "Status is a duplicate", "text")
    if "media" in message.lower():
        return errors.bad_request("INVALID_MEDIA_ID", message, "media_keys")
    if "card" in message:
        return errors.bad_request("INVALID_PARAMETER", message, "card_uri")
    return errors.bad_request("INVALID_TWEET", message, "text")


class AdsPosts:
    """What an ads account posts and reads of its promotable users' posts."""

    def __init__(
        self,
        db: Database,
        store: AdsStore,
        entities: Entities,
        cards: Cards,
        library: MediaLibrary,
        posts: PostService,
        post_rows: PostStore,
        users: UserStore,
    ) -> None:
        self._db = db
        self._store = store
        self._entities = entities
        self._cards = cards
        self._library = library
        self._posts = posts
        self._post_rows = post_rows
        self._users = users

    # ---- what drafts, scheduled posts and posts share ------------------------------------------------

    async def promotable_user_ids(self, account_id: str, reader: Executor | None = None) -> dict[int, str]:
        """user id -> promotable user type (FULL, RETWEETS_ONLY) of the account."""
        rows, _ = await self._store.entities(EntityQuery("promotable_user", account_id), reader)
        return {int(row["body"]["user_id"]): row["body"].get("promotable_user_type", "FULL") for row in rows}

    async def full_user_id(self, account_id: str, reader: Executor | None = None) -> int | None:
        users = await self.promotable_user_ids(account_id, reader)
        return next((uid for uid, kind in users.items() if kind == "FULL"), next(iter(users), None))

    async def username(self, user_id: int) -> str:
        user = await self._users.get(user_id)
        return str(user["username"]) if user is not None else str(user_id)

    async def check_author(self, account_id: str, user_id: int, reader: Executor | None = None) -> None:
        if user_id not in await self.promotable_user_ids(account_id, reader):
            raise errors.bad_request(
                "INVALID_USER_ID",
                f"User {user_id} is not a promotable user of Account {account_id}",
                "as_user_id",
            )

    async def check_creative(
        self, tx: Executor, account_id: str, card_uri: str | None, media_keys: Sequence[str] | None
    ) -> None:
        """A card of the account and Media Library media: up to 4 images, or 1 GIF, or 1 video."""
        if card_uri:
            await self._cards.by_uri(account_id, card_uri, tx)
        if not media_keys:
            return
        kinds = [(await self._library.item(account_id, key, tx))["body"]["media_type"] for key in media_keys]
        if len(set(kinds)) > 1 or len(kinds) > MAX_MEDIA[kinds[0]]:
            raise errors.invalid_parameter("media_keys", "Include up to 4 images, 1 animated GIF, or 1 video")
        if card_uri:
            raise errors.exclusive("card_uri", "media_keys")

    async def publish(
        self,
        account_id: str,
        author_id: int,
        text: str | None,
        card_uri: str | None,
        media_keys: Sequence[str] | None,
        nullcast: bool,
        reply_settings: str | None = None,
    ) -> Row:
        """A post by `author_id` through the platform's post service (its own transaction)."""
        body: dict[str, Any] = {"nullcast": nullcast}
        if text:
            body["text"] = text
        if card_uri:
            body["card_uri"] = card_uri
        if media_keys:
            body["media"] = {"media_ids": [key.split("_", 1)[-1] for key in media_keys]}
        if reply_settings:
            body["reply_settings"] = reply_settings
        try:
            return await self._posts.create(author_id, body)
        except ApiError as error:
            raise ads_refusal(error) from None

    # ---- POST accounts/:id/tweet ---------------------------------------------------------------

    async def tweet(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        author_id = params["as_user_id"]
        nullcast = params.get("nullcast", True)
        async with self._db.transaction() as tx:
            await self.check_author(actor.account_id, author_id, tx)
            if not nullcast and author_id != actor.user_id:
                raise errors.invalid_parameter(
                    "nullcast",
                    "Organic Tweets (nullcast=false) can only be created for the authenticated user",
                )
            if not params.get("text") and not params.get("media_keys"):
                raise errors.bad_request("TWEET_CANNOT_BE_BLANK", "Tweet text cannot be blank", "text")
            await self.check_creative(tx, actor.account_id, params.get("card_uri"), params.get("media_keys"))
        settings = {"FOLLOWING": "following", "MENTIONED_USERS": "mentionedUsers"}.get(
            params.get("conversation_settings") or ""
        )
        row = await self.publish(
            actor.account_id,
            author_id,
            params.get("text"),
            params.get("card_uri"),
            params.get("media_keys"),
            nullcast,
            settings,
        )
        name = params.get("name")
        if name:
            async with self._db.transaction() as tx:
                await self._entities.create(
                    tx,
                    TWEET_NAME,
                    actor.account_id,
                    {"tweet_id": str(row["id"]), "name": name},
                    now_ms=actor.now_ms,
                    user_id=actor.user_id,
                    parent_id=str(row["id"]),
                )
        user = None if params.get("trim_user") else await self._users.get(author_id)
        out = _v1_post(row, user, name)
        out["text"] = out.pop("full_text")
        return out

    # ---- GET accounts/:id/tweets ---------------------------------------------------------------

    async def tweets(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        """PUBLISHED: the promotable user's posts (nullcast by default, `timeline_type`); SCHEDULED and
        DRAFT: the account's scheduled and draft posts in the same shape."""
        user_id = params.get("user_id") or await self.full_user_id(account_id)
        kind = params["tweet_type"]
        wanted = set(params.get("tweet_ids") or [])
        names = await self._names(account_id)
        if kind != "PUBLISHED":
            entity = "scheduled_tweet" if kind == "SCHEDULED" else "draft_tweet"
            rows, _ = await self._store.entities(
                EntityQuery(entity, account_id, parent_ids=[str(user_id)], sort=("created_at", True))
            )
            bodies = [
                _v1_planned(row["body"], kind) for row in rows if not wanted or int(row["id"]) in wanted
            ]
        else:
            timeline = params.get("timeline_type") or "NULLCAST"
            posts = await creative_rows.posts_of_author(self._db, int(user_id or 0))
            user = None if params.get("trim_user") else await self._users.get(int(user_id or 0))
            bodies = []
            for post in posts:
                if wanted and int(post["id"]) not in wanted:
                    continue
                if (timeline == "NULLCAST" and not post["nullcast"]) or (
                    timeline == "ORGANIC" and post["nullcast"]
                ):
                    continue
                replying = post["in_reply_to_post_id"] is not None or _mentions(post)
                if replying and not params.get("include_mentions_and_replies"):
                    continue
                bodies.append(_v1_post(post, user, names.get(str(post["id"]))))
        prefix = (params.get("name") or "").lower()
        if prefix:
            bodies = [b for b in bodies if (b.get("name") or "").lower().startswith(prefix)]
        offset, count = page_window(params)
        return stored_page(bodies[offset : offset + count + 1], offset, count, None, params)

    async def _names(self, account_id: str) -> dict[str, str]:
        rows, _ = await self._store.entities(EntityQuery(TWEET_NAME, account_id))
        return {row["body"]["tweet_id"]: row["body"]["name"] for row in rows}

    # ---- GET accounts/:id/tweet_previews --------------------------------------------------------

    async def previews(self, account_id: str, tweet_ids: Sequence[int], tweet_type: str) -> AdsResult:
        """An iframe per id of that type the account has (others are left out)."""
        out = []
        if tweet_type == "PUBLISHED":
            authors = set(await self.promotable_user_ids(account_id))
            found = {int(r["id"]): r for r in await self._post_rows.get_many(list(tweet_ids))}
            for tweet_id in dict.fromkeys(tweet_ids):
                post = found.get(tweet_id)
                if post is not None and post["deleted_at"] is None and int(post["author_id"]) in authors:
                    out.append(_preview(str(tweet_id), {"text": post["text"], "card_uri": post["card_uri"]}))
        else:
            kind = "scheduled_tweet" if tweet_type == "SCHEDULED" else "draft_tweet"
            ids = [str(i) for i in dict.fromkeys(tweet_ids)]
            rows, _ = await self._store.entities(EntityQuery(kind, account_id, ids=ids))
            by_id = {row["id"]: row["body"] for row in rows}
            out = [_preview(i, by_id[i]) for i in ids if i in by_id]
        return AdsResult(out, extra={"data_type": "tweet_previews"})


def _preview(tweet_id: str, body: dict[str, Any]) -> dict[str, str]:
    data = base64.urlsafe_b64encode(
        jsonio.dumps({"id": tweet_id, "text": body.get("text"), "card_uri": body.get("card_uri")})
    ).decode()
    return {"tweet_id": tweet_id, "preview": f"<iframe class='tweet-preview' src='{PREVIEW_URL}{data}'>"}


def _mentions(post: Row) -> bool:
    entities = jsonio.loads(post["entities"]) if post["entities"] else {}
    return bool(entities.get("mentions")) and str(post["text"]).startswith("@")


def _v1_entities(post: Row) -> dict[str, Any]:
    stored = jsonio.loads(post["entities"]) if post["entities"] else {}
    return {
        "hashtags": [
            {"text": h["tag"], "indices": [h["start"], h["end"]]} for h in stored.get("hashtags", [])
        ],
        "symbols": [
            {"text": c["tag"], "indices": [c["start"], c["end"]]} for c in stored.get("cashtags", [])
        ],
        "user_mentions": [
            {"screen_name": m["username"], "indices": [m["start"], m["end"]]}
            for m in stored.get("mentions", [])
        ],
        "urls": [
            {
                "url": u.get("url"),
                "expanded_url": u.get("expanded_url"),
                "display_url": u.get("display_url"),
                "indices": [u["start"], u["end"]],
            }
            for u in stored.get("urls", [])
        ],
    }


def _v1_user(user: Row | None, user_id: int) -> dict[str, Any]:
    if user is None:
        return {"id": user_id, "id_str": str(user_id)}
    return {
        "id": user_id,
        "id_str": str(user_id),
        "name": user["name"],
        "screen_name": user["username"],
        "location": user["location"] or None,
        "url": user["url"] or None,
        "description": user["description"] or None,
        "protected": bool(user["protected"]),
        "verified": bool(user["verified"]),
        "followers_count": int(user["followers_count"]),
        "friends_count": int(user["following_count"]),
        "listed_count": int(user["listed_count"]),
        "favourites_count": int(user["like_count"]),
        "statuses_count": int(user["tweet_count"]),
        "created_at": v1_time(int(user["created_at"])),
    }


_SETTINGS = {"everyone": "EVERYONE", "following": "FOLLOWING", "mentionedUsers": "MENTIONED_USERS"}


def _v1_post(post: Row, user: Row | None, name: str | None) -> dict[str, Any]:
    """A post in the ads API's v1.1 shape (`full_text`; POST tweet renames it `text`)."""
    post_id, author_id = int(post["id"]), int(post["author_id"])
    parent = post["in_reply_to_post_id"]
    return {
        "created_at": v1_time(int(post["created_at"])),
        "id": post_id,
        "id_str": str(post_id),
        "full_text": post["text"],
        "name": name,
        "truncated": False,
        "display_text_range": [0, len(post["text"])],
        "entities": _v1_entities(post),
        "source": SOURCE,
        "in_reply_to_status_id": parent,
        "in_reply_to_status_id_str": None if parent is None else str(parent),
        "in_reply_to_user_id": post["in_reply_to_user_id"],
        "in_reply_to_user_id_str": None
        if post["in_reply_to_user_id"] is None
        else str(post["in_reply_to_user_id"]),
        "in_reply_to_screen_name": None,
        "user": _v1_user(user, author_id),
        "geo": None,
        "coordinates": None,
        "place": None,
        "contributors": None,
        "retweet_count": int(post["retweet_count"]),
        "favorite_count": int(post["like_count"]),
        "favorited": False,
        "retweeted": False,
        "scopes": {"followers": False},
        "lang": post["lang"],
        "conversation_settings": _SETTINGS.get(post["reply_settings"], "EVERYONE"),
        "nullcast": bool(post["nullcast"]),
        "card_uri": post["card_uri"],
        "scheduled_at": None,
        "scheduled_status": None,
        "tweet_type": "PUBLISHED",
        "tweet_id": str(post_id),
    }


def _v1_planned(body: dict[str, Any], tweet_type: str) -> dict[str, Any]:
    """A draft or scheduled post listed by `GET tweets` (no post exists yet)."""
    return {
        "id": int(body["id"]),
        "id_str": body["id"],
        "full_text": body.get("text") or "",
        "name": body.get("name"),
        "user": {"id": int(body["user_id"]), "id_str": body["user_id"]},
        "nullcast": body.get("nullcast"),
        "card_uri": body.get("card_uri"),
        "media_keys": body.get("media_keys", []),
        "scheduled_at": body.get("scheduled_at"),
        "scheduled_status": body.get("scheduled_status"),
        "tweet_type": tweet_type,
        "tweet_id": body["id"],
    }
