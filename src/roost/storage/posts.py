"""Post storage: lookups, timelines, creation with its counters and event, deletion."""

from __future__ import annotations

import time
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import BigInteger, Select, and_, bindparam, cast, delete, or_, select, union_all, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import follows, post_mentions, posts, users
from roost.storage.search import add_document, index_new_post
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
        posts.c.nullcast == 0,  # promoted-only posts stay out of timelines
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


# The home timeline: the newest HOME_DEPTH posts of the user and the accounts they follow. The
# platform's documentation says the endpoint returns "the 3,200 most recent Posts (or 7 days)"
# (docs.x.com x-api/posts/timelines/introduction.mdx and integrate.mdx; surface-facts "Home
# timeline"): the count is kept, the 7 days are not (older posts of a quiet timeline stay readable).
HOME_DEPTH = 3200
_home_authors = union_all(
    select(follows.c.followee_id).where(follows.c.follower_id == bindparam("home_id")),
    select(cast(bindparam("self_id"), BigInteger)),
)
# What the page's filters need of the user's posts, newest first, below `until_id`: `limit` ids
# picked from ix_posts_author_id alone (one range per author, a covering index), then those rows
# for the rest. Deleted and superseded versions come too, counted in `limit`, and are dropped by the
# caller: the number of candidates read says whether older ones remain.
_candidate = posts.alias("candidate")
_home_chunk = (
    select(
        posts.c.id,
        posts.c.created_at,
        posts.c.in_reply_to_post_id,
        posts.c.reposted_post_id,
        posts.c.deleted_at,
        posts.c.superseded_by,
        posts.c.nullcast,
    )
    .where(
        posts.c.id.in_(
            select(_candidate.c.id)
            .where(_candidate.c.author_id.in_(_home_authors), _candidate.c.id < bindparam("until_id"))
            .order_by(_candidate.c.id.desc())
            .limit(bindparam("limit"))
        )
    )
    .order_by(posts.c.id.desc())
)
# A cold read (after any commit) takes the newest HOME_FIRST_CHUNK candidates, or twice the page
# when larger; a page that reaches past them reads HOME_GROWTH times more. Reading the whole depth
# at once would cost 10 ms and more on the bench data (about 3 µs a row); a first chunk of 40 costs
# about 0.4 ms in process (bench/profile_home.py), what each page's candidate query cost before.
HOME_FIRST_CHUNK = 40
HOME_GROWTH = 4
_HOME_TTL_S = 1.0  # a backstop for writers the database's generation does not report
_HOME_CACHE_SIZE = 256  # users; about 55 kB each at full depth
_REPLY, _REPOST = 1, 2


@dataclass(frozen=True, slots=True)
class HomeEntries:
    """The newest part of one user's home timeline as its page filters see it, oldest first: post
    ids, their created_at (ms) and flags (`_REPLY`, `_REPOST`), in compact arrays. Every candidate
    from `cursor` up has been read; older ones remain unless `complete`."""

    ids: array[int]
    created: array[int]
    flags: bytes
    cursor: int
    complete: bool
    chunk: int  # candidates the last read asked for

    @classmethod
    def empty(cls) -> HomeEntries:
        return cls(array("q"), array("q"), b"", MAX_ID, False, 0)

    def extended(self, rows: Sequence[Row], asked: int) -> HomeEntries:
        """These entries and the next older chunk of candidates (`rows`, newest first, `asked` of
        them asked for), deleted and superseded ones left out, at most HOME_DEPTH in all."""
        live = [
            row
            for row in reversed(rows)
            if row["deleted_at"] is None and row["superseded_by"] is None and not row["nullcast"]
        ]
        room = HOME_DEPTH - len(self.ids)
        live = live[len(live) - room :] if len(live) > room else live
        ids = array("q", [row["id"] for row in live]) + self.ids
        return HomeEntries(
            ids,
            array("q", [row["created_at"] for row in live]) + self.created,
            bytes(
                (_REPLY if row["in_reply_to_post_id"] is not None else 0)
                | (_REPOST if row["reposted_post_id"] is not None else 0)
                for row in live
            )
            + self.flags,
            rows[-1]["id"] if rows else self.cursor,
            len(rows) < asked or len(ids) >= HOME_DEPTH,
            asked,
        )

    def page(self, params: dict[str, Any], ascending: bool) -> list[int] | None:
        """The ids of one page: inside the id bounds, the time bounds and the exclusions, at most
        `limit`, in the page's order; None when older candidates than these entries hold are needed."""
        ids, created, flags = self.ids, self.created, self.flags
        since_id = params["since_id"]
        low = bisect_right(ids, since_id)
        high = bisect_left(ids, params["until_id"])
        start_ms, end_ms, limit = params["start_ms"], params["end_ms"], params["limit"]
        known = self.complete or since_id >= self.cursor  # every candidate of the id range is here
        if ascending and not known:
            return None
        skip = (0 if params["include_replies"] else _REPLY) | (0 if params["include_reposts"] else _REPOST)
        if not skip and start_ms <= 0 and end_ms >= MAX_ID:
            picked = (
                list(ids[low : low + limit]) if ascending else list(ids[max(low, high - limit) : high][::-1])
            )
        else:
            picked = []
            for index in range(low, high) if ascending else range(high - 1, low - 1, -1):
                if flags[index] & skip or not start_ms <= created[index] < end_ms:
                    continue
                picked.append(ids[index])
                if len(picked) == limit:
                    break
        return picked if known or len(picked) == limit else None


_KeptHome = tuple[int, float, HomeEntries]  # (database generation, monotonic deadline, entries)

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
mentions_of_post = (
    select(post_mentions.c.user_id)
    .where(post_mentions.c.post_id == bindparam("post_id"))
    .order_by(post_mentions.c.user_id)
)


@sized
def mentions_of_posts(count: int) -> Select[Any]:
    return (
        select(post_mentions.c.post_id, post_mentions.c.user_id)
        .where(post_mentions.c.post_id.in_(binds(count)))
        .order_by(post_mentions.c.post_id, post_mentions.c.user_id)
    )


_max_id = select(posts.c.id).order_by(posts.c.id.desc()).limit(1)


class PostStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        # user id -> (database generation, monotonic deadline, the user's home timeline entries)
        self._homes: dict[int, _KeptHome] = {}

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
        columns: tuple[str, ...] | None = None,
    ) -> list[Row]:
        """One page of a timeline, in the page's order. `columns` (the home timeline only): the
        post columns the field selection reads; the other timelines read whole rows."""
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
            return await self._home_timeline(home_id, params, ascending, columns)
        if author_id is not None:
            kind = "author"
            params["author_id"] = author_id
        else:
            kind = "mentions"
            params["user_id"] = mentioned_id
        return await self._db.fetch_all(_timelines[(kind, ascending)], params)

    async def _home_timeline(
        self, user_id: int, params: dict[str, Any], ascending: bool, columns: tuple[str, ...] | None
    ) -> list[Row]:
        """The home timeline's page: its ids picked from the user's cached entries (read further back
        while the page needs older ones), then those rows by id (only `columns` when given)."""
        kept = await self._home(user_id, params["limit"])
        wanted = kept[2].page(params, ascending)
        while wanted is None:
            kept = await self._extend_home(user_id, kept)
            wanted = kept[2].page(params, ascending)
        found = {row["id"]: row for row in await self.get_many(wanted, columns)}
        return [found[post_id] for post_id in wanted if post_id in found]

    async def home_entries(self, user_id: int) -> HomeEntries:
        """The newest of the user's home timeline entries (a first chunk of them when not cached)."""
        return (await self._home(user_id))[2]

    async def _home(self, user_id: int, limit: int = 0) -> _KeptHome:
        """The user's kept entries. Every page reads them, so they are kept until the next commit of
        this or another process (`Database.current_generation`), and at most a second: one read per
        user and write (and one per older chunk a page reaches), however many pages are served."""
        generation = self._db.current_generation()
        hit = self._homes.get(user_id)
        if hit is not None and hit[0] == generation and time.monotonic() < hit[1]:
            return hit
        entries = await self._older_chunk(user_id, HomeEntries.empty(), 2 * limit)
        if len(self._homes) >= _HOME_CACHE_SIZE:
            self._homes.clear()
        kept = self._homes[user_id] = (generation, time.monotonic() + _HOME_TTL_S, entries)
        return kept

    async def _extend_home(self, user_id: int, kept: _KeptHome) -> _KeptHome:
        """`kept` with the next older chunk of entries; kept in its place unless replaced meanwhile."""
        extended = (kept[0], kept[1], await self._older_chunk(user_id, kept[2]))
        if self._homes.get(user_id) is kept:
            self._homes[user_id] = extended
        return extended

    async def _older_chunk(self, user_id: int, entries: HomeEntries, at_least: int = 0) -> HomeEntries:
        asked = min(max(HOME_FIRST_CHUNK, at_least, entries.chunk * HOME_GROWTH), HOME_DEPTH)
        rows = await self._db.fetch_all(
            _home_chunk, {"home_id": user_id, "self_id": user_id, "until_id": entries.cursor, "limit": asked}
        )
        return entries.extended(rows, asked)

    async def max_id(self) -> int:
        return int(await self._db.fetch_value(_max_id) or 0)


async def insert_post(tx: Executor, row: dict[str, Any], mentioned_user_ids: Sequence[int]) -> None:
    # Only ads posts are promoted-only or carry a card; every other writer leaves both out.
    row.setdefault("nullcast", 0)
    row.setdefault("card_uri", None)
    if "search_text" not in row:
        await add_document(tx, row)  # the search document is written with the row
    await tx.execute(_insert, row)
    index_new_post(tx, row["id"])
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


_text_of = select(posts.c.text, posts.c.created_at, posts.c.deleted_at).where(posts.c.id == bindparam("id"))


async def text_of(tx: Executor, post_id: int) -> Row | None:
    """A post's text, creation time and deletion time (the duplicate check's question)."""
    return await tx.fetch_one(_text_of, {"id": post_id})


async def get_for_update(tx: Executor, post_id: int) -> Row | None:
    return await tx.fetch_one(_by_id, {"id": post_id})


async def mentioned_user_ids(db: Executor | Database, post_id: int) -> list[int]:
    """Whom a post mentions, by user id (in a transaction or not)."""
    return [int(row["user_id"]) for row in await db.fetch_all(mentions_of_post, {"post_id": post_id})]


async def mentioned_user_ids_of(db: Database, post_ids: Sequence[int]) -> dict[int, list[int]]:
    """`mentioned_user_ids` of several posts at once: every one of them has an entry."""
    unique = list(dict.fromkeys(post_ids))
    found: dict[int, list[int]] = {post_id: [] for post_id in unique}
    if unique:
        for row in await db.fetch_all(mentions_of_posts(len(unique)), in_params(unique)):
            found[int(row["post_id"])].append(int(row["user_id"]))
    return found
