"""Draft and scheduled posts of an ads account (issue 23).

Both belong to a promotable user (`as_user_id`; lists default to the account's FULL one), carry
text, Media Library media and a card, and are promoted-only (`nullcast`) unless told otherwise; both
are hard-deleted. A scheduled post is published by roost's clock: `ScheduledPublisher` (a server
worker, woken when the clock moves) makes the post through the platform's post service once its
`scheduled_at` has come, fills `tweet_id` and `scheduled_status` (SUCCESS, or FAILED when the post's
own rules refuse it, as the platform checks them only then), and gives the scheduled promoted tweets
that point at it their `tweet_id` and a promoted tweet on their line item.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.ads_posts import AdsPosts
from roost.ads.entities import Entities
from roost.ads.paging import AdsResult
from roost.ads.params import format_time, parse_time
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator
from roost.core.records import Row
from roost.domain.periodic import PeriodicWorker
from roost.storage import ads_creatives as creative_rows
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database, Executor

DRAFT = "draft_tweet"
SCHEDULED = "scheduled_tweet"
MINUTE_MS = 60_000
YEAR_MS = 366 * 24 * 3600 * 1000
WINDOW_MS = 15 * MINUTE_MS
WINDOW_LIMIT = 30  # scheduled posts in any 15-minute window
_HIDDEN = ("deleted", "_publishing")
log = logging.getLogger("roost.ads.scheduled")


def visible(body: dict[str, Any]) -> dict[str, Any]:
    """Drafts and scheduled posts carry no `deleted` (they are hard-deleted)."""
    return {k: v for k, v in body.items() if k not in _HIDDEN}


class PlannedPosts:
    def __init__(
        self, db: Database, store: AdsStore, entities: Entities, posts: AdsPosts, ids: SnowflakeGenerator
    ) -> None:
        self._db = db
        self._store = store
        self._entities = entities
        self._posts = posts
        self._ids = ids  # drafts and scheduled posts have snowflake ids

    # ---- reads --------------------------------------------------------------------------------

    async def get(self, kind: str, account_id: str, ident: str) -> dict[str, Any]:
        row = await self._entities.load(kind, account_id, ident, parameter=f"{kind}_id")
        return visible(row["body"])

    async def page(self, kind: str, account_id: str, params: dict[str, Any]) -> AdsResult:
        user_id = params.get("user_id") or await self._posts.full_user_id(account_id)
        query = EntityQuery(kind, account_id, parent_ids=[str(user_id)])
        page = await self._entities.list_page(query, {**params, "sort_by": ("created_at", True)})
        page.data = [visible(body) for body in page.data]
        return page

    # ---- writes -------------------------------------------------------------------------------

    async def create(self, kind: str, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        author_id = params["as_user_id"]
        media_keys = params.get("media_keys") or []
        if not params.get("text") and not media_keys:
            raise errors.missing_parameter("text")
        async with self._db.transaction() as tx:
            await self._posts.check_author(actor.account_id, author_id, tx)
            await self._posts.check_creative(tx, actor.account_id, params.get("card_uri"), media_keys)
            attributes: dict[str, Any] = {
                "name": params.get("name"),
                "text": params.get("text") or "",
                "user_id": str(author_id),
                "nullcast": params.get("nullcast", True),
                "card_uri": params.get("card_uri"),
                "media_keys": list(media_keys),
            }
            if kind == SCHEDULED:
                when = await self._slot(tx, actor, params["scheduled_at"], None)
                attributes = {
                    "name": attributes["name"],
                    "completed_at": None,
                    **{k: v for k, v in attributes.items() if k != "name"},
                    "scheduled_status": "SCHEDULED",
                    "scheduled_at": format_time(when),
                    "tweet_id": None,
                }
            body = await self._entities.create(
                tx,
                kind,
                actor.account_id,
                attributes,
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=str(author_id),
                ident=str(self._ids.next_id()),
            )
        return visible(body)

    async def update(self, kind: str, actor: Actor, ident: str, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._entities.load(kind, actor.account_id, ident, parameter=f"{kind}_id", reader=tx)
            current = row["body"]
            if kind == SCHEDULED and current["scheduled_status"] != "SCHEDULED":
                raise errors.invalid_parameter(
                    "scheduled_tweet_id",
                    f"Scheduled Tweet {ident} has already been {current['scheduled_status']}",
                )
            changes: dict[str, Any] = {}
            for name in ("name", "text", "nullcast", "card_uri", "media_keys"):
                if name in params:
                    value = params[name]
                    changes[name] = ([] if value is None else list(value)) if name == "media_keys" else value
            card_uri = changes.get("card_uri", current.get("card_uri"))
            media_keys = changes.get("media_keys", current.get("media_keys"))
            await self._posts.check_creative(tx, actor.account_id, card_uri, media_keys)
            if kind == SCHEDULED and params.get("scheduled_at") is not None:
                when = await self._slot(tx, actor, params["scheduled_at"], row["id"])
                changes["scheduled_at"] = format_time(when)
            body = await self._entities.update(tx, row, changes, now_ms=actor.now_ms, user_id=actor.user_id)
            if "scheduled_at" in changes:
                await self._move_associations(tx, actor.account_id, row["id"], changes["scheduled_at"])
        return visible(body)

    async def delete(self, kind: str, actor: Actor, ident: str) -> dict[str, Any]:
        """A hard delete; the answer shows the object once more, marked DELETED."""
        async with self._db.transaction() as tx:
            row = await self._entities.load(kind, actor.account_id, ident, parameter=f"{kind}_id", reader=tx)
            await creative_rows.remove_entity(tx, row["id"])
        body = {**visible(row["body"]), "updated_at": format_time(actor.now_ms)}
        if kind == SCHEDULED:
            body["scheduled_status"] = "DELETED"
        else:
            body["status"] = "DELETED"
        return body

    async def preview_message(self, account_id: str, draft_id: str, user_id: int) -> str:
        """The preview goes to the caller's devices; roost has none, so only the answer is given."""
        await self._entities.load(DRAFT, account_id, draft_id, parameter="draft_tweet_id")
        username = await self._posts.username(user_id)
        return f"See @{username}'s notifications in the X app to preview your Tweet."

    async def _slot(self, tx: Executor, actor: Actor, at_ms: int, moving: str | None) -> int:
        """`scheduled_at` to the minute, within the next year, with room in its 15-minute window."""
        when = at_ms - at_ms % MINUTE_MS
        if when <= actor.now_ms:
            raise errors.invalid_parameter("scheduled_at", "scheduled_at must be in the future")
        if when > actor.now_ms + YEAR_MS:
            raise errors.invalid_parameter(
                "scheduled_at", "Tweets can only be scheduled up to one year ahead"
            )
        rows, _ = await self._store.entities(EntityQuery(SCHEDULED, actor.account_id), tx)
        times = sorted(
            ms
            for row in rows
            if row["id"] != moving and row["body"]["scheduled_status"] == "SCHEDULED"
            for ms in [_ms(row["body"]["scheduled_at"])]
            if abs(ms - when) < WINDOW_MS
        )
        # Every 15-minute window holding `when` starts at some scheduled time (or at `when` itself).
        for start in [when - WINDOW_MS + 1, *times]:
            if start <= when < start + WINDOW_MS:
                inside = sum(1 for ms in times if start <= ms < start + WINDOW_MS)
                if inside + 1 > WINDOW_LIMIT:
                    raise errors.bad_request(
                        "SCHEDULED_TWEET_LIMIT_EXCEEDED",
                        f"At most {WINDOW_LIMIT} Tweets can be scheduled in any 15-minute window",
                        "scheduled_at",
                    )
        return when

    async def _move_associations(self, tx: Executor, account_id: str, scheduled_id: str, at: str) -> None:
        for row in await self._associations(tx, account_id, scheduled_id):
            await self._store.update_entity(
                tx,
                {
                    "parent_id": row["parent_id"],
                    "funding_instrument_id": row["funding_instrument_id"],
                    "updated_at": row["updated_at"],
                    "body": {**row["body"], "scheduled_at": at},
                },
            )

    async def _associations(self, tx: Executor, account_id: str, scheduled_id: str) -> list[Row]:
        rows, _ = await self._store.entities(EntityQuery("scheduled_promoted_tweet", account_id), tx)
        return [row for row in rows if row["body"].get("scheduled_tweet_id") == scheduled_id]

    # ---- publishing ---------------------------------------------------------------------------

    async def publish_due(self, now_ms: int) -> int:
        """Publish every scheduled post whose time has come; how many were handled."""
        handled = 0
        for row in await creative_rows.entities_of_kind(self._db, SCHEDULED):
            body = row["body"]
            if body["scheduled_status"] != "SCHEDULED" or body.get("_publishing"):
                continue
            if _ms(body["scheduled_at"]) > now_ms:
                continue
            if await self._claim(row, now_ms):
                await self._publish(row, now_ms)
                handled += 1
        return handled

    async def _claim(self, row: Row, now_ms: int) -> bool:
        """Mark the post as being published, unless another process got there first."""
        seen = creative_rows.body_text(row["body"])
        async with self._db.transaction() as tx:
            return await creative_rows.swap_body(
                tx, row["id"], seen, {**row["body"], "_publishing": True}, now_ms
            )

    async def _publish(self, row: Row, now_ms: int) -> None:
        body = row["body"]
        try:
            post = await self._posts.publish(
                row["account_id"],
                int(body["user_id"]),
                body.get("text"),
                body.get("card_uri"),
                body.get("media_keys"),
                bool(body.get("nullcast")),
            )
        except errors.AdsError as refusal:
            log.info("scheduled post %s failed: %s", row["id"], refusal)
            post = None
        async with self._db.transaction() as tx:
            current = await self._store.entity(row["id"], tx)
            if current is None:  # deleted meanwhile
                return
            stamp = format_time(now_ms)
            outcome: dict[str, Any] = {"scheduled_status": "FAILED"}
            if post is not None:
                outcome = {"scheduled_status": "SUCCESS", "completed_at": stamp, "tweet_id": str(post["id"])}
            done = {k: v for k, v in current["body"].items() if k != "_publishing"}
            await self._entities.update(tx, {**current, "body": done}, outcome, now_ms=now_ms, user_id=None)
            if post is not None:
                await self._promote(tx, row["account_id"], row["id"], str(post["id"]), now_ms)

    async def _promote(
        self, tx: Executor, account_id: str, scheduled_id: str, tweet_id: str, now_ms: int
    ) -> None:
        """The scheduled promoted tweets of this post get its id, and their line items a promoted tweet."""
        for association in await self._associations(tx, account_id, scheduled_id):
            if association["deleted"]:
                continue
            await self._entities.update(tx, association, {"tweet_id": tweet_id}, now_ms=now_ms, user_id=None)
            await self._entities.create(
                tx,
                "promoted_tweet",
                account_id,
                {
                    "line_item_id": association["parent_id"],
                    "tweet_id": tweet_id,
                    "entity_status": "ACTIVE",
                    "approval_status": "ACCEPTED",
                },
                now_ms=now_ms,
                user_id=None,
                parent_id=association["parent_id"],
            )


def _ms(stamp: str) -> int:
    value = parse_time(stamp)
    assert value is not None
    return value


class ScheduledPublisher(PeriodicWorker):
    """Publishes scheduled posts as roost's clock reaches them; woken at once when the clock moves."""

    interval_s = 1.0
    failure = "publishing scheduled posts failed"
    log = log

    def __init__(self, planned: PlannedPosts, clock: Clock) -> None:
        self._planned = planned
        self._clock = clock
        self._woken: asyncio.Task[None] | None = None  # the step a clock move started

    async def step(self) -> None:
        await self._planned.publish_due(self._clock.now_ms())

    def wake(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._woken = loop.create_task(self.step())
