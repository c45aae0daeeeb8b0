"""The in-memory halves of the state processes share (issue 16): the clock's snapshot and the
counting rate limiter."""

from __future__ import annotations

import asyncio
import time

import pytest

from roost.config import Settings
from roost.core.clock import Clock
from roost.core.ratelimit import CountingRateLimiter
from roost.domain import shared_state


def test_a_clock_restores_another_clocks_snapshot() -> None:
    moved = Clock()
    moved.advance(86_400)
    other = Clock()
    assert other.restore(moved.snapshot())
    assert abs(other.now_ms() - moved.now_ms()) < 1_000
    frozen = Clock(frozen_ms=1_234)
    assert other.restore(frozen.snapshot()) and other.now_ms() == 1_234
    assert not other.restore("nonsense") and not other.restore("offset:x")
    assert other.now_ms() == 1_234


def test_counted_requests_are_handed_over_once_and_totals_taken_back() -> None:
    limiter = CountingRateLimiter()
    key = ("findUserByUsername", 1)
    for _ in range(3):
        limiter.hit(key, 10, 900, 1_000.0)
    assert limiter.take_counted() == [(key, 3, 1_900)]
    assert limiter.take_counted() == []
    limiter.hit(key, 10, 900, 1_001.0)  # counted while the totals were being summed
    limiter.take_shared(key, used=8, reset_s=1_850)  # another process counted 5
    window, allowed = limiter.hit(key, 10, 900, 1_002.0)
    assert allowed and window.remaining == 0 and window.reset_s == 1_850
    assert not limiter.hit(key, 10, 900, 1_003.0)[1]


def test_a_limiter_switched_off_counts_nothing_to_share() -> None:
    limiter = CountingRateLimiter(enabled=False)
    limiter.hit(("op", 1), 1, 900, 0.0)
    assert limiter.take_counted() == []


class _Rows:
    """A database stand-in: the shared rows, a commit counter, and a read that waits to be let go."""

    def __init__(self, clock: str) -> None:
        self.rows = {"shared:clock": clock}
        self.generation = 1
        self.reading = asyncio.Event()
        self.let_go = asyncio.Event()

    def current_generation(self) -> int:
        return self.generation

    async def read(self, _db: object) -> dict[str, str]:
        rows = dict(self.rows)  # what the database held when the read began
        self.reading.set()
        await self.let_go.wait()
        return rows

    async def write(self, _db: object, values: dict[str, str]) -> None:
        self.rows.update(values)
        self.generation += 1


async def test_a_refresh_under_way_does_not_undo_a_clock_move(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    database = _Rows(clock.snapshot())
    monkeypatch.setattr(shared_state, "shared_settings", database.read)
    monkeypatch.setattr(shared_state, "put_shared", database.write)
    shared = shared_state.SharedSettings(database, clock, Settings())  # type: ignore[arg-type]
    refreshing = asyncio.ensure_future(shared.refresh())
    await database.reading.wait()  # the refresh holds rows from before the move
    moving = asyncio.ensure_future(shared.advance_clock(86_400))
    await asyncio.sleep(0)
    database.let_go.set()
    await asyncio.gather(refreshing, moving)
    assert clock.now_ms() - int(time.time() * 1000) >= 86_400_000 - 1_000
    await shared.refresh()  # the next look reads the moved clock back: no change
    assert clock.now_ms() - int(time.time() * 1000) >= 86_400_000 - 1_000
