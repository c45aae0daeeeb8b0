"""Rate-limit windows counted together by the processes of one PostgreSQL database (issue 16).

Each process counts in memory (`CountingRateLimiter`), so a request never waits for the database;
this worker hands the counts to the shared rows a few times a second and takes every process's totals
back. Headers and 429s therefore count the requests to all processes, at most one interval behind: a
burst spread over several processes inside one interval can pass a limit by what the others counted
in it (docs/decisions.md)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from roost.core.clock import Clock
from roost.core.ratelimit import CountingRateLimiter, Key
from roost.storage.shared_limits import WindowStore

log = logging.getLogger("roost.shared")

SYNC_INTERVAL_S = 0.1


class SharedWindows:
    def __init__(self, limiter: CountingRateLimiter, store: WindowStore, clock: Clock) -> None:
        self._limiter = limiter
        self._store = store
        self._clock = clock
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._sync_forever())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def wake(self) -> None:
        """Nothing to do early: the loop runs again within its interval."""

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

    async def _sync_forever(self) -> None:
        while True:
            try:
                await self.sync()
            except Exception:  # a database hiccup: the counts of this round are lost, not the server
                log.exception("counting the shared rate-limit windows failed")
            await asyncio.sleep(SYNC_INTERVAL_S)
