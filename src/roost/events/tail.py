"""Reading the event log as streams do: `EventLog` (one per server: where a connection starts, and its
tails) and `Tail`, which reads the log after a position, wakes on this process's commits (and polls
for other processes' writes) and says when a keep-alive is due."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable

from roost.core.clock import Clock
from roost.core.records import Row
from roost.storage.activity import ActivityStore
from roost.storage.db import Database
from roost.storage.events import EventStore

BATCH = 200
POLL_S = 0.25  # for other processes' writes; this process's commits wake the tail at once
DEFAULT_KEEPALIVE_S = 20.0


class EventLog:
    """The log of one server's database as its streams read it."""

    def __init__(self, db: Database, events: EventStore, positions: ActivityStore, clock: Clock) -> None:
        self._db = db
        self.events = events
        self._positions = positions
        self.clock = clock

    async def start_position(self, since_ms: int | None) -> int:
        """The position a connection starts after: now, or before the first event at or after `since_ms`."""
        position = await self._positions.max_position()
        if since_ms is not None:
            before = await self._positions.position_before(since_ms)
            position = position if before is None else min(before, position)
        return position

    def tail(self, position: int, keepalive_s: float, end_ms: int | None = None) -> Tail:
        return Tail(self, position, keepalive_s, end_ms)

    def listen(self, wake: Callable[[], None]) -> None:
        """Call `wake` after each commit of this process."""
        self._db.commit_listeners.append(wake)

    def unlisten(self, wake: Callable[[], None]) -> None:
        if wake in self._db.commit_listeners:
            self._db.commit_listeners.remove(wake)


class Tail:
    """Batches of events after `position`. An empty batch means a keep-alive is due: nothing was
    written (`wrote()`) for `keepalive_s`. Ends after `end_ms` (by event time and by the clock)."""

    def __init__(self, log: EventLog, position: int, keepalive_s: float, end_ms: int | None = None) -> None:
        self._log = log
        self.position = position
        self.keepalive_s = keepalive_s
        self.end_ms = end_ms
        self._loop = asyncio.get_running_loop()
        self._last_write = self._loop.time()
        self._stopped = False
        self._wake: asyncio.Event | None = None

    def wrote(self) -> None:
        self._last_write = self._loop.time()

    def interrupt(self) -> None:
        """End `batches()` at its next step (a connection deleted, a server stopping)."""
        self._stopped = True
        if self._wake is not None:
            self._wake.set()

    @property
    def interrupted(self) -> bool:
        return self._stopped

    async def batches(self) -> AsyncGenerator[list[Row], None]:
        log = self._log
        wake = self._wake = asyncio.Event()
        log.listen(wake.set)
        try:
            while not self._stopped:
                wake.clear()  # before reading: a commit after this point wakes the next wait
                events = await log.events.after(self.position, BATCH)
                if self.end_ms is not None:
                    kept = [e for e in events if int(e["created_at"]) <= self.end_ms]
                    if len(kept) < len(events):
                        if kept:
                            self.position = int(kept[-1]["position"])
                            yield kept
                        return
                if events:
                    self.position = int(events[-1]["position"])
                    yield events
                    if len(events) == BATCH:
                        continue
                if self.end_ms is not None and log.clock.now_ms() > self.end_ms:
                    return
                idle = self._loop.time() - self._last_write
                if idle >= self.keepalive_s:
                    yield []
                    self.wrote()
                    idle = 0.0
                timer = self._loop.call_later(min(POLL_S, self.keepalive_s - idle), wake.set)
                try:
                    await wake.wait()
                finally:
                    timer.cancel()
        finally:
            log.unlisten(wake.set)
