"""Replay job storage: the jobs, and the delivery rows a job reads (a webhook's past deliveries) and
writes (their copies, routed `replay:<job id>:<original delivery id>`, and the final status message,
routed `replay:<job id>:status`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, func, insert, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import deliveries, events, replay_jobs
from roost.storage.statements import insert_all

REPLAY_PREFIX = "replay:"

_insert_job = insert_all(replay_jobs)
_running_of_webhook = (
    select(replay_jobs.c.id)
    .where(replay_jobs.c.webhook_id == bindparam("webhook_id"), replay_jobs.c.state == "running")
    .limit(1)
)
_running = select(replay_jobs).where(replay_jobs.c.state == "running").order_by(replay_jobs.c.id).limit(50)
_job = select(replay_jobs).where(replay_jobs.c.id == bindparam("id"))
_finish = (
    update(replay_jobs)
    .where(replay_jobs.c.id == bindparam("id"), replay_jobs.c.state == "running")
    .values(state=bindparam("state"), finished_at=bindparam("finished_at"))
)

# The webhook's own deliveries (never earlier replays) whose event falls in [from, to), delivered or
# at least attempted, oldest event first.
_sources = (
    select(deliveries)
    .select_from(deliveries.join(events, events.c.position == deliveries.c.event_position))
    .where(
        deliveries.c.webhook_id == bindparam("webhook_id"),
        ~deliveries.c.route.like(REPLAY_PREFIX + "%"),
        or_(deliveries.c.state == "delivered", deliveries.c.attempts > 0),
        events.c.created_at >= bindparam("from_ms"),
        events.c.created_at < bindparam("to_ms"),
    )
    .order_by(events.c.created_at, deliveries.c.id)
)
# The copies of one job, by state (the status message excluded).
_job_states = (
    select(deliveries.c.state, func.count().label("n"))
    .where(
        deliveries.c.webhook_id == bindparam("webhook_id"),
        deliveries.c.route.like(bindparam("prefix")),
        deliveries.c.route != bindparam("status_route"),
    )
    .group_by(deliveries.c.state)
)
_delivery_columns = [c for c in deliveries.columns if c.name not in ("id", "claimed_by", "claim_expires_at")]
_insert_delivery = insert(deliveries).values({c.name: bindparam(c.name) for c in _delivery_columns})


def copy_route(job_id: int, delivery_id: int) -> str:
    return f"{REPLAY_PREFIX}{job_id}:{delivery_id}"


def status_route(job_id: int) -> str:
    return f"{REPLAY_PREFIX}{job_id}:status"


class ReplayStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def running(self) -> list[Row]:
        return await self._db.fetch_all(_running)

    async def get(self, job_id: int) -> Row | None:
        return await self._db.fetch_one(_job, {"id": job_id})

    async def copy_states(self, job_id: int, webhook_id: int) -> dict[str, int]:
        """How many of the job's copies are in each delivery state."""
        return await _copy_states(self._db, job_id, webhook_id)

    async def copy(self, job: Row, now_ms: int) -> int:
        """Record the job's copies (once: a job with copies is left alone). Answers how many exist."""
        job_id, webhook_id = int(job["id"]), int(job["webhook_id"])
        async with self._db.transaction() as tx:
            existing = sum((await _copy_states(tx, job_id, webhook_id)).values())
            if existing:
                return existing
            params = {"webhook_id": webhook_id, "from_ms": job["from_ms"], "to_ms": job["to_ms"]}
            sources = await tx.fetch_all(_sources, params)
            rows = [
                _delivery(
                    source,
                    route=copy_route(job_id, int(source["id"])),
                    body=str(source["body"]),
                    now_ms=now_ms,
                )
                for source in sources
            ]
            if rows:
                await tx.execute_many(_insert_delivery, rows)
            return len(rows)

    async def finish(self, job: Row, state: str, status_body: str, now_ms: int) -> None:
        """Close the job and queue its status message, atomically."""
        job_id = int(job["id"])
        async with self._db.transaction() as tx:
            if not await tx.execute(_finish, {"id": job_id, "state": state, "finished_at": now_ms}):
                return  # finished by another worker meanwhile
            row = _delivery(
                {"webhook_id": job["webhook_id"], "event_position": 0, "event_id": job_id, "for_user_id": 0},
                route=status_route(job_id),
                body=status_body,
                now_ms=now_ms,
            )
            await tx.execute_many(_insert_delivery, [row])


async def running_of_webhook_tx(tx: Executor, webhook_id: int) -> int | None:
    value = await tx.fetch_value(_running_of_webhook, {"webhook_id": webhook_id})
    return int(value) if value is not None else None


async def insert_job(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_job, row)


async def _copy_states(executor: Executor | Database, job_id: int, webhook_id: int) -> dict[str, int]:
    params = {
        "webhook_id": webhook_id,
        "prefix": f"{REPLAY_PREFIX}{job_id}:%",
        "status_route": status_route(job_id),
    }
    rows: Sequence[Row] = await executor.fetch_all(_job_states, params)
    return {str(row["state"]): int(row["n"]) for row in rows}


def _delivery(source: Row | dict[str, Any], *, route: str, body: str, now_ms: int) -> dict[str, Any]:
    return {
        "webhook_id": int(source["webhook_id"]),
        "event_position": int(source["event_position"]),
        "event_id": int(source["event_id"]),
        "for_user_id": int(source["for_user_id"]),
        "route": route,
        "body": body,
        "state": "pending",
        "attempts": 0,
        "next_attempt_at": now_ms,
        "last_status": None,
        "last_latency_ms": None,
        "delivered_at": None,
        "created_at": now_ms,
    }
