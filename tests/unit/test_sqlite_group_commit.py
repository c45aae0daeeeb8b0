"""SQLite group commit: the transactions begun in one turn of the event loop share one COMMIT.

Each is a savepoint of the shared transaction, so one that raises is undone alone; each caller's
block returns only once the COMMIT is done (its write is durable and visible to other connections).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, bindparam, insert, select, text, update

from roost.storage.db import SQLiteDatabase

_items = Table("items", MetaData(), Column("id", Integer, primary_key=True), Column("value", Integer))
_by_id = select(_items.c.value).where(_items.c.id == bindparam("id"))
_insert = insert(_items).values(id=bindparam("id"), value=bindparam("value"))
_set_value = update(_items).where(_items.c.id == bindparam("id")).values(value=bindparam("value"))
# Put off to the commit: copies an item as it is then into `log`.
_log_item = text("INSERT INTO log (id, value) SELECT id, value FROM items WHERE id = :id")


@pytest.fixture()
def path(tmp_path: Path) -> Path:
    file = tmp_path / "group.db"
    with sqlite3.connect(file) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, value INTEGER)")
        conn.execute("CREATE TABLE log (id INTEGER PRIMARY KEY, value INTEGER)")
    return file


@pytest.fixture()
async def db(path: Path) -> AsyncIterator[SQLiteDatabase]:
    database = SQLiteDatabase(str(path))
    yield database
    await database.close()


def logged(path: Path) -> list[tuple[int, int]]:
    with sqlite3.connect(path) as conn:
        return [(row[0], row[1]) for row in conn.execute("SELECT id, value FROM log ORDER BY id")]


async def write_logged(db: SQLiteDatabase, item_id: int, fail: bool = False) -> None:
    async with db.transaction() as tx:
        await tx.execute(_insert, {"id": item_id, "value": item_id})
        tx.execute_at_commit(_log_item, {"id": item_id})
        if fail:
            raise ValueError("refused after writing")


def committed_ids(path: Path) -> list[int]:
    """What another connection (another process) reads: only committed rows."""
    with sqlite3.connect(path) as conn:
        return [row[0] for row in conn.execute("SELECT id FROM items ORDER BY id")]


async def write(db: SQLiteDatabase, item_id: int, fail: bool = False) -> None:
    async with db.transaction() as tx:
        await tx.execute(_insert, {"id": item_id, "value": item_id})
        if fail:
            raise ValueError("refused after writing")


async def test_writes_of_one_turn_share_one_commit(db: SQLiteDatabase, path: Path) -> None:
    generation = db.generation
    await asyncio.gather(*(write(db, item_id) for item_id in range(1, 11)))
    assert committed_ids(path) == list(range(1, 11))
    assert db.generation == generation + 1  # one commit announced for the ten


async def test_a_block_returns_only_once_its_write_is_committed(db: SQLiteDatabase, path: Path) -> None:
    await write(db, 1)
    assert committed_ids(path) == [1]
    assert await db.fetch_one(_by_id, {"id": 1}) == {"value": 1}


async def test_a_failing_unit_is_undone_alone(db: SQLiteDatabase, path: Path) -> None:
    results = await asyncio.gather(
        write(db, 1), write(db, 2, fail=True), write(db, 3), return_exceptions=True
    )
    assert [type(result) for result in results] == [type(None), ValueError, type(None)]
    assert committed_ids(path) == [1, 3]


async def test_a_later_unit_sees_an_earlier_units_write_of_the_same_group(db: SQLiteDatabase) -> None:
    async def read_after_first() -> int | None:
        async with db.transaction() as tx:
            row = await tx.fetch_one(_by_id, {"id": 1})
        return None if row is None else int(row["value"])

    _, seen = await asyncio.gather(write(db, 1), read_after_first())
    assert seen == 1  # units run one after another inside the group, as separate transactions would


async def test_a_cancelled_waiter_leaves_the_others_commit_alone(db: SQLiteDatabase, path: Path) -> None:
    first = asyncio.create_task(write(db, 1))
    second = asyncio.create_task(write(db, 2))
    await asyncio.sleep(0)  # both are inside the group, waiting for its commit
    first.cancel()
    await asyncio.gather(first, second, return_exceptions=True)
    assert second.exception() is None
    assert committed_ids(path) == [1, 2]  # the cancelled caller's write was already in the group


async def test_a_unit_that_waits_inside_its_block_holds_the_commit_back(
    db: SQLiteDatabase, path: Path
) -> None:
    release = asyncio.Event()

    async def slow() -> None:
        async with db.transaction() as tx:
            await tx.execute(_insert, {"id": 2, "value": 2})
            await release.wait()  # a real suspension inside the block

    fast = asyncio.create_task(write(db, 1))
    slow_task = asyncio.create_task(slow())
    for _ in range(5):
        await asyncio.sleep(0)
    assert committed_ids(path) == []  # the group may not commit half of the slow unit
    release.set()
    await asyncio.gather(fast, slow_task)
    assert committed_ids(path) == [1, 2]


async def test_statements_put_off_to_the_commit_run_after_every_unit_of_the_group(
    db: SQLiteDatabase, path: Path
) -> None:
    async def change_first() -> None:
        async with db.transaction() as tx:
            await tx.execute(_set_value, {"id": 1, "value": 100})

    await asyncio.gather(write_logged(db, 1), write_logged(db, 2), change_first())
    assert logged(path) == [(1, 100), (2, 2)]  # item 1 as the last unit of the group left it


async def test_an_undone_units_put_off_statements_never_run(db: SQLiteDatabase, path: Path) -> None:
    results = await asyncio.gather(
        write_logged(db, 1), write_logged(db, 2, fail=True), write_logged(db, 3), return_exceptions=True
    )
    assert [type(result) for result in results] == [type(None), ValueError, type(None)]
    assert logged(path) == [(1, 1), (3, 3)]
    await write_logged(db, 4)  # nothing of the undone unit is left over for the next group
    assert logged(path) == [(1, 1), (3, 3), (4, 4)]


async def test_a_put_off_statement_that_fails_fails_its_whole_group(db: SQLiteDatabase, path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO log (id, value) VALUES (2, 0)")  # item 2's log row will collide
    results = await asyncio.gather(write_logged(db, 1), write_logged(db, 2), return_exceptions=True)
    assert [type(result) for result in results] == [sqlite3.IntegrityError, sqlite3.IntegrityError]
    assert committed_ids(path) == []
    await write_logged(db, 3)
    assert committed_ids(path) == [3] and logged(path) == [(2, 0), (3, 3)]


async def test_in_memory_databases_run_put_off_statements_at_each_commit() -> None:
    database = SQLiteDatabase(":memory:")
    try:
        conn = database.raw_connection()
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, value INTEGER)")
        conn.execute("CREATE TABLE log (id INTEGER PRIMARY KEY, value INTEGER)")
        results = await asyncio.gather(
            write_logged(database, 1), write_logged(database, 2, fail=True), return_exceptions=True
        )
        assert [type(result) for result in results] == [type(None), ValueError]
        assert conn.execute("SELECT id, value FROM log").fetchall() == [(1, 1)]
    finally:
        await database.close()


async def test_in_memory_databases_commit_each_transaction() -> None:
    database = SQLiteDatabase(":memory:")
    try:
        database.raw_connection().execute("CREATE TABLE items (id INTEGER PRIMARY KEY, value INTEGER)")
        generation = database.generation
        await asyncio.gather(write(database, 1), write(database, 2))
        assert database.generation == generation + 2
        assert await database.fetch_one(_by_id, {"id": 2}) == {"value": 2}
    finally:
        await database.close()
