"""Write-ahead log checkpoints run on a thread of their own, never inside a commit on the event loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, Table, insert

from roost.storage.checkpoints import WalCheckpointer
from roost.storage.db import SQLiteDatabase

_items = Table("items", MetaData(), Column("id", Integer, primary_key=True))


def in_database_file(path: Path) -> list[int]:
    """The rows in the database file itself: `immutable` makes SQLite ignore the log."""
    with sqlite3.connect(f"file:{path}?immutable=1", uri=True) as conn:
        return [row[0] for row in conn.execute("SELECT id FROM items ORDER BY id")]


async def wait_for_checkpoints(db: SQLiteDatabase, count: int) -> None:
    deadline = time.monotonic() + 10
    while db.checkpoints() < count:
        assert time.monotonic() < deadline, "no checkpoint within 10 s of a commit"
        await asyncio.sleep(0.01)


async def test_commits_reach_the_database_file_through_the_checkpoint_thread(tmp_path: Path) -> None:
    path = tmp_path / "wal.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY)")
    conn.close()  # the last connection's close checkpoints: the table is in the file
    db = SQLiteDatabase(str(path))
    try:
        assert db.raw_connection().execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        async with db.transaction() as tx:
            await tx.execute(insert(_items).values(id=1))
        assert in_database_file(path) == []  # the commit left it in the log
        await wait_for_checkpoints(db, 1)
        assert in_database_file(path) == [1]
    finally:
        await db.close()


async def test_closing_stops_the_checkpoint_thread(tmp_path: Path) -> None:
    db = SQLiteDatabase(str(tmp_path / "wal.db"))
    threads = db.background_threads()
    assert [thread.is_alive() for thread in threads] == [True]
    await db.close()
    assert [thread.is_alive() for thread in threads] == [False]


async def test_an_in_memory_database_has_no_checkpoint_thread() -> None:
    db = SQLiteDatabase(":memory:")
    assert db.background_threads() == []
    await db.close()


class _CloseArrivesAtTheClear(threading.Event):
    """The "committed" flag, with close() arriving just before the thread clears it."""

    def __init__(self, stopping: threading.Event) -> None:
        super().__init__()
        self._stopping = stopping

    def clear(self) -> None:
        self._stopping.set()  # what close() does, in its order
        self.set()
        super().clear()


def test_closing_never_waits_on_a_lost_wake_up(tmp_path: Path) -> None:
    """close() sets "stopping", then "committed"; when that lands just before the thread clears
    "committed", the thread must still stop (it once waited for a commit that never came, and the
    server's shutdown hung on the join)."""
    path = tmp_path / "wal.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    checkpointer = WalCheckpointer(str(path), every_s=0)
    first = checkpointer._committed
    checkpointer._committed = _CloseArrivesAtTheClear(checkpointer._stopping)
    first.set()  # a commit wakes the thread; it reads the flag anew on its next turn
    checkpointer.thread.join(timeout=10)
    assert not checkpointer.thread.is_alive(), "the thread missed close() and waits for ever"
