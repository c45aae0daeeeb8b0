"""One process at a time runs the singleton jobs of a database (issue 16): the holder of a lease row
renews it every third of its period; when the holder dies, another process takes it once it has
expired, so within one period (feature setting `work_lease_seconds`, default 10). Times are wall-clock
milliseconds: the roost clock is moved by tests and would expire every lease at once."""

from __future__ import annotations

import logging
import time
import uuid

from roost.config import Settings
from roost.storage.leases import LeaseStore

log = logging.getLogger("roost.lease")

DEFAULT_LEASE_S = 10.0
MAX_LEASE_S = 300.0


def lease_period_ms(settings: Settings) -> int:
    seconds = settings.number("work_lease_seconds", DEFAULT_LEASE_S, positive=True)
    return int(min(seconds, MAX_LEASE_S) * 1000)


def wall_ms() -> int:
    return int(time.time() * 1000)


class WorkLease:
    def __init__(self, store: LeaseStore, name: str, settings: Settings) -> None:
        self._store = store
        self._name = name
        self._settings = settings
        self.holder = uuid.uuid4().hex  # this process, as lease rows and delivery claims name it
        self._held_until = 0  # wall ms: the expiry of our lease as last written; 0 when not held
        self._tried_at = 0  # wall ms of the last attempt to take or renew

    @property
    def held(self) -> bool:
        return wall_ms() < self._held_until

    async def hold(self) -> bool:
        """Whether this process holds the lease now, taking or renewing it when a third of the period
        has passed since the last attempt (a failed renewal means another process took it)."""
        now = wall_ms()
        period = lease_period_ms(self._settings)
        if now - self._tried_at >= period // 3:
            self._tried_at = now
            was_held = self._held_until > now
            try:
                taken = await self._store.take(self._name, self.holder, now, now + period)
            except Exception:
                log.exception("taking the %s lease failed", self._name)
                taken = False
            self._held_until = now + period if taken else 0
            if taken != was_held:
                log.info("%s the %s lease", "took" if taken else "lost", self._name)
        return now < self._held_until

    async def give_up(self) -> None:
        if self._held_until:
            self._held_until = 0
            await self._store.give_up(self._name, self.holder)
