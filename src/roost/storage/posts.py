"""Post storage: lookups, timelines, creation with its counters and event, deletion."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import BigInteger, Select, and_, bindparam, cast, delete, or_, select, union_all, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import follows, post_mentions, posts, users
from roost.storage.search import add_document
from roost.storage.statements import binds, in_params, insert_all, sized

MAX_ID = (1 << 63) - 1

_by_id = select(posts).where(posts.c.id == bindparam("id"))
_insert = insert_all(posts)
_insert_mention = insert_all(post_mentions)


@sized
def _by_ids(count: int) -> Select[Any]:
    return select(posts).where(posts.c.id.in_(binds(count)))


@lru_cache(maxsize=256)
def _columns_by_id(columns: tuple[str, ...]) -> Select:
    return select(*(posts.c[name] for name in columns)).where(posts.c.id == bindparam("id"))


@lru_cache(maxsize=1024)
def _columns_by_ids(count: int, columns: tuple[str, ...]) -> Select:
    return select(*(posts.c[name] for name in columns)).where(posts.c.id.in_(binds(count)))


def _bounds(column_id: Any) -> Any:
    return and_(
        column_id > bindparam("since_id"),
        column_id < bindparam("until_id"),
        posts.c.created_at >= bindparam("start_ms"),
        posts.c.created_at < bindparam("end_ms"),
        posts.c.deleted_at.is_(None),
        posts.c.superseded_by.is_(None),
        or_(bindparam("include_replies") == 1, posts.c.in_reply_to_post_id.is_(None)),
        or_(bindparam("include_reposts") == 1, posts.c.reposted_post_id.is_(None)),
    )


def _timeline(kind: str, ascending: bool) -> Select:
    statement = select(posts)
    if kind == "mentions":
        statement = statement.join(post_mentions, post_mentions.c.post_id == posts.c.id).where(
            post_mentions.c.user_id == bindparam("user_id")
        )
    else:
        statement = statement.where(posts.c.author_id == bindparam("author_id"))
    order = posts.c.id.asc() if ascending else posts.c.id.desc()
    return statement.where(_bounds(posts.c.id)).order_by(order).limit(bindparam("limit"))


# (author | mentions, ascending) -> statement; built once so each compiles once per dialect.
_timelines = {
    (kind, ascending): _timeline(kind, ascending)
    for kind in ("author", "mentions")
    for ascending in (False, True)
}


def _home_candidates(ascending: bool) -> Select:
    """Ids of the user's own posts and of the accounts they follow, in id order: read from
    ix_posts_author_id (author_id, id) alone (a covering index), so no post row is touched until the
    page's rows are fetched by id."""
    authors = union_all(
        select(follows.c.followee_id).where(follows.c.follower_id == bindparam("home_id")),
        select(cast(bindparam("self_id"), BigInteger)),
    )
    order = posts.c.id.asc() if ascending else posts.c.id.desc()
    return (
        select(posts.c.id)
        .where(
            posts.c.author_id.in_(authors),
            posts.c.id > bindparam("since_id"),
            posts.c.id < bindparam("until_id"),
        )
        .order_by(order)
        .limit(bindparam("limit"))
    )


_home = {ascending: _home_candidates(ascending) for ascending in (False, True)}
# Candidates read beyond the page, so a few filtered out (replies, reposts, deleted) cost no second read.
HOME_SLACK = 10
HOME_MAX_BATCH = 1000


def _on_page(row: Row, params: dict[str, Any]) -> bool:
    """The filters `_bounds` applies in SQL, for rows fetched by id (the home timeline)."""
    return (
        row["deleted_at"] is None
        and row["superseded_by"] is None
        and params["start_ms"] <= row["created_at"] < params["end_ms"]
        and (params["include_replies"] or row["in_reply_to_post_id"] is None)
        and (params["include_reposts"] or row["reposted_post_id"] is None)
    )


_bump = {
    name: update(posts)
    .where(posts.c.id == bindparam("target"))
    .values({name: posts.c[name] + bindparam("delta")})
    for name in ("reply_count", "quote_count", "retweet_count", "like_count", "bookmark_count")
}
_user_bump = {
    name: update(users)
    .where(users.c.id == bindparam("target"))
    .values({name: users.c[name] + bindparam("delta")})
    for name in ("tweet_count", "followers_count", "following_count", "media_count", "like_count")
}
_set_most_recent = (
    update(users).where(users.c.id == bindparam("target")).values(most_recent_post_id=bindparam("post_id"))
)
_mark_deleted = update(posts).where(posts.c.id == bindparam("id")).values(deleted_at=bindparam("at"))
_supersede = (
    update(posts)
    .where(posts.c.id == bindparam("id"))
    .values(superseded_by=bindparam("by"), edits_remaining=0, is_edit_eligible=0)
)
_set_history = update(posts).where(posts.c.id == bindparam("id")).values(edit_history=bindparam("history"))
_delete_mentions = delete(post_mentions).where(post_mentions.c.post_id == bindparam("id"))
_max_id = select(posts.c.id).order_by(posts.c.id.desc()).limit(1)


class PostStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, post_id: int, columns: tuple[str, ...] | None = None) -> Awaitable[Row | None]:
        """A post by id: the whole row, or only `columns` (the fields a request selected need).

        Returns the database's read to await, not a coroutine of its own: this is every post lookup's path."""
        statement = _by_id if columns is None else _columns_by_id(columns)
        return self._db.fetch_one(statement, {"id": post_id})

    async def get_many(self, ids: Sequence[int], columns: tuple[str, ...] | None = None) -> list[Row]:
        if not ids:
            return []
        unique = list(dict.fromkeys(ids))
        statement = _by_ids(len(unique)) if columns is None else _columns_by_ids(len(unique), columns)
        return await self._db.fetch_all(statement, in_params(unique))

    async def timeline(
        self,
        *,
        author_id: int | None = None,
        mentioned_id: int | None = None,
        home_id: int | None = None,
        since_id: int = 0,
        until_id: int = MAX_ID,
        start_ms: int = 0,
        end_ms: int = MAX_ID,
        limit: int,
        ascending: bool = False,
        include_replies: bool = True,
        include_reposts: bool = True,
    ) -> list[Row]:
        params: dict[str, Any] = {
            "since_id": since_id,
            "until_id": until_id,
            "start_ms": start_ms,
            "end_ms": end_ms,
            "limit": limit,
            "include_replies": int(include_replies),
            "include_reposts": int(include_reposts),
        }
        if home_id is not None:
            return await self._home_timeline(home_id, params, ascending)
        if author_id is not None:
            kind = "author"
            params["author_id"] = author_id
        else:
            kind = "mentions"
            params["user_id"] = mentioned_id
        return await self._db.fetch_all(_timelines[(kind, ascending)], params)

    async def _home_timeline(self, user_id: int, params: dict[str, Any], ascending: bool) -> list[Row]:
        """The home timeline's page in two steps: candidate ids from the authors' index entries, then
        those rows by id, kept when they pass the page's filters; more candidates while the page is
        short and the authors have more posts."""
        limit = params["limit"]
        since_id, until_id = params["since_id"], params["until_id"]
        batch = limit + HOME_SLACK
        kept: list[Row] = []
        while len(kept) < limit:
            ids = await self._db.fetch_all(
                _home[ascending],
                {
                    "home_id": user_id,
                    "self_id": user_id,
                    "since_id": since_id,
                    "until_id": until_id,
                    "limit": batch,
                },
            )
            if not ids:
                break
            candidates = [row["id"] for row in ids]
            rows = {row["id"]: row for row in await self.get_many(candidates)}
            for post_id in candidates:
                row = rows.get(post_id)
                if row is not None and _on_page(row, params):
                    kept.append(row)
            if len(ids) < batch:
                break
            if ascending:
                since_id = candidates[-1]
            else:
                until_id = candidates[-1]
            batch = min(batch * 4, HOME_MAX_BATCH)  # a page mostly filtered out reads wider each time
        return kept[:limit]

    async def max_id(self) -> int:
        return int(await self._db.fetch_value(_max_id) or 0)


async def insert_post(tx: Executor, row: dict[str, Any], mentioned_user_ids: Sequence[int]) -> None:
    if "search_text" not in row:
        await add_document(tx, row)  # the search document is written with the row
    await tx.execute(_insert, row)
    await tx.execute_many(
        _insert_mention, [{"post_id": row["id"], "user_id": uid} for uid in mentioned_user_ids]
    )


async def bump_post(tx: Executor, post_id: int, counter: str, delta: int) -> None:
    await tx.execute(_bump[counter], {"target": post_id, "delta": delta})


async def bump_user(tx: Executor, user_id: int, counter: str, delta: int) -> None:
    await tx.execute(_user_bump[counter], {"target": user_id, "delta": delta})


async def set_most_recent(tx: Executor, user_id: int, post_id: int | None) -> None:
    await tx.execute(_set_most_recent, {"target": user_id, "post_id": post_id})


async def mark_deleted(tx: Executor, post_id: int, at_ms: int) -> None:
    await tx.execute(_mark_deleted, {"id": post_id, "at": at_ms})
    await tx.execute(_delete_mentions, {"id": post_id})


async def supersede(tx: Executor, post_id: int, by_id: int) -> None:
    await tx.execute(_supersede, {"id": post_id, "by": by_id})


async def set_edit_history(tx: Executor, post_id: int, history_json: str) -> None:
    await tx.execute(_set_history, {"id": post_id, "history": history_json})


_latest_of_author = (
    select(posts.c.id)
    .where(posts.c.author_id == bindparam("author_id"), posts.c.deleted_at.is_(None))
    .order_by(posts.c.id.desc())
    .limit(1)
)


async def latest_post_of(tx: Executor, author_id: int) -> int | None:
    return await tx.fetch_value(_latest_of_author, {"author_id": author_id})


async def get_for_update(tx: Executor, post_id: int) -> Row | None:
    return await tx.fetch_one(_by_id, {"id": post_id})
