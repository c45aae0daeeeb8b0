"""Scheduled broadcasts: the statements behind `/2/broadcasts/scheduled*`, the chat's live check and
the roost clock's moves (Scheduled → Running → Ended). Every function runs in the caller's
transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, bindparam, delete, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema_broadcasts import broadcasts
from roost.storage.statements import insert_all

# The reads run in a transaction or on the database alone (a listing, the clock's due scan).
Reader = Executor | Database

_insert = insert_all(broadcasts)
_one = select(broadcasts).where(broadcasts.c.id == bindparam("id"))
# Every column but the id, rewritten from the whole row (one statement, compiled once).
_update = (
    update(broadcasts)
    .where(broadcasts.c.id == bindparam("broadcast_id"))
    .values({column.name: bindparam(column.name) for column in broadcasts.columns if column.name != "id"})
)
# A move of the roost clock's, made only from the state it was read in: two processes settling the
# same broadcast move it (and log its event) once.
_move = (
    update(broadcasts)
    .where(broadcasts.c.id == bindparam("broadcast_id"), broadcasts.c.state == bindparam("from_state"))
    .values(
        state=bindparam("to_state"),
        updated_at=bindparam("at"),
        started_at=bindparam("started_at"),
        ended_at=bindparam("ended_at"),
    )
)
_delete = delete(broadcasts).where(broadcasts.c.id == bindparam("id"))
_owned = (
    select(broadcasts)
    .where(
        broadcasts.c.user_id == bindparam("user_id"),
        broadcasts.c.scheduled_start >= bindparam("oldest"),
        broadcasts.c.scheduled_start <= bindparam("newest"),
        or_(
            broadcasts.c.scheduled_start > bindparam("after_start"),
            and_(
                broadcasts.c.scheduled_start == bindparam("after_start"),
                broadcasts.c.scheduled_id > bindparam("after_id"),
            ),
        ),
    )
    .order_by(broadcasts.c.scheduled_start, broadcasts.c.scheduled_id)
    .limit(bindparam("limit"))
)
_later_in_series = (
    select(broadcasts)
    .where(
        broadcasts.c.series_id == bindparam("series_id"),
        broadcasts.c.scheduled_start > bindparam("after"),
        broadcasts.c.state == "Scheduled",
    )
    .order_by(broadcasts.c.scheduled_start)
)
# Due to publish (automatic ones whose start has come) and due to end (a scheduled end reached,
# running or never published); `limit` bounds one step of the clock.
_due_to_start = (
    select(broadcasts)
    .where(
        broadcasts.c.state == "Scheduled",
        broadcasts.c.manual_publish == 0,
        broadcasts.c.scheduled_start <= bindparam("now"),
    )
    .order_by(broadcasts.c.scheduled_start, broadcasts.c.id)
    .limit(bindparam("limit"))
)
_due_to_end = (
    select(broadcasts)
    .where(
        broadcasts.c.state != "Ended",
        broadcasts.c.scheduled_end.is_not(None),
        broadcasts.c.scheduled_end <= bindparam("now"),
    )
    .order_by(broadcasts.c.scheduled_end, broadcasts.c.id)
    .limit(bindparam("limit"))
)


async def insert(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert, row)


async def get(tx: Executor, broadcast_id: str) -> Row | None:
    return await tx.fetch_one(_one, {"id": broadcast_id})


async def write(tx: Executor, row: dict[str, Any]) -> None:
    """Write back a whole row (read, changed, written in one transaction)."""
    values = {name: value for name, value in row.items() if name != "id"}
    await tx.execute(_update, {**values, "broadcast_id": row["id"]})


async def move(tx: Executor, row: dict[str, Any], from_state: str) -> bool:
    """Write `row`'s state and times if the stored state is still `from_state`."""
    params = {
        "broadcast_id": row["id"],
        "from_state": from_state,
        "to_state": row["state"],
        "at": row["updated_at"],
        "started_at": row["started_at"],
        "ended_at": row["ended_at"],
    }
    return await tx.execute(_move, params) == 1


async def remove(tx: Executor, broadcast_id: str) -> None:
    await tx.execute(_delete, {"id": broadcast_id})


async def owned(
    tx: Reader, user_id: int, oldest: int, newest: int, after: tuple[int, int], limit: int
) -> list[Row]:
    """A user's broadcasts starting in [oldest, newest], by start then scheduler id, after `after`."""
    params = {
        "user_id": user_id,
        "oldest": oldest,
        "newest": newest,
        "after_start": after[0],
        "after_id": after[1],
        "limit": limit,
    }
    return await tx.fetch_all(_owned, params)


async def later_in_series(tx: Executor, series_id: int, after: int) -> list[Row]:
    return await tx.fetch_all(_later_in_series, {"series_id": series_id, "after": after})


async def due_to_start(tx: Reader, now: int, limit: int) -> list[Row]:
    return await tx.fetch_all(_due_to_start, {"now": now, "limit": limit})


async def due_to_end(tx: Reader, now: int, limit: int) -> list[Row]:
    return await tx.fetch_all(_due_to_end, {"now": now, "limit": limit})
