"""Activity-event (XAA) subscriptions, and the event-log reads the activity stream needs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, Table, bindparam, delete, func, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import activity_subscriptions as subs
from roost.storage.schema import events, follows, oauth1_tokens, oauth2_tokens, webhooks
from roost.storage.statements import binds, in_params, insert_all, sized

_insert = insert_all(subs)
_get = select(subs).where(subs.c.id == bindparam("id"))
_of_app_page = (
    select(subs)
    .where(subs.c.app_id == bindparam("app_id"), subs.c.id > bindparam("after"))
    .order_by(subs.c.id)
    .limit(bindparam("limit"))
)
_count_of_app = select(func.count()).select_from(subs).where(subs.c.app_id == bindparam("app_id"))
_update = (
    update(subs)
    .where(subs.c.id == bindparam("id"))
    .values(tag=bindparam("tag"), webhook_id=bindparam("webhook_id"), updated_at=bindparam("updated_at"))
)
_delete = delete(subs).where(subs.c.id == bindparam("id"), subs.c.app_id == bindparam("app_id"))
_duplicate = select(subs.c.id).where(
    subs.c.app_id == bindparam("app_id"),
    subs.c.event_type == bindparam("event_type"),
    # NULL-safe comparisons: an absent filter part matches only another absent one.
    func.coalesce(subs.c.filter_user_id, -1) == bindparam("user_id"),
    func.coalesce(subs.c.filter_keyword, "") == bindparam("keyword"),
    func.coalesce(subs.c.filter_direction, "") == bindparam("direction"),
)
_max_position = select(func.coalesce(func.max(events.c.position), 0))
# The position just before the first event at or after a time (backfill); a scan, once per connection.
_position_before_time = select(func.coalesce(func.min(events.c.position), 0)).where(
    events.c.created_at >= bindparam("since")
)


# What a new post can satisfy: its author's post.create (post.repost.create for a repost) and each
# mentioned user's post.mention.create.
POST_EVENT_TYPES = ("post.create", "post.mention.create", "post.repost.create")
_POST_TYPES: list[Any] = [bindparam(f"post_type_{i}", value) for i, value in enumerate(POST_EVENT_TYPES)]


@sized
def _matching(count: int) -> Select[Any]:
    """Subscriptions of some event types filtered on one user, with their webhook's state; served by
    ix_activity_subscriptions_match (every event roost produces names a user)."""
    return (
        select(subs, webhooks.c.valid.label("webhook_valid"), webhooks.c.app_id.label("webhook_app_id"))
        .select_from(subs.outerjoin(webhooks, webhooks.c.id == subs.c.webhook_id))
        .where(subs.c.event_type.in_(binds(count)), subs.c.filter_user_id == bindparam("user_id"))
        .order_by(subs.c.id)
    )


@sized
def _matching_users(count: int) -> Select[Any]:
    """`POST_EVENT_TYPES` subscriptions filtered on any of some users, with their webhook's state: a
    dispatcher batch's read-ahead, served by the same index as `_matching`."""
    return (
        select(subs, webhooks.c.valid.label("webhook_valid"), webhooks.c.app_id.label("webhook_app_id"))
        .select_from(subs.outerjoin(webhooks, webhooks.c.id == subs.c.webhook_id))
        .where(subs.c.event_type.in_(_POST_TYPES), subs.c.filter_user_id.in_(binds(count)))
        .order_by(subs.c.id)
    )


# Subscriptions that name no user (news.new, oauth.revoke), with their webhook's state.
_matching_no_user = (
    select(subs, webhooks.c.valid.label("webhook_valid"), webhooks.c.app_id.label("webhook_app_id"))
    .select_from(subs.outerjoin(webhooks, webhooks.c.id == subs.c.webhook_id))
    .where(subs.c.event_type == bindparam("event_type"), subs.c.filter_user_id.is_(None))
    .order_by(subs.c.id)
)


def _sees_through(tokens: Table) -> Select[Any]:
    """A live token of the app held by the user or by one of the user's followers."""
    followers = select(follows.c.follower_id).where(follows.c.followee_id == bindparam("user_id"))
    return (
        select(tokens.c.user_id)
        .where(
            tokens.c.app_id == bindparam("app_id"),
            tokens.c.revoked_at.is_(None),
            or_(tokens.c.user_id == bindparam("user_id"), tokens.c.user_id.in_(followers)),
        )
        .limit(1)
    )


_sees_through_oauth1 = _sees_through(oauth1_tokens)
_sees_through_oauth2 = _sees_through(oauth2_tokens)


class ActivityStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, subscription_id: int) -> Row | None:
        return await self._db.fetch_one(_get, {"id": subscription_id})

    async def page_of_app(self, app_id: int, after: int, limit: int) -> list[Row]:
        return await self._db.fetch_all(_of_app_page, {"app_id": app_id, "after": after, "limit": limit})

    async def count_of_app(self, app_id: int) -> int:
        return int(await self._db.fetch_value(_count_of_app, {"app_id": app_id}) or 0)

    async def matching(self, event_types: Sequence[str], user_id: int) -> list[Row]:
        params: dict[str, Any] = in_params(list(event_types))
        params["user_id"] = user_id
        return await self._db.fetch_all(_matching(len(event_types)), params)

    async def matching_posts_of(self, user_ids: Sequence[int]) -> list[Row]:
        """The `POST_EVENT_TYPES` subscriptions filtered on any of `user_ids`, by id."""
        unique = list(dict.fromkeys(user_ids))
        if not unique:
            return []
        return await self._db.fetch_all(_matching_users(len(unique)), in_params(unique))

    async def matching_no_user(self, event_type: str) -> list[Row]:
        return await self._db.fetch_all(_matching_no_user, {"event_type": event_type})

    async def app_may_see(self, app_id: int, user_id: int) -> bool:
        """Whether some user who has authorised the app (holds a live token of it) is the user or
        follows them: what the app could read through the API about a protected user."""
        params = {"app_id": app_id, "user_id": user_id}
        for statement in (_sees_through_oauth1, _sees_through_oauth2):
            if await self._db.fetch_value(statement, params) is not None:
                return True
        return False

    async def max_position(self) -> int:
        return int(await self._db.fetch_value(_max_position) or 0)

    async def position_before(self, since_ms: int) -> int | None:
        """The log position to read after so that events from `since_ms` on come next (None: none yet)."""
        first = int(await self._db.fetch_value(_position_before_time, {"since": since_ms}) or 0)
        return first - 1 if first else None


async def count_of_app_tx(tx: Executor, app_id: int) -> int:
    return int(await tx.fetch_value(_count_of_app, {"app_id": app_id}) or 0)


async def duplicate_tx(
    tx: Executor,
    app_id: int,
    event_type: str,
    user_id: int | None,
    keyword: str | None,
    direction: str | None,
) -> int | None:
    value = await tx.fetch_value(
        _duplicate,
        {
            "app_id": app_id,
            "event_type": event_type,
            "user_id": -1 if user_id is None else user_id,
            "keyword": keyword or "",
            "direction": direction or "",
        },
    )
    return None if value is None else int(value)


async def insert_subscription(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert, row)


async def get_tx(tx: Executor, subscription_id: int) -> Row | None:
    return await tx.fetch_one(_get, {"id": subscription_id})


async def update_subscription(
    tx: Executor, subscription_id: int, tag: str | None, webhook_id: int | None, updated_at: int
) -> None:
    await tx.execute(
        _update, {"id": subscription_id, "tag": tag, "webhook_id": webhook_id, "updated_at": updated_at}
    )


async def delete_subscription(tx: Executor, app_id: int, subscription_id: int) -> bool:
    return await tx.execute(_delete, {"id": subscription_id, "app_id": app_id}) > 0
