"""Event log positions follow commit order, so a reader paging by position passes over nothing: two
transactions that append events and commit in the other order than they appended (PostgreSQL runs
them side by side) are both read, each once."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncIterator

import pytest
from tests.support.server import PG_ENV, fresh_database_url

from roost.storage.db import Database, open_database
from roost.storage.events import EventStore, append_event
from roost.storage.migrate import upgrade

pytestmark = pytest.mark.skipif(
    not os.environ.get(PG_ENV),
    reason="PostgreSQL only: SQLite's writers are serial, a second transaction cannot commit while "
    "the first is open",
)


@pytest.fixture()
async def db() -> AsyncIterator[Database]:
    url = fresh_database_url("event-order")
    upgrade(url)
    database = await open_database(url)
    yield database
    await database.close()


async def append(db: Database, event_id: int, hold: asyncio.Event | None = None) -> None:
    async with db.transaction() as tx:
        await append_event(
            tx, event_id=event_id, kind="post.create", created_at=0, user_id=None, object_id=None, payload={}
        )
        if hold is not None:
            await hold.wait()  # the transaction stays open, its event appended


async def test_a_reader_between_two_commits_passes_over_neither_event(db: Database) -> None:
    store = EventStore(db)
    start = max([int(e["position"]) for e in await store.after(0, 10_000)], default=0)
    first, second = random.getrandbits(62), random.getrandbits(62)
    release = asyncio.Event()
    slow = asyncio.create_task(append(db, first, hold=release))
    for _ in range(20):  # let the slow transaction reach its wait
        await asyncio.sleep(0)
    await append(db, second)  # begun after the slow one, committed before it
    assert not slow.done()
    read_between = await store.after(start)
    cursor = int(read_between[-1]["position"]) if read_between else start
    release.set()
    await slow
    read_after = await store.after(cursor)
    assert [int(e["id"]) for e in read_between + read_after] == [second, first]
