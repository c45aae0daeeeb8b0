"""The event log: appended in the same transaction as the write that caused it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, insert, select, text

from roost.core import jsonio
from roost.storage.db import Database, Executor, Row
from roost.storage.schema import events

_append = insert(events).values(
    id=bindparam("id"),
    kind=bindparam("kind"),
    created_at=bindparam("created_at"),
    user_id=bindparam("user_id"),
    object_id=bindparam("object_id"),
    payload=bindparam("payload"),
)
# PostgreSQL hands out positions from a sequence at INSERT, yet readers (delivery, streams, activity)
# page through the log by position: had two transactions committed in the other order, a reader
# between the two commits would pass over the later one's event for good. There, a transaction's
# events are written at its very end, under a transaction-scoped advisory lock taken last of all its
# locks (so it cannot deadlock), and positions follow commit order. SQLite's writers are serial.
EVENT_ORDER_LOCK_KEY = 0x726F6F7375
_event_order_lock = text("SELECT pg_advisory_xact_lock(:key)")
_after = (
    select(events)
    .where(events.c.position > bindparam("position"))
    .order_by(events.c.position)
    .limit(bindparam("limit"))
)


async def append_event(
    tx: Executor,
    *,
    event_id: int,
    kind: str,
    created_at: int,
    user_id: int | None,
    object_id: int | None,
    payload: dict[str, Any],
) -> None:
    row = {
        "id": event_id,
        "kind": kind,
        "created_at": created_at,
        "user_id": user_id,
        "object_id": object_id,
        "payload": jsonio.dumps(payload).decode(),
    }
    if tx.dialect_name == "postgresql":
        tx.execute_at_commit(_event_order_lock, {"key": EVENT_ORDER_LOCK_KEY})
        tx.execute_at_commit(_append, row)
    else:
        await tx.execute(_append, row)


class EventStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def after(self, position: int, limit: int = 500) -> list[Row]:
        return await self._db.fetch_all(_after, {"position": position, "limit": limit})
