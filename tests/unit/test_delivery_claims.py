"""Claiming deliveries: a sending round writes only the rows it will send.

The dispatcher looks at the oldest due rows, picks those its in-flight caps allow, and claims just
those; the others stay pending and unwritten (before, every due row was claimed and most given back
when a webhook was at its cap: two writes per row per round for nothing).
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.server import fresh_database_url

from roost.core.records import Row
from roost.storage.db import SQLiteDatabase, open_database
from roost.storage.deliveries import Claim, DeliveryStore
from roost.storage.migrate import upgrade


def _row(position: int, webhook_id: int) -> dict[str, Any]:
    return {
        "webhook_id": webhook_id,
        "event_position": position,
        "event_id": 1000 + position,
        "for_user_id": 7,
        "route": "",
        "body": f'{{"n":{position}}}',
        "state": "pending",
        "attempts": 0,
        "next_attempt_at": position,
        "last_status": None,
        "last_latency_ms": None,
        "delivered_at": None,
        "created_at": position,
    }


def _first(count: int) -> Any:
    def pick(due: list[Row]) -> list[Row]:
        return due[:count]

    return pick


def test_a_round_claims_only_the_rows_it_picks() -> None:
    url = fresh_database_url("claims")
    upgrade(url)

    async def scenario() -> None:
        db = await open_database(url)
        try:
            store = DeliveryStore(db)
            rows = [_row(position, 1 + position % 2) for position in range(1, 41)]
            assert await store.enqueue(rows, 0, 40) == []
            picked: list[list[int]] = []

            def pick(due: list[Row]) -> list[Row]:
                picked.append([int(row["webhook_id"]) for row in due])
                return [row for row in due if row["webhook_id"] == 1][:5]

            claimed = await store.settle([], Claim("me", 10_000, 99_999, 30, pick))
            assert len(picked[0]) == 30  # it looked at the 30 oldest due rows
            assert [row["event_position"] for row in claimed] == [2, 4, 6, 8, 10]
            assert all(row["state"] == "sending" and row["claimed_by"] == "me" for row in claimed)
            assert all(row["body"] == f'{{"n":{row["event_position"]}}}' for row in claimed)
            states = await store.counts_by_state()
            assert states == {"pending": 35, "sending": 5}
            if isinstance(db, SQLiteDatabase):
                # Nothing but the five chosen rows was written (no claim and give-back of the others).
                before = db.raw_connection().total_changes
                await store.settle([], Claim("me", 10_000, 99_999, 30, _first(3)))
                assert db.raw_connection().total_changes - before == 3
        finally:
            await db.close()

    asyncio.run(scenario())


def test_the_collecting_round_claims_its_fresh_rows_in_the_same_transaction() -> None:
    url = fresh_database_url("claims")
    upgrade(url)

    async def scenario() -> None:
        db = await open_database(url)
        try:
            store = DeliveryStore(db)
            rows = [_row(position, 1) for position in range(1, 11)]
            claimed = await store.enqueue(rows, 0, 10, Claim("me", 10_000, 99_999, 256, _first(4)))
            assert claimed is not None
            assert [row["event_position"] for row in claimed] == [1, 2, 3, 4]
            assert await store.counts_by_state() == {"pending": 6, "sending": 4}
            assert await store.cursor() == 10
            # The cursor moved under a second mover: nothing written, nothing claimed.
            assert (
                await store.enqueue([_row(11, 1)], 0, 11, Claim("me", 10_000, 99_999, 256, _first(4))) is None
            )
            assert await store.counts_by_state() == {"pending": 6, "sending": 4}
        finally:
            await db.close()

    asyncio.run(scenario())
