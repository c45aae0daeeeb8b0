"""Replay jobs: re-deliver one webhook's events of a window, then post `replay_job_status`.

A job (`replay_jobs`, state running → complete | incomplete) moves in two steps, each one transaction,
driven by `advance_replays` on every dispatcher round:
1. copy: every delivery of the webhook whose event falls in the window and that was delivered or at
   least attempted becomes a new pending delivery row with the same event id and body, routed
   `replay:<job id>:<original delivery id>` (the dispatcher then sends and retries them as usual);
2. finish: once none of the copies is pending, the job closes (complete when every copy was delivered,
   else incomplete) and a `{"replay_job_status": {...}}` message is queued, routed
   `replay:<job id>:status`.
With no running job a round costs nothing but a dictionary look-up: the running-jobs query runs at
most once a second (for jobs created by another process), or at once after `poke`.
"""

from __future__ import annotations

import json
import time

from roost.services import Services
from roost.storage.db import Row
from roost.storage.replays import ReplayStore

IDLE_RECHECK_S = 1.0

# id(services) → monotonic time before which no running job is expected (this process created none).
_idle_until: dict[int, float] = {}


def poke(services: Services) -> None:
    """A job was created: look for running jobs on the next round."""
    _idle_until.pop(id(services), None)


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


async def advance_replays(services: Services) -> None:
    """Called on every dispatcher round: move running jobs forward."""
    key = id(services)
    if time.monotonic() < _idle_until.get(key, 0.0):
        return
    store = ReplayStore(services.db)
    jobs = await store.running()
    if not jobs:
        _idle_until[key] = time.monotonic() + IDLE_RECHECK_S
        return
    for job in jobs:
        await _advance(services, store, job)


async def _advance(services: Services, store: ReplayStore, job: Row) -> None:
    job_id, webhook_id = int(job["id"]), int(job["webhook_id"])
    now = services.clock.now_ms()
    total = await store.copy(job, now)
    states = await store.copy_states(job_id, webhook_id) if total else {}
    if states.get("pending", 0) or states.get("sending", 0):  # sending: an attempt is under way
        return
    delivered = states.get("delivered", 0)
    state = "complete" if delivered == total else "incomplete"
    await store.finish(job, state, status_message(job, state, delivered, total), services.clock.now_ms())
