"""The clock and the run-time feature settings, shared by every server process on one database
(issue 16).

A change made through one process (`POST /_roost/clock`, `POST /_roost/settings`) is applied there
at once and written to the database; every process `refresh`es a few times a second, and reads the
shared rows only when the database's generation says something was committed since its last look
(PostgreSQL's commit notifications, SQLite's data version), so an idle sandbox costs no queries and a
busy one one small read per refresh, never one per request.

Feature settings are the command line's `--option`s with the run-time changes on top: each change
is its own row (`shared:feature:NAME`, JSON: the value, or null for "removed"), so two processes
changing different settings at once do not overwrite each other.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable

from roost.config import Settings
from roost.core.clock import Clock
from roost.domain.periodic import PeriodicWorker
from roost.storage.db import Database
from roost.storage.shared_state import CLOCK_KEY, FEATURE_PREFIX, put_shared, shared_settings

log = logging.getLogger("roost.shared")

# How often each process looks for the others' changes: well within the one second they may lag.
REFRESH_INTERVAL_S = 0.25


class SharedSettings(PeriodicWorker):
    """A server worker too: started with the server, stopped around a reset (`PeriodicWorker`)."""

    interval_s = REFRESH_INTERVAL_S
    failure = "reading the shared settings failed"  # a database hiccup: look again next time
    log = log

    def __init__(self, db: Database, clock: Clock, settings: Settings) -> None:
        self._db = db
        self._clock = clock
        self._extra = settings.extra  # read live by the services: changed in place
        self._changes: dict[str, str | None] = {}  # run-time changes on top of the command line's
        self._seen_clock: str | None = None
        self._seen_generation = -1
        # Called when another process moved the clock (scheduled work due in the skipped time runs).
        self.on_clock_moved: Callable[[], None] | None = None
        # A refresh reads the rows, awaits, then applies them: a change made here in between would be
        # undone by the older rows (the clock jumping back). One at a time, changes and refreshes.
        self._turn = asyncio.Lock()

    async def step(self) -> None:
        await self.refresh()

    # ---- changes made through this process -------------------------------------------------------

    async def advance_clock(self, seconds: float) -> None:
        async with self._turn:
            self._clock.advance(seconds)
            await self._store_clock()

    async def set_clock(self, epoch_ms: int) -> None:
        async with self._turn:
            self._clock.set(epoch_ms)
            await self._store_clock()

    async def freeze_clock(self, frozen: bool) -> None:
        """Stop the clock where it is (every process), or let it run again from there."""
        async with self._turn:
            if frozen:
                self._clock.freeze()
            else:
                self._clock.unfreeze()
            await self._store_clock()

    async def change_features(self, changes: dict[str, str | None]) -> dict[str, str]:
        """Apply `changes` (None removes a setting) here and for every process; the settings now."""
        async with self._turn:
            self._apply(changes)
            await put_shared(
                self._db, {FEATURE_PREFIX + key: json.dumps(value) for key, value in changes.items()}
            )
            return dict(self._extra)

    async def persist(self) -> None:
        """Write this process's clock and changes again (after a reset wiped the rows)."""
        async with self._turn:
            rows = {FEATURE_PREFIX + key: json.dumps(value) for key, value in self._changes.items()}
            self._seen_clock = rows[CLOCK_KEY] = self._clock.snapshot()
            await put_shared(self._db, rows)

    async def _store_clock(self) -> None:
        self._seen_clock = self._clock.snapshot()
        await put_shared(self._db, {CLOCK_KEY: self._seen_clock})

    # ---- changes made through other processes ----------------------------------------------------

    async def refresh(self) -> None:
        """Take the other processes' changes, if anything was committed since the last look."""
        if self._db.current_generation() == self._seen_generation:
            return
        async with self._turn:
            await self._take_committed()

    async def _take_committed(self) -> None:
        generation = self._db.current_generation()
        if generation == self._seen_generation:
            return
        self._seen_generation = generation
        rows = await shared_settings(self._db)
        if not rows:
            return  # wiped by a reset: this process keeps its state until one is written again
        clock = rows.get(CLOCK_KEY)
        if clock is not None and clock != self._seen_clock:
            self._seen_clock = clock
            if self._clock.restore(clock) and self.on_clock_moved is not None:
                self.on_clock_moved()
        changes: dict[str, str | None] = {}
        for key, text in rows.items():
            if not key.startswith(FEATURE_PREFIX):
                continue
            name, stored = key[len(FEATURE_PREFIX) :], json.loads(text)
            value = stored if isinstance(stored, str) else None
            if name not in self._changes or self._changes[name] != value:
                changes[name] = value
        if changes:
            self._apply(changes)

    def _apply(self, changes: dict[str, str | None]) -> None:
        # Key by key, so settings nobody changed keep whatever value they have here.
        for key, value in changes.items():
            self._changes[key] = value
            if value is None:
                self._extra.pop(key, None)
            else:
                self._extra[key] = value
