"""Pieces for streams that tail the event log: per-app connection slots, the keep-alive setting, and
`Tail`, which reads the log after a position, wakes on this process's commits (and polls for other
processes' writes) and says when a keep-alive is due."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator

from roost.services import Services
from roost.storage.db import Row

BATCH = 200
POLL_S = 0.25  # for other processes' writes; this process's commits wake the tail at once
DEFAULT_KEEPALIVE_S = 20.0


class Slots:
    """Open connections per (server, app), bounded by a feature setting."""

    def __init__(self, setting: str, default: int) -> None:
        self.setting = setting
        self.default = default
        self._open: dict[tuple[int, int], int] = {}

    def limit(self, services: Services) -> int:
        return services.settings.whole(self.setting, self.default, positive=True)

    def acquire(self, services: Services, app_id: int) -> bool:
        key = (id(services), app_id)
        if self._open.get(key, 0) >= self.limit(services):
            return False
        self._open[key] = self._open.get(key, 0) + 1
        return True

    def release(self, services: Services, app_id: int) -> None:
        key = (id(services), app_id)
        left = self._open.get(key, 0) - 1
        if left > 0:
            self._open[key] = left
        else:
            self._open.pop(key, None)

    def count(self, services: Services, app_id: int) -> int:
        return self._open.get((id(services), app_id), 0)


# Every tail of this process, so a server that is stopping can end its streams (they never end by
# themselves) instead of waiting for them or cutting them mid-line.
_live: weakref.WeakSet[Tail] = weakref.WeakSet()


def end_all() -> int:
    """End every stream of this process at its next step; returns how many were open."""
    tails = list(_live)
    for tail in tails:
        tail.interrupt()
    return len(tails)


class Tail:
    """Batches of events after `position`. An empty batch means a keep-alive is due: nothing was
    written (`wrote()`) for `keepalive_s`. Ends after `end_ms` (by event time and by the clock)."""

    def __init__(
        self, services: Services, position: int, keepalive_s: float, end_ms: int | None = None
    ) -> None:
        self.services = services
        self.position = position
        self.keepalive_s = keepalive_s
        self.end_ms = end_ms
        self._loop = asyncio.get_running_loop()
        self._last_write = self._loop.time()
        self._stopped = False
        self._wake: asyncio.Event | None = None
        _live.add(self)

    def wrote(self) -> None:
        self._last_write = self._loop.time()

    def interrupt(self) -> None:
        """End `batches()` at its next step (a connection deleted through /2/connections)."""
        self._stopped = True
        if self._wake is not None:
            self._wake.set()

    @property
    def interrupted(self) -> bool:
        return self._stopped

    async def batches(self) -> AsyncIterator[list[Row]]:
        services = self.services
        wake = self._wake = asyncio.Event()
        services.db.commit_listeners.append(wake.set)
        try:
            while not self._stopped:
                wake.clear()  # before reading: a commit after this point wakes the next wait
                events = await services.events.after(self.position, BATCH)
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
                if self.end_ms is not None and services.clock.now_ms() > self.end_ms:
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
            if wake.set in services.db.commit_listeners:
                services.db.commit_listeners.remove(wake.set)
