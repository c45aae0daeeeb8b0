"""Spaces started and ended through the control plane, with their `spaces.start` and `spaces.end` events."""

from __future__ import annotations

from roost.core import errors
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator, TokenSource
from roost.core.records import Row
from roost.storage import social as social_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor
from roost.storage.events import append_event

_SPACE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


class Spaces:
    def __init__(self, db: Database, clock: Clock, ids: SnowflakeGenerator, tokens: TokenSource) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._tokens = tokens

    async def start(self, creator_id: int, title: str | None) -> Row:
        async with self._db.transaction() as tx:
            if await user_rows.get_user_tx(tx, creator_id) is None:
                raise errors.invalid_body("creator_id must name an existing user")
            now = self._clock.now_ms()
            space_id = "1" + self._tokens.token(12, _SPACE_ALPHABET)
            row = {
                "id": space_id,
                "creator_id": creator_id,
                "title": title,
                "state": "live",
                "created_at": now,
                "started_at": now,
                "ended_at": None,
            }
            await social_rows.insert_space(tx, row)
            await self._event(tx, "spaces.start", row)
        return row

    async def end(self, space_id: str) -> tuple[Row, bool]:
        """End a live space; (row, False) when it had already ended (no second event)."""
        async with self._db.transaction() as tx:
            row = await social_rows.get_space_tx(tx, space_id)
            if row is None:
                raise errors.not_found_problem(f"Could not find space with id: [{space_id}].")
            now = self._clock.now_ms()
            if not await social_rows.end_space(tx, space_id, now):
                return row, False
            await self._event(tx, "spaces.end", row)
            return {**row, "state": "ended", "ended_at": now}, True

    async def _event(self, tx: Executor, kind: str, row: Row) -> None:
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind=kind,
            created_at=self._clock.now_ms(),
            user_id=row["creator_id"],
            object_id=None,  # space ids are not numeric; the payload carries it
            payload={"space_id": row["id"], "creator_id": str(row["creator_id"])},
        )
