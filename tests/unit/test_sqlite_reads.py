"""SQLite reads: one read snapshot per turn of the event loop, ended before the loop reads new input.

A request therefore never reads data older than its own arrival, whatever another process committed
before it, and this process's own writes are read at once. Opening a snapshot also notices other
processes' commits, which moves the database generation that in-process caches are keyed on.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, bindparam, insert, select

from roost.storage.db import SQLiteDatabase

_items = Table("items", MetaData(), Column("id", Integer, primary_key=True), Column("value", Integer))
_by_id = select(_items.c.value).where(_items.c.id == bindparam("id"))
_everything = select(_items.c.id, _items.c.value).order_by(_items.c.id)
_insert = insert(_items).values(id=bindparam("id"), value=bindparam("value"))


@pytest.fixture()
def path(tmp_path: Path) -> Path:
    file = tmp_path / "reads.db"
    with sqlite3.connect(file) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, value INTEGER)")
    return file


@pytest.fixture()
async def db(path: Path) -> AsyncIterator[SQLiteDatabase]:
    database = SQLiteDatabase(str(path))
    yield database
    await database.close()


def another_process(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


async def test_another_process_commit_is_read_on_the_next_turn(db: SQLiteDatabase, path: Path) -> None:
    assert await db.fetch_one(_by_id, {"id": 1}) is None
    generation = db.current_generation()
    another_process(path).execute("INSERT INTO items VALUES (1, 5)")
    await asyncio.sleep(0)  # the loop turns, as it does before reading the next request
    assert await db.fetch_one(_by_id, {"id": 1}) == {"value": 5}
    assert db.current_generation() > generation  # caches keyed on it start afresh


async def test_reads_of_one_turn_share_one_snapshot(db: SQLiteDatabase, path: Path) -> None:
    await db.fetch_one(_by_id, {"id": 1})
    another_process(path).execute("INSERT INTO items VALUES (1, 5)")
    # Same turn: the snapshot taken by the first read still answers (the commit came after it).
    assert await db.fetch_one(_by_id, {"id": 1}) is None
    await asyncio.sleep(0)
    assert await db.fetch_one(_by_id, {"id": 1}) == {"value": 5}


async def test_the_generation_notices_another_process_before_any_read(db: SQLiteDatabase, path: Path) -> None:
    await db.fetch_one(_by_id, {"id": 1})
    await asyncio.sleep(0)
    generation = db.current_generation()
    await asyncio.sleep(0)
    another_process(path).execute("INSERT INTO items VALUES (2, 7)")
    await asyncio.sleep(0)
    assert db.current_generation() > generation


async def test_this_process_reads_its_own_write_at_once(db: SQLiteDatabase) -> None:
    assert await db.fetch_one(_by_id, {"id": 3}) is None  # a snapshot is open
    generation = db.generation
    async with db.transaction() as tx:
        await tx.execute(_insert, {"id": 3, "value": 9})
    assert await db.fetch_one(_by_id, {"id": 3}) == {"value": 9}  # same turn
    assert db.generation == generation + 1


async def test_a_snapshot_does_not_outlive_its_turn(db: SQLiteDatabase, path: Path) -> None:
    await db.fetch_all(_everything)
    await asyncio.sleep(0)
    writer = another_process(path)
    writer.execute("INSERT INTO items VALUES (4, 1)")
    # A checkpoint that must reset the whole log completes only if no reader holds a snapshot.
    busy, _, _ = writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0


async def test_an_unfinished_multi_row_read_ends_its_snapshot_later(db: SQLiteDatabase, path: Path) -> None:
    with another_process(path) as conn:
        conn.executemany("INSERT INTO items VALUES (?, ?)", [(i, i) for i in range(10, 20)])
    first = await db.fetch_one(_everything)  # reads one row of ten
    assert first == {"id": 10, "value": 10}
    for _ in range(3):
        await asyncio.sleep(0)
    busy, _, _ = another_process(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0
