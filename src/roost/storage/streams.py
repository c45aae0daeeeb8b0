"""Statements for streaming connections (history rows behind `GET /2/connections`) and the post usage
ledger (usage caps, `GET /2/usage/tweets`)."""

from __future__ import annotations

from sqlalchemy import and_, bindparam, func, insert, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema_streams import stream_connections as conns
from roost.storage.schema_streams import usage_records as usage
from roost.storage.statements import insert_all

LOST = "connection_lost"  # the serving process stopped without closing the connection
_open = insert_all(conns)
_close = (
    update(conns)
    .where(conns.c.id == bindparam("id"), conns.c.disconnected_at.is_(None))
    .values(disconnected_at=bindparam("disconnected_at"), disconnect_reason=bindparam("reason"))
)
_touch = update(conns).where(conns.c.id == bindparam("id")).values(seen_at=bindparam("seen_at"))
_live = and_(conns.c.disconnected_at.is_(None), conns.c.seen_at >= bindparam("fresh_since"))
_active_of_app = (
    select(conns)
    .where(conns.c.app_id == bindparam("app_id"), _live)
    .order_by(conns.c.connected_at.desc(), conns.c.id)
)
# Newest first; (connected_at, id) is the page cursor, so rows closed meanwhile never repeat a row.
# A row nobody closed whose process stopped sending heartbeats is over too.
_inactive_of_app = (
    select(conns)
    .where(
        conns.c.app_id == bindparam("app_id"),
        or_(
            conns.c.disconnected_at.is_not(None),
            conns.c.seen_at.is_(None),
            conns.c.seen_at < bindparam("fresh_since"),
        ),
        or_(
            conns.c.connected_at < bindparam("before_at"),
            and_(conns.c.connected_at == bindparam("before_at"), conns.c.id > bindparam("after_id")),
        ),
    )
    .order_by(conns.c.connected_at.desc(), conns.c.id)
    .limit(bindparam("limit"))
)
_record = insert(usage).values(
    project_id=bindparam("project_id"),
    app_id=bindparam("app_id"),
    day_ms=bindparam("day_ms"),
    posts=bindparam("posts"),
)
_project_total = select(func.coalesce(func.sum(usage.c.posts), 0)).where(
    usage.c.project_id == bindparam("project_id"), usage.c.day_ms >= bindparam("since")
)
_daily_by_app = (
    select(usage.c.app_id, usage.c.day_ms, func.sum(usage.c.posts).label("posts"))
    .where(usage.c.project_id == bindparam("project_id"), usage.c.day_ms >= bindparam("since"))
    .group_by(usage.c.app_id, usage.c.day_ms)
    .order_by(usage.c.app_id, usage.c.day_ms)
)


class StreamStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    # ---- connections ----------------------------------------------------------------------------

    async def open_connection(
        self,
        uuid: str,
        app_id: int,
        project_id: int,
        endpoint: str,
        partition: int | None,
        at_ms: int,
        seen_ms: int,
        client_ip: str | None = None,
    ) -> None:
        row = {
            "id": uuid,
            "app_id": app_id,
            "project_id": project_id,
            "endpoint": endpoint,
            "partition": partition,
            "connected_at": at_ms,
            "disconnected_at": None,
            "disconnect_reason": None,
            "seen_at": seen_ms,
            "client_ip": client_ip,
        }
        async with self._db.transaction() as tx:
            await tx.execute(_open, row)

    async def close_connection(self, uuid: str, at_ms: int, reason: str) -> None:
        async with self._db.transaction() as tx:
            await self.close_in(tx, uuid, at_ms, reason)

    @staticmethod
    async def close_in(tx: Executor, uuid: str, at_ms: int, reason: str) -> None:
        await tx.execute(_close, {"id": uuid, "disconnected_at": at_ms, "reason": reason})

    async def touch(self, uuid: str, seen_ms: int) -> None:
        async with self._db.transaction() as tx:
            await tx.execute(_touch, {"id": uuid, "seen_at": seen_ms})

    async def open_count(
        self, app_id: int, endpoint: str, partition: int | None, fresh_since: int, ignore: set[str]
    ) -> int:
        """Open connections of the app to one endpoint (and partition), in every process, leaving out
        `ignore` (connections this process has ended but not yet closed in the table)."""
        rows = await self.active_of_app(app_id, fresh_since)
        return sum(
            1
            for row in rows
            if (row["endpoint"], row["partition"]) == (endpoint, partition) and row["id"] not in ignore
        )

    async def active_of_app(self, app_id: int, fresh_since: int) -> list[Row]:
        """Open connections of the app in every process sharing the database, newest first."""
        return await self._db.fetch_all(_active_of_app, {"app_id": app_id, "fresh_since": fresh_since})

    async def inactive_of_app(
        self, app_id: int, limit: int, fresh_since: int, before_at: int = 1 << 62, after_id: str = ""
    ) -> list[Row]:
        """Ended connections after the cursor (connected_at, id), newest first. A row whose process
        went away shows its last heartbeat as its end."""
        params = {
            "app_id": app_id,
            "limit": limit,
            "before_at": before_at,
            "after_id": after_id,
            "fresh_since": fresh_since,
        }
        rows = await self._db.fetch_all(_inactive_of_app, params)
        for row in rows:
            if row["disconnected_at"] is None:
                row["disconnected_at"] = row["seen_at"] or row["connected_at"]
                row["disconnect_reason"] = LOST
        return rows

    # ---- usage ----------------------------------------------------------------------------------

    async def record_usage(self, project_id: int, app_id: int, day_ms: int, posts: int) -> None:
        async with self._db.transaction() as tx:
            await tx.execute(
                _record, {"project_id": project_id, "app_id": app_id, "day_ms": day_ms, "posts": posts}
            )

    async def project_total(self, project_id: int, since_ms: int) -> int:
        value = await self._db.fetch_value(_project_total, {"project_id": project_id, "since": since_ms})
        return int(value or 0)

    async def daily_by_app(self, project_id: int, since_ms: int) -> list[tuple[int, int, int]]:
        rows = await self._db.fetch_all(_daily_by_app, {"project_id": project_id, "since": since_ms})
        return [(int(r["app_id"]), int(r["day_ms"]), int(r["posts"])) for r in rows]
