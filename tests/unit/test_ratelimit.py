"""Behaviour of roost.core.ratelimit.RateLimiter: fixed windows per key, and the disabled mode."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from roost.core.ratelimit import RateLimiter, Window

KEY = ("get_tweets", 1, 2)
WINDOW = 900
NOW = 1_700_000_000.25


def test_first_hit_opens_a_window() -> None:
    window, allowed = RateLimiter().hit(KEY, 3, WINDOW, NOW)
    assert allowed
    assert window == Window(limit=3, remaining=2, reset_s=int(NOW) + WINDOW)


def test_reset_is_in_whole_epoch_seconds() -> None:
    window, _ = RateLimiter().hit(KEY, 3, WINDOW, 1_700_000_000.999)
    assert window.reset_s == 1_700_000_900
    assert isinstance(window.reset_s, int)


def test_limit_then_refusal() -> None:
    limiter = RateLimiter()
    # Windows are live objects: snapshot each state as it is returned.
    states = [
        (w.limit, w.remaining, w.reset_s, ok)
        for w, ok in (limiter.hit(KEY, 3, WINDOW, NOW + i) for i in range(5))
    ]
    reset = int(NOW) + WINDOW
    assert states == [
        (3, 2, reset, True),
        (3, 1, reset, True),
        (3, 0, reset, True),
        (3, 0, reset, False),
        (3, 0, reset, False),
    ]


def test_window_resets_after_window_s() -> None:
    limiter = RateLimiter()
    for _ in range(3):
        limiter.hit(KEY, 3, WINDOW, NOW)
    assert limiter.hit(KEY, 3, WINDOW, NOW + WINDOW - 1.5) == (Window(3, 0, int(NOW) + WINDOW), False)
    window, allowed = limiter.hit(KEY, 3, WINDOW, int(NOW) + WINDOW)
    assert allowed
    assert window == Window(3, 2, int(NOW) + 2 * WINDOW)


def test_new_window_starts_from_the_request_after_expiry() -> None:
    limiter = RateLimiter()
    limiter.hit(KEY, 3, WINDOW, NOW)
    later = NOW + 5000.7
    window, _ = limiter.hit(KEY, 3, WINDOW, later)
    assert window == Window(3, 2, int(later) + WINDOW)


def test_keys_are_independent() -> None:
    limiter = RateLimiter()
    for _ in range(2):
        limiter.hit(("op", 1, 1), 2, WINDOW, NOW)
    assert limiter.hit(("op", 1, 1), 2, WINDOW, NOW)[1] is False
    assert limiter.hit(("op", 1, 2), 2, WINDOW, NOW) == (Window(2, 1, int(NOW) + WINDOW), True)
    assert limiter.hit(("other", 1, 1), 2, WINDOW, NOW)[1] is True


def test_cost() -> None:
    limiter = RateLimiter()
    window, allowed = limiter.hit(KEY, 10, WINDOW, NOW, cost=4)
    assert (window.remaining, allowed) == (6, True)
    window, allowed = limiter.hit(KEY, 10, WINDOW, NOW, cost=7)
    assert (window.remaining, allowed) == (6, False)
    window, allowed = limiter.hit(KEY, 10, WINDOW, NOW, cost=6)
    assert (window.remaining, allowed) == (0, True)


def test_peek_does_not_count() -> None:
    limiter = RateLimiter()
    assert limiter.peek(KEY, 5, WINDOW, NOW) == Window(5, 5, int(NOW) + WINDOW)
    limiter.hit(KEY, 5, WINDOW, NOW)
    assert limiter.peek(KEY, 5, WINDOW, NOW + 1) == Window(5, 4, int(NOW) + WINDOW)
    assert limiter.peek(KEY, 5, WINDOW, NOW + 2).remaining == 4
    assert limiter.peek(KEY, 5, WINDOW, NOW + WINDOW) == Window(5, 5, int(NOW + WINDOW) + WINDOW)


def test_refund() -> None:
    limiter = RateLimiter()
    limiter.hit(KEY, 2, WINDOW, NOW)
    limiter.hit(KEY, 2, WINDOW, NOW)
    limiter.refund(KEY)
    assert limiter.peek(KEY, 2, WINDOW, NOW).remaining == 1
    limiter.refund(KEY)
    limiter.refund(KEY)
    assert limiter.peek(KEY, 2, WINDOW, NOW).remaining == 2
    limiter.refund(("never", "seen"))


def test_reset_clears_every_window() -> None:
    limiter = RateLimiter()
    for _ in range(3):
        limiter.hit(KEY, 3, WINDOW, NOW)
    limiter.reset()
    assert limiter.hit(KEY, 3, WINDOW, NOW) == (Window(3, 2, int(NOW) + WINDOW), True)


def test_24_hour_cap_window() -> None:
    limiter = RateLimiter()
    window, allowed = limiter.hit(("24h-user", "create_tweet", 1, 2), 2400, 86_400, NOW)
    assert allowed
    assert window == Window(2400, 2399, int(NOW) + 86_400)


@given(st.integers(min_value=1, max_value=50), st.integers(min_value=0, max_value=120))
def test_exactly_limit_requests_are_allowed_per_window(limit: int, requests: int) -> None:
    limiter = RateLimiter()
    allowed = [limiter.hit(KEY, limit, WINDOW, NOW)[1] for _ in range(requests)]
    assert allowed == [True] * min(limit, requests) + [False] * max(0, requests - limit)


# --- disabled ----------------------------------------------------------------------------------
def test_disabled_limiter_always_allows() -> None:
    limiter = RateLimiter(enabled=False)
    assert not limiter.enabled
    results = [limiter.hit(KEY, 3, WINDOW, NOW + i) for i in range(10)]
    assert all(allowed for _, allowed in results)
    for window, _ in results:
        assert window.limit == 3
        assert window.reset_s == int(NOW) + WINDOW
        assert window.remaining <= 3


def test_disabled_limiter_still_rolls_windows() -> None:
    limiter = RateLimiter(enabled=False)
    limiter.hit(KEY, 3, WINDOW, NOW)
    window, allowed = limiter.hit(KEY, 3, WINDOW, NOW + WINDOW)
    assert allowed
    assert window.reset_s == int(NOW + WINDOW) + WINDOW


def test_disabled_limiter_shows_the_full_window_and_never_spends_it() -> None:
    """Switched off, the headers keep the platform's numbers without an empty window that would make
    clients that watch `x-rate-limit-remaining` pause for nothing."""
    limiter = RateLimiter(enabled=False)
    remaining = [limiter.hit(KEY, 3, WINDOW, NOW)[0].remaining for _ in range(5)]
    assert remaining == [3, 3, 3, 3, 3]
    window, allowed = limiter.hit(KEY, 3, WINDOW, NOW)
    assert allowed
    assert window.limit == 3
