"""Reposts, quotes and hidden replies: the statements behind them (a repost is a post row whose
`reposted_post_id` names its source; `ix_posts_reposted` and `ix_posts_quoted` serve the reads)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, or_, select, update
from sqlalchemy.orm import aliased

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import posts, users

_live = (posts.c.deleted_at.is_(None), posts.c.superseded_by.is_(None))

_repost_of = select(posts).where(
    posts.c.author_id == bindparam("user_id"),
    posts.c.reposted_post_id == bindparam("source_id"),
    posts.c.deleted_at.is_(None),
)
_reposts_of_post = select(posts).where(
    posts.c.reposted_post_id == bindparam("post_id"), posts.c.deleted_at.is_(None)
)
_set_hidden = update(posts).where(posts.c.id == bindparam("id")).values(reply_hidden=bindparam("hidden"))


def _paged(statement: Select[Any]) -> Select[Any]:
    return statement.order_by(posts.c.id.desc()).limit(bindparam("limit")).offset(bindparam("offset"))


_reposts = _paged(select(posts).where(posts.c.reposted_post_id == bindparam("post_id"), *_live))
_reposters = (
    select(users)
    .join(posts, posts.c.author_id == users.c.id)
    .where(posts.c.reposted_post_id == bindparam("post_id"), *_live)
    .order_by(posts.c.id.desc())
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)
_quotes = _paged(
    select(posts).where(
        posts.c.quoted_post_id == bindparam("post_id"),
        *_live,
        or_(bindparam("include_replies") == 1, posts.c.in_reply_to_post_id.is_(None)),
    )
)
_source = aliased(posts)
_reposts_of_user = _paged(
    select(posts)
    .join(_source, _source.c.id == posts.c.reposted_post_id)
    .where(_source.c.author_id == bindparam("user_id"), *_live)
)


async def repost_of(tx: Executor, user_id: int, source_id: int) -> Row | None:
    """The user's live repost of a post, if there is one."""
    return await tx.fetch_one(_repost_of, {"user_id": user_id, "source_id": source_id})


async def live_reposts_of(tx: Executor, post_id: int) -> list[Row]:
    """Every repost of a post that is not deleted."""
    return await tx.fetch_all(_reposts_of_post, {"post_id": post_id})


async def set_reply_hidden(tx: Executor, post_id: int, hidden: bool) -> None:
    await tx.execute(_set_hidden, {"id": post_id, "hidden": int(hidden)})


class RepostStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def reposts(self, post_id: int, limit: int, offset: int) -> list[Row]:
        """Reposts of a post, newest first."""
        return await self._db.fetch_all(_reposts, {"post_id": post_id, "limit": limit, "offset": offset})

    async def reposters(self, post_id: int, limit: int, offset: int) -> list[Row]:
        """The users who reposted a post, newest repost first."""
        return await self._db.fetch_all(_reposters, {"post_id": post_id, "limit": limit, "offset": offset})

    async def quotes(self, post_id: int, limit: int, offset: int, include_replies: bool) -> list[Row]:
        """Posts quoting a post, newest first."""
        return await self._db.fetch_all(
            _quotes,
            {"post_id": post_id, "limit": limit, "offset": offset, "include_replies": int(include_replies)},
        )

    async def reposts_of_user(self, user_id: int, limit: int, offset: int) -> list[Row]:
        """Reposts of any of the user's posts, newest first."""
        return await self._db.fetch_all(
            _reposts_of_user, {"user_id": user_id, "limit": limit, "offset": offset}
        )
