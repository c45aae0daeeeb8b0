"""Whole-database operations: wiping for a reset, bulk loading for imports and benchmarks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, select

from roost.storage.db import Database
from roost.storage.schema import media, metadata, posts, users
from roost.storage.search import clear_index, index_posts
from roost.storage.statements import insert_all

# The leases are the running processes', not data: a reset by one leaves the others' in place.
_KEPT = {"work_leases"}
_wipes = [delete(table) for table in reversed(metadata.sorted_tables) if table.name not in _KEPT]
_bulk = {table.name: insert_all(table) for table in metadata.sorted_tables}


async def wipe(db: Database) -> None:
    async with db.transaction() as tx:
        for statement in _wipes:
            await tx.execute(statement)
        await clear_index(tx)


async def bulk_insert(db: Database, table: str, rows: Sequence[dict[str, Any]]) -> None:
    async with db.transaction() as tx:
        await tx.execute_many(_bulk[table], rows)
        if table == "posts":
            await index_posts(tx, [row["id"] for row in rows])


_keys = {
    "users": select(users.c.id).order_by(users.c.id),
    "posts": select(posts.c.id).order_by(posts.c.id),
    "media": select(media.c.media_key).order_by(media.c.media_key),
}


async def all_keys(db: Database, table: str) -> list[Any]:
    return [next(iter(row.values())) for row in await db.fetch_all(_keys[table])]
