"""The console's live view of the event log (`/_roost/console/streams/live`): what the streams and
webhooks are fed, as it is written. It reads the log as a stream does but takes no connection slot
and records no connection; each view is bounded in time and in events, and ends with the server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.records import Row
from roost.events.tail import EventLog, Tail

KEEPALIVE_S = 5.0  # an empty batch this often: the view checks its deadline and the browser its link
BACKFILL_MS = 60_000  # a view opens with the last minute of events


def render_event(row: Row) -> dict[str, Any]:
    payload = row["payload"]
    return {
        "position": int(row["position"]),
        "id": str(row["id"]),
        "kind": row["kind"],
        "created_at": iso_ms(int(row["created_at"])),
        "user_id": None if row["user_id"] is None else str(row["user_id"]),
        "object_id": None if row["object_id"] is None else str(row["object_id"]),
        "payload": jsonio.loads(payload) if isinstance(payload, str | bytes) else payload,
    }


class EventTap:
    def __init__(self, log: EventLog) -> None:
        self._log = log
        self._open: set[Tail] = set()

    async def follow(self, seconds: float, max_events: int) -> AsyncIterator[list[dict[str, Any]]]:
        """Batches of events (an empty one every few seconds while nothing happens), for at most
        `seconds` of the event loop's time and `max_events` events."""
        log = self._log
        start = await log.start_position(log.clock.now_ms() - BACKFILL_MS)
        tail = log.tail(start, KEEPALIVE_S)
        self._open.add(tail)
        loop_time = asyncio.get_running_loop().time  # wall time: the roost clock may jump
        deadline = loop_time() + seconds
        sent = 0
        try:
            async for batch in tail.batches():
                kept = batch[: max_events - sent]
                sent += len(kept)
                yield [render_event(row) for row in kept]
                if sent >= max_events or loop_time() >= deadline:
                    return
        finally:
            self._open.discard(tail)
            tail.interrupt()

    def end_all(self) -> None:
        """End every open view (the server is stopping)."""
        for tail in list(self._open):
            tail.interrupt()
