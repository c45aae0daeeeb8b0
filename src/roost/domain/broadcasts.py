"""Scheduled live-video broadcasts (`/2/broadcasts/scheduled*`) and their chat, with the events the
activity API delivers (`broadcast.start`, `broadcast.end`, `broadcast.chat`).

A broadcast is `Scheduled` when made. At its scheduled start the scheduler publishes it (`Running`,
`broadcast.start`) unless it was made with `manual_publish`, which waits for `POST …/live`; at its
scheduled end it ends (`Ended`, `broadcast.end`; a schedule never published ends without an event).
Moves follow the roost clock: `BroadcastClock` makes the due ones every second and at once after the
clock moves, and every operation settles the broadcast it reads first, so an answer never shows a
state the clock has passed. The control plane ends a running broadcast early
(`POST /_roost/broadcasts/{id}/end`), as a broadcaster stopping the stream would.

Only the owner reads or changes a schedule (anyone else: 403); chat goes to running broadcasts only,
from any user (400 when the broadcast is unknown or not live, as the platform documents).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from roost.core import errors
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator, TokenSource
from roost.core.pagination import PageToken, encode_key
from roost.core.records import Row
from roost.domain.broadcast_bodies import FREQUENCY_MS, Schedule, chat_text, create_schedule, scheduled_view
from roost.domain.broadcast_bodies import update_schedule as update_body
from roost.domain.periodic import PeriodicWorker
from roost.storage import broadcasts as rows
from roost.storage.db import Database, Executor
from roost.storage.events import append_event

log = logging.getLogger("roost.broadcasts")

BROADCAST_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
SCHEDULED, RUNNING, ENDED = "Scheduled", "Running", "Ended"
# How far ahead a schedule may start, and the longest recurring series (roost's bounds: none is
# documented; they keep ids and times inside 64 bits and a create inside one small transaction).
SCHEDULE_AHEAD_MS = 366 * 86_400_000
# A start this far in the past is taken as "now" (the caller's clock and the server's differ a little);
# an automatic schedule then starts at once.
START_GRACE_MS = 60_000
MAX_REPEATS = 100
DUE_BATCH = 100
MAX_DUE_BATCHES = 20  # per step of the clock; the rest at the next step
NS_PER_MS = 1_000_000


def _not_found(broadcast_id: str) -> errors.ApiError:
    return errors.problem(
        "resource-not-found",
        "Not Found Error",
        f"Could not find broadcast with id: [{broadcast_id}].",
        404,
        resource_type="broadcast",
        parameter="id",
        resource_id=broadcast_id,
        value=broadcast_id,
    )


def _refused(message: str) -> errors.ApiError:
    return errors.invalid_request([{"parameters": {"id": []}, "message": message}])


class Broadcasts:
    def __init__(self, db: Database, clock: Clock, ids: SnowflakeGenerator, tokens: TokenSource) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._tokens = tokens

    # ---- the operations ---------------------------------------------------------------------------

    async def create(self, user_id: int, body: Any) -> dict[str, Any]:
        """A one-off schedule, or a recurring series (answered with its first occurrence)."""
        schedule = create_schedule(body)
        now = self._clock.now_ms()
        self._check_times(schedule, now)
        if schedule.repeats > MAX_REPEATS:
            raise errors.invalid_body(f"$.recurrence.repeats: must be less than or equal to {MAX_REPEATS}")
        series_id = self._ids.next_id() if schedule.frequency is not None else None
        step = FREQUENCY_MS[schedule.frequency] if schedule.frequency is not None else 0
        first: dict[str, Any] | None = None
        async with self._db.transaction() as tx:
            # The first occurrence and `repeats` more, one period apart.
            for index in range(schedule.repeats + 1 if series_id is not None else 1):
                row = {
                    **schedule.columns,
                    "id": "1" + self._tokens.token(12, BROADCAST_ALPHABET),
                    "scheduled_id": self._ids.next_id(),
                    "user_id": user_id,
                    "series_id": series_id,
                    "scheduled_start": schedule.start + index * step,
                    "scheduled_end": schedule.end + index * step,
                    "state": SCHEDULED,
                    "created_at": now,
                    "updated_at": now,
                    "started_at": None,
                    "ended_at": None,
                }
                row.setdefault("telecast_id", None)
                await rows.insert(tx, row)
                first = first or row
            assert first is not None
            settled = await self._settle(tx, first, now)
        return {"data": scheduled_view(settled)}

    async def get(self, user_id: int, broadcast_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._owned(tx, user_id, broadcast_id)
        return {"data": scheduled_view(row)}

    async def listing(
        self,
        user_id: int,
        max_results: int,
        oldest: int | None,
        newest: int | None,
        token: PageToken | None,
    ) -> dict[str, Any]:
        await self.settle_due()
        scope = f"broadcasts:{user_id}"
        after = (-1, -1)
        if token is not None:
            start, _, scheduled_id = token.key(scope).partition(":")
            after = (int(start), int(scheduled_id))
        found = await rows.owned(
            self._db,
            user_id,
            -1 if oldest is None else oldest,
            2**63 - 1 if newest is None else newest,
            after,
            max_results,
        )
        meta: dict[str, Any] = {"result_count": len(found)}
        if len(found) == max_results:
            last = found[-1]
            meta["next_token"] = encode_key(f"{last['scheduled_start']}:{last['scheduled_id']}", scope)
        if not found:
            return {"meta": meta}
        return {"data": [scheduled_view(row) for row in found], "meta": meta}

    async def update(self, user_id: int, broadcast_id: str, body: Any) -> dict[str, Any]:
        """Replace the schedule's fields (what the body leaves out is cleared) while it is scheduled."""
        schedule = update_body(body)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = dict(await self._owned(tx, user_id, broadcast_id))
            if schedule.scheduled_id != row["scheduled_id"]:
                raise errors.invalid_body(
                    f"$.scheduled_broadcast_id: [{schedule.scheduled_id}] is not the scheduler id of "
                    f"broadcast [{broadcast_id}]"
                )
            self._only_scheduled(row, "changed")
            self._check_times(schedule, now)
            moved_start = schedule.start - row["scheduled_start"]
            moved_end = schedule.end - (row["scheduled_end"] or row["scheduled_start"])
            row.update(schedule.columns)
            row.update(scheduled_start=schedule.start, scheduled_end=schedule.end, updated_at=now)
            await rows.write(tx, row)
            if schedule.roll_forward and row["series_id"] is not None:
                # The later occurrences of the series move with this one.
                for later in await rows.later_in_series(
                    tx, row["series_id"], row["scheduled_start"] - moved_start
                ):
                    if later["id"] == row["id"]:
                        continue
                    shifted = dict(later)
                    shifted["scheduled_start"] += moved_start
                    shifted["scheduled_end"] = (
                        later["scheduled_end"] or later["scheduled_start"]
                    ) + moved_end
                    shifted["updated_at"] = now
                    await rows.write(tx, shifted)
            settled = await self._settle(tx, row, now)
        return {"data": scheduled_view(settled)}

    async def delete(self, user_id: int, broadcast_id: str, roll_forward: bool) -> dict[str, Any]:
        """Remove a schedule that is not running (and with `roll_forward`, the later occurrences of
        its series)."""
        async with self._db.transaction() as tx:
            row = await self._owned(tx, user_id, broadcast_id)
            if row["state"] == RUNNING:
                raise _refused(f"Broadcast [{broadcast_id}] is live and cannot be deleted until it ends.")
            if roll_forward and row["series_id"] is not None:
                for later in await rows.later_in_series(tx, row["series_id"], row["scheduled_start"]):
                    await rows.remove(tx, later["id"])
            await rows.remove(tx, broadcast_id)
        return {"data": {"deleted": True}}

    async def go_live(self, user_id: int, broadcast_id: str) -> dict[str, Any]:
        """Publish a manually published schedule (`broadcast.start`)."""
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await self._owned(tx, user_id, broadcast_id)
            if not row["manual_publish"]:
                raise _refused(
                    f"Broadcast [{broadcast_id}] is published automatically at its scheduled start; "
                    "only a schedule with manual_publish can go live on request."
                )
            if row["state"] == RUNNING:
                raise _refused(f"Broadcast [{broadcast_id}] is already live.")
            self._only_scheduled(row, "published")
            live = await self._start(tx, row, now, now)
        return {"data": scheduled_view(live)}

    async def chat(self, user_id: int, broadcast_id: str, body: Any) -> dict[str, Any]:
        """A chat message from `user_id` to a running broadcast (`broadcast.chat` for its owner)."""
        text = chat_text(body)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await self._fresh(tx, broadcast_id)
            if row is None:
                raise _refused(f"Could not find broadcast with id: [{broadcast_id}].")
            if row["state"] != RUNNING:
                raise _refused(f"Broadcast [{broadcast_id}] is not live.")
            # The message id is its server time in nanoseconds; the low digits come from the id source
            # so two messages of one millisecond differ.
            message_id = now * NS_PER_MS + self._ids.next_id() % NS_PER_MS
            await self._event(
                tx,
                "broadcast.chat",
                row,
                now,
                {
                    "broadcast_id": row["id"],
                    "owner_id": str(row["user_id"]),
                    "author_id": str(user_id),
                    "message_id": str(message_id),
                    "text": text,
                },
            )
        return {"data": {"success": True, "timestamp": str(message_id)}}

    async def end(self, broadcast_id: str) -> tuple[Row, bool]:
        """The control plane's early end: a running broadcast ends (`broadcast.end`), a scheduled one is
        cancelled (no event: it never started); (row, False) when it had ended already."""
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await self._fresh(tx, broadcast_id)
            if row is None:
                raise _not_found(broadcast_id)
            if row["state"] == ENDED:
                return row, False
            return await self._finish(tx, row, now), True

    # ---- the clock --------------------------------------------------------------------------------

    async def settle_due(self) -> int:
        """Make the moves the clock has reached: publish automatic schedules whose start has come and
        end those whose scheduled end has passed. Returns how many moved."""
        moved = 0
        for _ in range(MAX_DUE_BATCHES):
            now = self._clock.now_ms()
            due = [
                *await rows.due_to_start(self._db, now, DUE_BATCH),
                *await rows.due_to_end(self._db, now, DUE_BATCH),
            ]
            if not due:
                break
            async with self._db.transaction() as tx:
                for stale in due:
                    row = await rows.get(tx, stale["id"])
                    if row is not None and row["state"] != ENDED:
                        settled = await self._settle(tx, row, now)
                        moved += settled["state"] != row["state"]
            if len(due) < DUE_BATCH:
                break
        return moved

    async def _settle(self, tx: Executor, row: Row, now: int) -> Row:
        """`row` after the moves the clock has made due (each logged with its event)."""
        current = dict(row)
        if (
            current["state"] == SCHEDULED
            and not current["manual_publish"]
            and current["scheduled_start"] <= now
        ):
            current = await self._start(tx, current, current["scheduled_start"], now)
        end = current["scheduled_end"]
        if current["state"] != ENDED and end is not None and end <= now:
            current = await self._finish(tx, current, now, at=end)
        return current

    async def _start(self, tx: Executor, row: Row, started_at: int, now: int) -> Row:
        live = {**row, "state": RUNNING, "started_at": started_at, "updated_at": now}
        if await rows.move(tx, live, SCHEDULED):
            await self._event(tx, "broadcast.start", live, now)
            return live
        return await rows.get(tx, row["id"]) or live

    async def _finish(self, tx: Executor, row: Row, now: int, at: int | None = None) -> Row:
        ended = {**row, "state": ENDED, "ended_at": now if at is None else at, "updated_at": now}
        if await rows.move(tx, ended, row["state"]):
            if row["state"] == RUNNING:
                await self._event(tx, "broadcast.end", ended, now)
            return ended
        return await rows.get(tx, row["id"]) or ended

    # ---- helpers ----------------------------------------------------------------------------------

    async def _fresh(self, tx: Executor, broadcast_id: str) -> Row | None:
        row = await rows.get(tx, broadcast_id)
        return None if row is None else await self._settle(tx, row, self._clock.now_ms())

    async def _owned(self, tx: Executor, user_id: int, broadcast_id: str) -> Row:
        row = await self._fresh(tx, broadcast_id)
        if row is None:
            raise _not_found(broadcast_id)
        if row["user_id"] != user_id:
            raise errors.not_authorized_for_resource("broadcast", "id", broadcast_id)
        return row

    @staticmethod
    def _only_scheduled(row: Row, verb: str) -> None:
        if row["state"] == RUNNING:
            raise _refused(f"Broadcast [{row['id']}] is live and can no longer be {verb}.")
        if row["state"] == ENDED:
            raise _refused(f"Broadcast [{row['id']}] has ended and can no longer be {verb}.")

    @staticmethod
    def _check_times(schedule: Schedule, now: int) -> None:
        if not now - START_GRACE_MS <= schedule.start <= now + SCHEDULE_AHEAD_MS:
            raise errors.invalid_body("$.scheduled_start_ms: must be a time from now to 366 days ahead")
        if not schedule.start < schedule.end <= schedule.start + SCHEDULE_AHEAD_MS:
            raise errors.invalid_body("$.scheduled_end_ms: must be after scheduled_start_ms")

    async def _event(
        self, tx: Executor, kind: str, row: Row, now: int, payload: dict[str, Any] | None = None
    ) -> None:
        if payload is None:
            payload = {
                "broadcast_id": row["id"],
                "user_id": str(row["user_id"]),
                "title": row["title"],
                "locale": row["locale"],
                "available_for_replay": bool(row["available_for_replay"]),
                "created_at": row["created_at"],
                "updated_at": row["updated_at"],
                "started_at": row["started_at"],
                "ended_at": row["ended_at"],
            }
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind=kind,
            created_at=now,
            user_id=row["user_id"],  # the owner: the broadcaster, and who receives its chat
            object_id=None,  # broadcast ids are not numeric; the payload carries it
            payload=payload,
        )


class BroadcastClock(PeriodicWorker):
    """Publishes and ends broadcasts as roost's clock reaches them; woken at once when the clock moves."""

    interval_s = 1.0
    failure = "moving broadcasts on the clock failed"
    log = log

    def __init__(self, broadcasts: Broadcasts) -> None:
        self._broadcasts = broadcasts
        self._woken: asyncio.Task[int] | None = None  # the step a clock move started

    async def step(self) -> None:
        await self._broadcasts.settle_due()

    def wake(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._woken = loop.create_task(self._broadcasts.settle_due())
