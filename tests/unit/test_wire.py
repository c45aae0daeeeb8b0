"""The response-head helpers of roost.core.wire: transaction ids, elapsed time, rate-limit headers."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from roost.core import wire
from roost.core.ratelimit import RateLimiter, Window
from roost.core.stages import TransactionIds
from roost.core.wire import elapsed_ms, window_headers, window_raw_headers


def test_transaction_ids_are_16_hex_digits_and_do_not_repeat() -> None:
    ids = TransactionIds()
    drawn = [ids.take() for _ in range(3 * 4096 + 7)]  # across several blocks
    assert all(re.fullmatch(rb"[0-9a-f]{16}", value) for value in drawn)
    assert len(set(drawn)) == len(drawn)


def test_transaction_ids_come_from_the_seeded_source() -> None:
    first, second = TransactionIds(7), TransactionIds(7)
    assert [first.take() for _ in range(5000)] == [second.take() for _ in range(5000)]
    assert [TransactionIds(7).take() for _ in range(3)] != [TransactionIds(8).take() for _ in range(3)]


def test_elapsed_ms_counts_whole_milliseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    # A stopped perf_counter: the figures are exact, however long the calls themselves take.
    monkeypatch.setattr(wire, "time", SimpleNamespace(perf_counter=lambda: 100.0))
    assert elapsed_ms(100.0) == b"0"
    assert elapsed_ms(100.0 - 0.0421) == b"42"
    assert elapsed_ms(100.0 - 0.0429) == b"42"  # whole milliseconds: cut, not rounded
    assert elapsed_ms(100.0 - 12.5) == b"12500"


def _as_text(headers: list[tuple[bytes, bytes]]) -> dict[str, str]:
    return {name.decode(): value.decode() for name, value in headers}


def test_rate_limit_headers_follow_the_window_as_it_is_spent() -> None:
    limiter = RateLimiter()
    seen = []
    for _ in range(3):
        window, allowed = limiter.hit(("op", 1), 2, 900, 1_000.0)
        seen.append(_as_text(window_raw_headers("x-rate-limit", window)))
        assert seen[-1] == window_headers("x-rate-limit", window)
    assert [headers["x-rate-limit-remaining"] for headers in seen] == ["1", "0", "0"]
    assert not allowed


def test_a_window_that_does_not_move_keeps_its_encoded_headers() -> None:
    window = Window(450, 450, 1_700_000_900)
    first = window_raw_headers("x-rate-limit", window)
    assert window_raw_headers("x-rate-limit", window) is first
    window.remaining = 449
    assert _as_text(window_raw_headers("x-rate-limit", window))["x-rate-limit-remaining"] == "449"


def test_other_prefixes_are_encoded_too() -> None:
    window = Window(300, 12, 1_700_086_400)
    assert _as_text(window_raw_headers("x-app-limit-24hour", window)) == {
        "x-app-limit-24hour-limit": "300",
        "x-app-limit-24hour-remaining": "12",
        "x-app-limit-24hour-reset": "1700086400",
    }
