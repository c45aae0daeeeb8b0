"""Per-operation rate-limit windows (15 minutes by default) and 24-hour creation caps.

Windows live in process memory: one server process is the embedded case. Several processes on one
PostgreSQL database count into shared rows as well (`CountingRateLimiter`, issue 16, docs/decisions.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A window's key: what it counts (operation, category) and for whom (app, user, account).
Key = tuple[Any, ...]


@dataclass(slots=True)
class Window:
    limit: int
    remaining: int
    reset_s: int
    # The response headers last encoded for this window, with the `remaining` they show (the wire
    # layer's; while the window does not move, as with limits off, they are reused as they are).
    encoded: tuple[int, Any] | None = field(default=None, compare=False, repr=False)


class RateLimiter:
    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._windows: dict[Key, Window] = {}

    def hit(self, key: Key, limit: int, window_s: int, now_s: float, cost: int = 1) -> tuple[Window, bool]:
        """Count one request; returns the window state and whether the request is allowed."""
        window = self._windows.get(key)
        if window is None or now_s >= window.reset_s:
            window = Window(limit, limit, int(now_s) + window_s)
            self._windows[key] = window
            if len(self._windows) > 100_000:
                self._evict(now_s)
        if not self.enabled:
            # Limits switched off: the headers show the platform's numbers, never an empty window
            # that would make well-behaved clients sleep.
            return window, True
        if window.remaining < cost:
            return window, False
        window.remaining -= cost
        return window, True

    def peek(self, key: Key, limit: int, window_s: int, now_s: float) -> Window:
        window = self._windows.get(key)
        if window is None or now_s >= window.reset_s:
            return Window(limit, limit, int(now_s) + window_s)
        return window

    def refund(self, key: Key) -> None:
        window = self._windows.get(key)
        if window is not None and window.remaining < window.limit:
            window.remaining += 1

    def reset(self) -> None:
        self._windows.clear()

    def running(self, now_s: float) -> list[tuple[Key, Window]]:
        """The windows not yet reset at `now_s`, as they stand (`GET /_roost/limits` reads them)."""
        return [(key, window) for key, window in list(self._windows.items()) if window.reset_s > now_s]

    def _evict(self, now_s: float) -> None:
        for key in [k for k, w in self._windows.items() if w.reset_s <= now_s]:
            del self._windows[key]


class CountingRateLimiter(RateLimiter):
    """The windows of one of several processes on one database (issue 16): counted in memory as
    `RateLimiter` does, each request's cost also noted for the shared store. A worker hands the noted
    counts to the store a few times a second (`take_counted`) and writes back every process's total
    (`take_shared`), so headers and 429s count the requests to all processes together, a fraction of a
    second behind. The single process keeps the plain `RateLimiter`: nothing changes on its path."""

    def __init__(self, enabled: bool = True) -> None:
        super().__init__(enabled)
        self._counted: dict[Key, int] = {}

    def hit(self, key: Key, limit: int, window_s: int, now_s: float, cost: int = 1) -> tuple[Window, bool]:
        window, allowed = super().hit(key, limit, window_s, now_s, cost)
        if allowed and self.enabled:
            self._counted[key] = self._counted.get(key, 0) + cost
        return window, allowed

    def refund(self, key: Key) -> None:
        super().refund(key)
        if self.enabled and key in self._windows:
            self._counted[key] = self._counted.get(key, 0) - 1

    def reset(self) -> None:
        super().reset()
        self._counted.clear()

    def take_counted(self) -> list[tuple[Key, int, int]]:
        """(key, requests counted here since the last call, reset_s) of every window with any."""
        counted, self._counted = self._counted, {}
        taken = []
        for key, amount in counted.items():
            window = self._windows.get(key)
            if window is not None and amount:
                taken.append((key, amount, window.reset_s))
        return taken

    def take_shared(self, key: Key, used: int, reset_s: int) -> None:
        """Every process's count of a window: what this process's window shows from now on (with the
        requests counted here since the count was taken)."""
        window = self._windows.get(key)
        if window is None:
            return
        since = self._counted.get(key, 0)
        window.reset_s = reset_s
        window.remaining = max(0, window.limit - used - since)
        window.encoded = None  # the cached headers show the old numbers
