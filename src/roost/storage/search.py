"""Search storage: the full-text index DDL, search documents at write time, search and count queries.

The index: `posts.search_text` (search/document.py) indexed by an external-content FTS5 table on
SQLite (kept in step by the writers since migration 0026: see `index_new_post`), and by a GIN index
on `to_tsvector('simple', search_text)` on PostgreSQL. Queries come from `storage/search_compiler.py`
as value-free plans; each (dialect, plan, form) is built into one statement and kept, so the
executor's statement cache sees one object per query *shape*, never one per request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from roost.core import jsonio
from roost.core.records import Row
from roost.search import document
from roost.storage.db import Database, Executor
from roost.storage.schema import media, places, posts, users
from roost.storage.search_compiler import Compiled, Dialect, Plan, clause, text_match, tsquery_bind
from roost.storage.users import get_media_tx

# Objects of the index made by raw DDL, which Alembic autogenerate must leave alone (env.py).
SEARCH_INDEX_OBJECTS = ("posts_fts", "ix_posts_search")

FTS_DDL = (
    # `ascii`: search documents hold only [a-z0-9] tokens separated by spaces (search/document.py).
    "CREATE VIRTUAL TABLE posts_fts USING fts5(search_text, content='posts', content_rowid='id', "
    "tokenize='ascii')",
    "INSERT INTO posts_fts(posts_fts) VALUES ('rebuild')",
    "CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN "
    "INSERT INTO posts_fts(rowid, search_text) VALUES (new.id, new.search_text); END",
    "CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN "
    "INSERT INTO posts_fts(posts_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text); END",
    "CREATE TRIGGER posts_fts_update AFTER UPDATE OF search_text ON posts BEGIN "
    "INSERT INTO posts_fts(posts_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text); "
    "INSERT INTO posts_fts(rowid, search_text) VALUES (new.id, new.search_text); END",
)
FTS_DROP = (
    "DROP TRIGGER IF EXISTS posts_fts_update",
    "DROP TRIGGER IF EXISTS posts_fts_delete",
    "DROP TRIGGER IF EXISTS posts_fts_insert",
    "DROP TABLE IF EXISTS posts_fts",
)
# Migration 0026: new and wiped posts reach the SQLite index through the writers (below) instead of
# these triggers, so that the posts of one group commit enter it together: FTS5 writes a segment at
# every savepoint, and one segment per commit instead of one per post halves a post's insert.
FTS_WRITER_TRIGGERS = ("posts_fts_insert", "posts_fts_delete")
PG_INDEX_DDL = ("CREATE INDEX ix_posts_search ON posts USING gin (to_tsvector('simple', search_text))",)
PG_INDEX_DROP = ("DROP INDEX IF EXISTS ix_posts_search",)

BACKFILL_BATCH = 2_000

# One row of VALUES, not INSERT … SELECT: a statement that may insert several rows runs inside a
# savepoint of its own, at which FTS5 writes out a segment, so each post cost a segment again (20 µs
# against 2 per post, in process). A post gone by the commit (a wipe later in the same group) adds an
# empty entry, which matches nothing.
_index_post = sa.text(
    "INSERT INTO posts_fts(rowid, search_text) VALUES (:id, (SELECT search_text FROM posts WHERE id = :id))"
)
_clear_index = sa.text("INSERT INTO posts_fts(posts_fts) VALUES ('delete-all')")


def index_new_post(tx: Executor, post_id: int) -> None:
    """A post inserted in `tx` enters the SQLite index when the transaction commits, with the rest of
    its group commit (read back from its row then: an undone post adds nothing, a wiped one an empty
    entry)."""
    if tx.dialect_name == "sqlite":
        tx.execute_at_commit(_index_post, {"id": post_id})


async def index_posts(tx: Executor, post_ids: Iterable[int]) -> None:
    """Posts inserted in bulk (imports, restores) enter the SQLite index now."""
    if tx.dialect_name == "sqlite":
        await tx.execute_many(_index_post, [{"id": post_id} for post_id in post_ids])


async def clear_index(tx: Executor) -> None:
    """Every post leaves the SQLite index (a wipe deletes them all)."""
    if tx.dialect_name == "sqlite":
        await tx.execute(_clear_index)


# ---- search documents ---------------------------------------------------------------------------


def document_columns(row: Row, media_types: Iterable[str] = ()) -> dict[str, str]:
    """`search_text` and `search_urls` of a post row (its media types for has:images/video_link)."""
    text, urls = document.document_of(row, media_types)
    return {"search_text": text, "search_urls": urls}


def _media_keys(row: Row) -> list[str]:
    raw = row.get("media_keys")
    return list(jsonio.loads(raw) or []) if raw else []


async def add_document(tx: Executor, row: dict[str, Any]) -> None:
    """Fill the row's search columns before it is inserted (reads its media types in `tx`)."""
    keys = _media_keys(row)
    types = [str(m["type"]) for m in await get_media_tx(tx, keys)] if keys else []
    row.update(document_columns(row, types))


def backfill_sync(connection: sa.Connection) -> int:
    """Write the search columns of every existing post (migration 0008, synchronous Alembic bind)."""
    columns = [
        posts.c[n] for n in ("id", "text", "entities", "media_keys", "place_id", "context_annotations")
    ]
    write = (
        sa.update(posts)
        .where(posts.c.id == sa.bindparam("pid"))
        .values(search_text=sa.bindparam("st"), search_urls=sa.bindparam("su"))
    )
    last, done = -1, 0
    while True:
        batch = [
            dict(r._mapping)
            for r in connection.execute(
                sa.select(*columns).where(posts.c.id > last).order_by(posts.c.id).limit(BACKFILL_BATCH)
            )
        ]
        if not batch:
            return done
        keys = sorted({k for row in batch for k in _media_keys(row)})
        types: dict[str, str] = {}
        if keys:
            found = connection.execute(
                sa.select(media.c.media_key, media.c.type).where(media.c.media_key.in_(keys))
            )
            types = {str(k): str(t) for k, t in found}
        updates = []
        for row in batch:
            cols = document_columns(row, [types[k] for k in _media_keys(row) if k in types])
            updates.append({"pid": row["id"], "st": cols["search_text"], "su": cols["search_urls"]})
        connection.execute(write, updates)
        done += len(batch)
        last = batch[-1]["id"]


# ---- queries ------------------------------------------------------------------------------------


def _conditions(driver: str | None, dialect: str, plan: Plan, fts_rowid: Any, no_reposts: bool) -> list[Any]:
    where: list[ColumnElement[Any]] = [
        fts_rowid > sa.bindparam("since_id"),
        fts_rowid < sa.bindparam("until_id"),
        posts.c.created_at >= sa.bindparam("start_ms"),
        posts.c.created_at < sa.bindparam("end_ms"),
        posts.c.deleted_at.is_(None),
        posts.c.superseded_by.is_(None),  # an edited post is found as its newest version
        posts.c.nullcast == 0,  # promoted-only posts are never found by search
        # Search leaves protected accounts out (ix_users_protected keeps this list cheap).
        posts.c.author_id.not_in(sa.select(users.c.id).where(users.c.protected == 1)),
    ]
    if no_reposts:
        where.append(posts.c.reposted_post_id.is_(None))
    if driver is not None and dialect != "sqlite":
        where.append(text_match(dialect, driver))
    if plan != ("true",):
        where.append(clause(dialect, plan))
    return where


def _by_author(plan: Plan) -> bool:
    parts = plan[1:] if plan[0] == "and" else (plan,)
    return any(p[0] == "user" and p[1] == "author_id" for p in parts)


def _source(driver: str | None, dialect: str, plan: Plan) -> tuple[Any, Any, Any]:
    """(FROM, id column to bound and order by, extra MATCH condition) for one statement form.

    SQLite with a driving text query reads the FTS5 table newest-first and stops at the limit. When
    the query also names its author, the author's posts (ix_posts_author_id) are far fewer than a
    word's matches: posts come first and each is checked with an FTS5 rowid seek (a correlated
    EXISTS; a join would let the planner read the whole posting list)."""
    if driver is None or dialect != "sqlite":
        return posts, posts.c.id, None
    fts = sa.table("posts_fts", sa.column("rowid"))
    match = sa.literal_column("posts_fts").op("MATCH")(sa.bindparam(driver))
    if _by_author(plan):
        return posts, posts.c.id, sa.exists().where(match, fts.c.rowid == posts.c.id)
    return fts.join(posts, posts.c.id == fts.c.rowid), fts.c.rowid, match


def _relevance_order(driver: str, dialect: str) -> tuple[Any, Any]:
    """(FROM, ORDER BY) of a relevancy statement: the engine's own score of the driving text query,
    best first; ties newest first. FTS5's bm25() is lower for better matches and needs the FTS5
    table in the FROM (so never the by-author EXISTS form); PostgreSQL ranks with ts_rank."""
    if dialect == "sqlite":
        fts = sa.table("posts_fts", sa.column("rowid"))
        score = sa.func.bm25(sa.literal_column("posts_fts"))
        return fts.join(posts, posts.c.id == fts.c.rowid), (score.asc(), posts.c.id.desc())
    score = sa.func.ts_rank(
        sa.func.to_tsvector(sa.literal_column("'simple'"), posts.c.search_text), tsquery_bind(driver)
    )
    return posts, (score.desc(), posts.c.id.desc())


@lru_cache(maxsize=4096)
def _search_statement(
    dialect: str, driver: str | None, plan: Plan, no_reposts: bool, ascending: bool, relevance: bool = False
) -> sa.Select[Any]:
    """Recency: keyset on the id. Relevance (only with a driving text query): an OFFSET page over
    (score, id), the offset carried by the next_token."""
    if relevance and driver is not None:
        source, order = _relevance_order(driver, dialect)
        where = _conditions(driver, dialect, plan, posts.c.id, no_reposts)
        if dialect == "sqlite":
            where.insert(0, sa.literal_column("posts_fts").op("MATCH")(sa.bindparam(driver)))
        return (
            sa.select(posts)
            .select_from(source)
            .where(*where)
            .order_by(*order)
            .limit(sa.bindparam("limit"))
            .offset(sa.bindparam("offset"))
        )
    source, rowid, match = _source(driver, dialect, plan)
    where = _conditions(driver, dialect, plan, rowid, no_reposts)
    if match is not None:
        where.insert(0, match)
    order = rowid.asc() if ascending else rowid.desc()
    return sa.select(posts).select_from(source).where(*where).order_by(order).limit(sa.bindparam("limit"))


@lru_cache(maxsize=4096)
def _count_statement(dialect: str, driver: str | None, plan: Plan, no_reposts: bool) -> sa.Select[Any]:
    source, rowid, match = _source(driver, dialect, plan)
    where = _conditions(driver, dialect, plan, rowid, no_reposts)
    if match is not None:
        where.insert(0, match)
    bucket = (posts.c.created_at // sa.bindparam("bucket_ms", type_=sa.BigInteger)).label("bucket")
    return (
        sa.select(bucket, sa.func.count().label("n"))
        .select_from(source)
        .where(*where)
        .group_by(sa.text("bucket"))
    )


_all_places = sa.select(places)


class SearchStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    @property
    def dialect(self) -> Dialect:
        return "sqlite" if self._db.dialect_name == "sqlite" else "postgresql"

    async def search(
        self,
        compiled: Compiled,
        *,
        since_id: int,
        until_id: int,
        start_ms: int,
        end_ms: int,
        limit: int,
        no_reposts: bool,
        ascending: bool = False,
        relevance_offset: int | None = None,
    ) -> list[Row]:
        """Matching posts newest first, or (`relevance_offset` set, and only for a ranked query)
        best first from that offset."""
        relevance = relevance_offset is not None and compiled.ranked
        statement = _search_statement(
            self.dialect, compiled.driver, compiled.rest, no_reposts, ascending, relevance
        )
        params: dict[str, Any] = {
            **compiled.params,
            "since_id": since_id,
            "until_id": until_id,
            "start_ms": start_ms,
            "end_ms": end_ms,
            "limit": limit,
        }
        if relevance:
            params["offset"] = relevance_offset
        return await self._db.fetch_all(statement, params)

    async def counts(
        self,
        compiled: Compiled,
        *,
        since_id: int,
        until_id: int,
        start_ms: int,
        end_ms: int,
        bucket_ms: int,
        no_reposts: bool,
    ) -> dict[int, int]:
        """Matching posts per granularity-aligned bucket: {bucket index (created_at // bucket_ms): n}."""
        statement = _count_statement(self.dialect, compiled.driver, compiled.rest, no_reposts)
        params = {
            **compiled.params,
            "since_id": since_id,
            "until_id": until_id,
            "start_ms": start_ms,
            "end_ms": end_ms,
            "bucket_ms": bucket_ms,
        }
        return {int(r["bucket"]): int(r["n"]) for r in await self._db.fetch_all(statement, params)}

    async def places(self) -> Sequence[Row]:
        return await self._db.fetch_all(_all_places)
