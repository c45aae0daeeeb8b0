"""Each server process on one database makes ids of its own (issue 16).

A snowflake is the millisecond, 10 bits naming its maker, and a sequence: two processes with the
same maker bits make the same id in the same millisecond (a post written through each at once: a
unique-key failure). So every process holds a numbered slot, a lease row (`ids:N`) renewed while it
runs, and puts the slot's number in the datacenter bits: slot 1 is what a lone server has always used,
the others are 2 to 31. A process that dies leaves its slot to the next one to start after the lease
runs out; one that stops gives it back at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid

from roost.core.ids import SnowflakeGenerator
from roost.storage.leases import LeaseStore

log = logging.getLogger("roost.ids")

SLOTS = range(1, 32)  # the datacenter bits' values (0 stays unused: no id of a server had it)
LEASE_MS = 60_000  # wall clock: long enough that only a process stopped for a minute loses its slot
RENEW_S = 10.0


class NoFreeSlot(RuntimeError):
    pass


class IdSlot:
    def __init__(self, store: LeaseStore, ids: SnowflakeGenerator) -> None:
        self._store = store
        self._ids = ids
        self._holder = uuid.uuid4().hex
        self.slot: int | None = None
        self._task: asyncio.Task[None] | None = None

    async def claim(self) -> int:
        """Take the first free slot (its own again, after a reset) and make ids with it."""
        now = _wall_ms()
        preferred = [self.slot] if self.slot is not None else []
        for slot in [*preferred, *(s for s in SLOTS if s != self.slot)]:
            if await self._store.take(f"ids:{slot}", self._holder, now, now + LEASE_MS):
                self.slot = slot
                self._ids.use_datacenter(slot)
                return slot
        raise NoFreeSlot(f"all {len(SLOTS)} id slots of this database are held by running processes")

    # ---- a server worker: renews the slot while the server runs --------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._renew_forever())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.slot is not None:
            await self._store.give_up(f"ids:{self.slot}", self._holder)

    def wake(self) -> None:
        """Nothing due at a clock move: the lease runs on the wall clock."""

    async def _renew_forever(self) -> None:
        while True:
            try:
                now = _wall_ms()
                slot = self.slot
                if slot is None or not await self._store.take(
                    f"ids:{slot}", self._holder, now, now + LEASE_MS
                ):
                    # Lost (held past its lease by a stall): take a free one.
                    log.warning("id slot %s was lost: taking another", slot)
                    await self.claim()
            except Exception:  # a database hiccup: try again next time, well within the lease
                log.exception("renewing the id slot failed")
            await asyncio.sleep(RENEW_S)


def _wall_ms() -> int:
    return int(time.time() * 1000)
