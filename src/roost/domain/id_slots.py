"""Each server process on one database makes ids of its own (issue 16).

A snowflake is the millisecond, 10 bits naming its maker, and a sequence: two processes with the
same maker bits make the same id in the same millisecond (a post written through each at once: a
unique-key failure). So every process holds a numbered slot, a lease row (`ids:N`) renewed while it
runs, and puts the slot's number in the datacenter bits: slot 1 is what a lone server has always used,
the others are 2 to 31. A process that dies leaves its slot to the next one to start after the lease
runs out; one that stops gives it back at once.
"""

from __future__ import annotations

import logging
import time
import uuid

from roost.core.ids import SnowflakeGenerator
from roost.domain.periodic import PeriodicWorker
from roost.storage.leases import LeaseStore

log = logging.getLogger("roost.ids")

SLOTS = range(1, 32)  # the datacenter bits' values (0 stays unused: no id of a server had it)
LEASE_MS = 60_000  # wall clock: long enough that only a process stopped for a minute loses its slot
RENEW_S = 10.0


class NoFreeSlot(RuntimeError):
    pass


class IdSlot(PeriodicWorker):
    interval_s = RENEW_S
    # A database hiccup: try again next time, well within the lease.
    failure = "renewing the id slot failed"
    log = log

    def __init__(self, store: LeaseStore, ids: SnowflakeGenerator) -> None:
        self._store = store
        self._ids = ids
        self._holder = uuid.uuid4().hex
        self.slot: int | None = None

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

    async def stop(self) -> None:
        await super().stop()
        if self.slot is not None:
            await self._store.give_up(f"ids:{self.slot}", self._holder)

    async def step(self) -> None:
        now, slot = _wall_ms(), self.slot
        renewed = slot is not None and await self._store.take(
            f"ids:{slot}", self._holder, now, now + LEASE_MS
        )
        if not renewed:  # lost (held past its lease by a stall): take a free one
            log.warning("id slot %s was lost: taking another", slot)
            await self.claim()


def _wall_ms() -> int:
    return int(time.time() * 1000)
