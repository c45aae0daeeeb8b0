"""The event log: appended in the same transaction as the write that caused it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, insert, select

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
    await tx.execute(
        _append,
        {
            "id": event_id,
            "kind": kind,
            "created_at": created_at,
            "user_id": user_id,
            "object_id": object_id,
            "payload": jsonio.dumps(payload).decode(),
        },
    )


class EventStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def after(self, position: int, limit: int = 500) -> list[Row]:
        return await self._db.fetch_all(_after, {"position": position, "limit": limit})
