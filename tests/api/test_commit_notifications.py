"""PostgreSQL: a commit in one process wakes the commit listeners of another at once (NOTIFY), and a
process is not woken twice by its own commits."""

from __future__ import annotations

import asyncio
import os

import pytest
from sqlalchemy import bindparam, select
from tests.support.server import PG_ENV, fresh_database_url

from roost.storage.db import PostgresDatabase, open_database
from roost.storage.migrate import upgrade
from roost.storage.schema import settings
from roost.storage.statements import insert_all

pytestmark = pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"needs PostgreSQL ({PG_ENV} is not set)")


async def _exercise(url: str) -> tuple[int, int]:
    writer = await open_database(url)
    reader = await open_database(url)
    assert isinstance(writer, PostgresDatabase) and isinstance(reader, PostgresDatabase)
    woken = asyncio.Event()
    own = []
    reader.commit_listeners.append(woken.set)
    writer.commit_listeners.append(lambda: own.append(1))
    try:
        async with writer.transaction() as tx:
            await tx.execute(insert_all(settings), {"key": "notify-test", "value": "1"})
        await asyncio.wait_for(woken.wait(), timeout=5)
        await asyncio.sleep(0.3)  # let a (wrong) echo of the writer's own NOTIFY arrive, if any
        stored = await reader.fetch_value(
            select(settings.c.value).where(settings.c.key == bindparam("key")), {"key": "notify-test"}
        )
        assert stored == "1"
        return len(own), reader.generation
    finally:
        await writer.close()
        await reader.close()


def test_another_process_commit_wakes_listeners() -> None:
    url = fresh_database_url("notify")
    upgrade(url)
    own_wakes, reader_generation = asyncio.run(_exercise(url))
    assert own_wakes == 1  # its own commit once, not again by its own notification
    assert reader_generation >= 1
