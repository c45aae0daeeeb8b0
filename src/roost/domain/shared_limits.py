"""Rate-limit windows counted together by the processes of one PostgreSQL database (issue 16).

Each process counts in memory (`CountingRateLimiter`), so a request never waits for the database;
this worker hands the counts to the shared rows a few times a second and takes every process's totals
back. Headers and 429s therefore count the requests to all processes, at most one interval behind: a
burst spread over several processes inside one interval can pass a limit by what the others counted
in it (docs/decisions.md)."""

from __future__ import annotations

import logging

from roost.core.clock import Clock
from roost.core.ratelimit import CountingRateLimiter, Key
from roost.domain.periodic import PeriodicWorker
from roost.storage.shared_limits import WindowStore

log = logging.getLogger("roost.shared")

SYNC_INTERVAL_S = 0.1


class SharedWindows(PeriodicWorker):
    interval_s = SYNC_INTERVAL_S
    # A database hiccup: the counts of that round are lost, not the server.
    failure = "counting the shared rate-limit windows failed"
    log = log

    def __init__(self, limiter: CountingRateLimiter, store: WindowStore, clock: Clock) -> None:
        self._limiter = limiter
        self._store = store
        self._clock = clock

    async def sync(self) -> None:
        """Hand this process's counts to the shared windows and take their totals."""
        counted = self._limiter.take_counted()
        now = self._clock.now()
        if counted:
            keys: dict[str, Key] = {repr(key): key for key, _, _ in counted}
            rows = await self._store.count(
                [(repr(key), amount, reset_s) for key, amount, reset_s in counted], int(now)
            )
            for row in rows:
                self._limiter.take_shared(keys[row["key"]], row["used"], row["reset_s"])
        await self._store.sweep(now)

    async def step(self) -> None:
        await self.sync()
