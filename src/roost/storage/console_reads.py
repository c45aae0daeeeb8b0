"""The console's statements (`/_roost/console`): pages of users, posts, DMs, Spaces and lists newest
first, live tokens and their revocation, webhooks, their newest deliveries and a delivery's retry.

Each page is `id < before` (or `created_at < before` where ids are not ordered), newest first, with an
optional case-insensitive substring on one text column."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, func, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import (
    crc_checks,
    deliveries,
    dm_events,
    oauth1_tokens,
    oauth2_tokens,
    posts,
    replay_jobs,
    spaces,
    users,
    webhooks,
)
from roost.storage.schema_social import list_members, lists

_BIG = 1 << 62  # "before" when the page is the first: above every id and instant


def like_pattern(text: str) -> str:
    """`text` as a LIKE pattern matching it anywhere, its wildcards taken literally."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _page(table: Any, key: Any, text: Any, *where: ColumnElement[bool]) -> tuple[Select[Any], Select[Any]]:
    """The page's statement without a search, and with one (two statements: PostgreSQL cannot type
    a parameter that is only compared with NULL)."""
    plain = (
        select(table).where(key < bindparam("before"), *where).order_by(key.desc()).limit(bindparam("limit"))
    )
    return plain, plain.where(func.lower(text).like(bindparam("pattern"), escape="\\"))


_users = _page(users, users.c.id, users.c.username_lower)
_posts = _page(posts, posts.c.id, posts.c.text, posts.c.deleted_at.is_(None))
_dm_events = _page(dm_events, dm_events.c.id, dm_events.c.text)
_spaces = _page(spaces, spaces.c.created_at, spaces.c.title)
_lists = _page(lists, lists.c.id, lists.c.name)
_list = select(lists).where(lists.c.id == bindparam("id"))
_posts_of_author = (
    select(posts)
    .where(posts.c.author_id == bindparam("author_id"), posts.c.id < bindparam("before"))
    .where(posts.c.deleted_at.is_(None))
    .order_by(posts.c.id.desc())
    .limit(bindparam("limit"))
)
_replies_to = (
    select(posts)
    .where(posts.c.in_reply_to_post_id == bindparam("post_id"), posts.c.deleted_at.is_(None))
    .order_by(posts.c.id)
    .limit(bindparam("limit"))
)
_member_ids = (
    select(list_members.c.user_id)
    .where(list_members.c.list_id == bindparam("list_id"))
    .order_by(list_members.c.created_at)
    .limit(bindparam("limit"))
)
_oauth1_live = (
    select(oauth1_tokens)
    .where(oauth1_tokens.c.revoked_at.is_(None))
    .order_by(oauth1_tokens.c.created_at.desc())
    .limit(bindparam("limit"))
)
_oauth2_live = (
    select(oauth2_tokens)
    .where(
        oauth2_tokens.c.revoked_at.is_(None),
        oauth2_tokens.c.kind == "access",
        or_(oauth2_tokens.c.expires_at.is_(None), oauth2_tokens.c.expires_at > bindparam("now")),
    )
    .order_by(oauth2_tokens.c.created_at.desc())
    .limit(bindparam("limit"))
)
_revoke1 = (
    update(oauth1_tokens)
    .where(oauth1_tokens.c.token == bindparam("token"), oauth1_tokens.c.revoked_at.is_(None))
    .values(revoked_at=bindparam("at"))
)
_revoke2 = (
    update(oauth2_tokens)
    .where(oauth2_tokens.c.token == bindparam("token"), oauth2_tokens.c.revoked_at.is_(None))
    .values(revoked_at=bindparam("at"))
)
_webhooks = select(webhooks).order_by(webhooks.c.id)
_webhook = select(webhooks).where(webhooks.c.id == bindparam("id"))
_replays = (
    select(replay_jobs)
    .where(replay_jobs.c.webhook_id == bindparam("webhook_id"))
    .order_by(replay_jobs.c.created_at.desc())
    .limit(10)
)
_crc_checks = (
    select(crc_checks)
    .where(crc_checks.c.webhook_id == bindparam("webhook_id"))
    .order_by(crc_checks.c.id.desc())
    .limit(50)
)
_newest_deliveries = (
    select(deliveries)
    .where(deliveries.c.webhook_id == bindparam("webhook_id"), deliveries.c.id < bindparam("before"))
    .order_by(deliveries.c.id.desc())
    .limit(bindparam("limit"))
)
_delivery = select(deliveries).where(deliveries.c.id == bindparam("id"))
# Only a settled row is sent again: one being sent is claimed by a process already.
_retry = (
    update(deliveries)
    .where(
        deliveries.c.id == bindparam("id"),
        or_(deliveries.c.state == "delivered", deliveries.c.state == "failed"),
    )
    .values(state="pending", next_attempt_at=bindparam("now"))
)


class ConsoleStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def _page(
        self, statements: tuple[Select[Any], Select[Any]], query: str | None, before: int | None, limit: int
    ) -> list[Row]:
        params: dict[str, Any] = {"before": _BIG if before is None else before, "limit": limit}
        if not query:
            return await self._db.fetch_all(statements[0], params)
        return await self._db.fetch_all(statements[1], {**params, "pattern": like_pattern(query)})

    async def users(self, query: str | None, before: int | None, limit: int) -> list[Row]:
        return await self._page(_users, query, before, limit)

    async def posts(self, query: str | None, before: int | None, limit: int) -> list[Row]:
        return await self._page(_posts, query, before, limit)

    async def dm_events(self, query: str | None, before: int | None, limit: int) -> list[Row]:
        return await self._page(_dm_events, query, before, limit)

    async def spaces(self, query: str | None, before: int | None, limit: int) -> list[Row]:
        return await self._page(_spaces, query, before, limit)

    async def lists(self, query: str | None, before: int | None, limit: int) -> list[Row]:
        return await self._page(_lists, query, before, limit)

    async def list_row(self, list_id: int) -> Row | None:
        return await self._db.fetch_one(_list, {"id": list_id})

    async def posts_of_author(self, author_id: int, before: int | None, limit: int) -> list[Row]:
        params = {"author_id": author_id, "before": _BIG if before is None else before, "limit": limit}
        return await self._db.fetch_all(_posts_of_author, params)

    async def replies_to(self, post_id: int, limit: int) -> list[Row]:
        return await self._db.fetch_all(_replies_to, {"post_id": post_id, "limit": limit})

    async def member_ids(self, list_id: int, limit: int) -> list[int]:
        rows = await self._db.fetch_all(_member_ids, {"list_id": list_id, "limit": limit})
        return [int(row["user_id"]) for row in rows]

    async def live_tokens(self, now_ms: int, limit: int) -> tuple[list[Row], list[Row]]:
        """Unrevoked OAuth 1.0a tokens and unexpired OAuth 2.0 access tokens, newest first."""
        oauth1 = await self._db.fetch_all(_oauth1_live, {"limit": limit})
        oauth2 = await self._db.fetch_all(_oauth2_live, {"limit": limit, "now": now_ms})
        return oauth1, oauth2

    async def webhooks(self) -> list[Row]:
        return await self._db.fetch_all(_webhooks)

    async def webhook(self, webhook_id: int) -> Row | None:
        return await self._db.fetch_one(_webhook, {"id": webhook_id})

    async def crc_checks(self, webhook_id: int) -> list[Row]:
        return await self._db.fetch_all(_crc_checks, {"webhook_id": webhook_id})

    async def replay_jobs(self, webhook_id: int) -> list[Row]:
        return await self._db.fetch_all(_replays, {"webhook_id": webhook_id})

    async def deliveries(self, webhook_id: int, before: int | None, limit: int) -> list[Row]:
        params = {"webhook_id": webhook_id, "before": _BIG if before is None else before, "limit": limit}
        return await self._db.fetch_all(_newest_deliveries, params)

    async def delivery(self, delivery_id: int) -> Row | None:
        return await self._db.fetch_one(_delivery, {"id": delivery_id})


async def revoke_token(tx: Executor, token: str, at_ms: int) -> bool:
    """Revoke an OAuth 1.0a or OAuth 2.0 token by its value; False when no live one has it."""
    changed = await tx.execute(_revoke1, {"token": token, "at": at_ms})
    changed += await tx.execute(_revoke2, {"token": token, "at": at_ms})
    return changed > 0


async def retry_delivery(tx: Executor, delivery_id: int, now_ms: int) -> bool:
    """Make a delivered or failed delivery due again now; False when it is not settled (or absent)."""
    return await tx.execute(_retry, {"id": delivery_id, "now": now_ms}) > 0
