"""A server worker that does one step at a fixed interval (issue 16's loops: the shared settings'
refresh, the shared rate-limit windows' sums, the id slot's renewal): started with the server,
stopped around a reset and at shutdown. A step that fails is logged and tried again next time: a
database hiccup must not end the loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging


class PeriodicWorker:
    interval_s: float  # between the end of one step and the start of the next
    failure: str  # what the log says when a step fails
    log: logging.Logger
    _task: asyncio.Task[None] | None = None

    async def step(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._forever())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def wake(self) -> None:
        """Nothing to do early: the next step comes within the interval."""

    async def _forever(self) -> None:
        while True:
            try:
                await self.step()
            except Exception:
                self.log.exception(self.failure)
            await asyncio.sleep(self.interval_s)
