"""Replay jobs: re-deliver one webhook's events of a window, then post `replay_job_status`.

A job (`replay_jobs`, state running → complete | incomplete) moves in two steps, each one transaction,
driven by `ReplayJobs.advance` on every dispatcher round:
1. copy: every delivery of the webhook whose event falls in the window and that was delivered or at
   least attempted becomes a new pending delivery row with the same event id and body, routed
   `replay:<job id>:<original delivery id>` (the dispatcher then sends and retries them as usual);
2. finish: once none of the copies is pending, the job closes (complete when every copy was delivered,
   else incomplete) and a `{"replay_job_status": {...}}` message is queued, routed
   `replay:<job id>:status`.
With no running job a round costs nothing but a clock read: the running-jobs query runs at most once
a second (for jobs created by another process), or at once after `poke`.
"""

from __future__ import annotations

import json
import time

from roost.core.clock import Clock
from roost.core.records import Row
from roost.storage.replays import ReplayStore

IDLE_RECHECK_S = 1.0


def status_message(job: Row, state: str, delivered: int, total: int) -> str:
    description = (
        "Job completed successfully"
        if state == "complete"
        else f"Job completed with errors: {total - delivered} of {total} events could not be delivered"
    )
    return json.dumps(
        {
            "replay_job_status": {
                "webhook_id": str(job["webhook_id"]),
                "job_state": "Complete" if state == "complete" else "Incomplete",
                "job_state_description": description,
                "job_id": str(job["id"]),
            }
        },
        separators=(",", ":"),
    )


class ReplayJobs:
    """The running replay jobs of one server's database, moved forward by its dispatcher."""

    def __init__(self, store: ReplayStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self._idle_until = 0.0  # monotonic time before which no running job is expected

    def poke(self) -> None:
        """A job was created: look for running jobs on the next round."""
        self._idle_until = 0.0

    async def advance(self) -> None:
        """Called on every dispatcher round: move running jobs forward."""
        if time.monotonic() < self._idle_until:
            return
        jobs = await self._store.running()
        if not jobs:
            self._idle_until = time.monotonic() + IDLE_RECHECK_S
            return
        for job in jobs:
            await self._advance(job)

    async def _advance(self, job: Row) -> None:
        store = self._store
        job_id, webhook_id = int(job["id"]), int(job["webhook_id"])
        total = await store.copy(job, self._clock.now_ms())
        states = await store.copy_states(job_id, webhook_id) if total else {}
        if states.get("pending", 0) or states.get("sending", 0):  # sending: an attempt is under way
            return
        delivered = states.get("delivered", 0)
        state = "complete" if delivered == total else "incomplete"
        await store.finish(job, state, status_message(job, state, delivered, total), self._clock.now_ms())
