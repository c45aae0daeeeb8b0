"""The in-memory halves of the state processes share (issue 16): the clock's snapshot and the
counting rate limiter."""

from __future__ import annotations

from roost.core.clock import Clock
from roost.core.ratelimit import CountingRateLimiter


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
