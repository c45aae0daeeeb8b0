"""PostgreSQL: a commit in one process wakes the commit listeners of another at once (NOTIFY), and a
process is not woken twice by its own commits."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from sqlalchemy import bindparam, select
from tests.support.server import PG_ENV, fresh_database_url

from roost.storage.db import PostgresDatabase
from roost.storage.migrate import upgrade
from roost.storage.schema import settings
from roost.storage.statements import insert_all

pytestmark = pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"needs PostgreSQL ({PG_ENV} is not set)")


class RecordingDatabase(PostgresDatabase):
    """Counts the commit notifications its listening connection hands over, its own included, once
    each has been dealt with."""

    notifications = 0

    def _on_notification(self, connection: Any, pid: int, channel: str, payload: str) -> None:
        super()._on_notification(connection, pid, channel, payload)
        self.notifications += 1


async def _open(url: str) -> RecordingDatabase:
    database = await RecordingDatabase.connect(url)
    assert isinstance(database, RecordingDatabase)
    await database.listen()
    return database


async def _commit(database: PostgresDatabase, key: str) -> None:
    async with database.transaction() as tx:
        await tx.execute(insert_all(settings), {"key": key, "value": "1"})


async def _exercise(url: str) -> tuple[int, int]:
    writer, reader = await _open(url), await _open(url)
    woken = asyncio.Event()
    own = []
    reader.commit_listeners.append(woken.set)
    writer.commit_listeners.append(lambda: own.append(1))
    try:
        await _commit(writer, "notify-test")
        await asyncio.wait_for(woken.wait(), timeout=5)
        stored = await reader.fetch_value(
            select(settings.c.value).where(settings.c.key == bindparam("key")), {"key": "notify-test"}
        )
        assert stored == "1"
        # A later commit by the reader: PostgreSQL delivers notifications in commit order, so once the
        # writer has dealt with this one, it has dealt with the echo of its own commit too.
        await _commit(reader, "notify-marker")
        deadline = asyncio.get_running_loop().time() + 5
        while writer.notifications < 2:
            assert asyncio.get_running_loop().time() < deadline, (
                "the reader's commit never reached the writer"
            )
            await asyncio.sleep(0.01)
        return len(own), reader.generation
    finally:
        await writer.close()
        await reader.close()


def test_another_process_commit_wakes_listeners() -> None:
    url = fresh_database_url("notify")
    upgrade(url)
    own_wakes, reader_generation = asyncio.run(_exercise(url))
    # Its own commit once (not again by its own notification), then the reader's commit.
    assert own_wakes == 2
    assert reader_generation >= 1
