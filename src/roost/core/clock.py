"""The one source of time. Tests and the control plane move it; nothing else calls time.time()."""

from __future__ import annotations

import time
from datetime import UTC, datetime


class Clock:
    """Wall clock plus an adjustable offset, or a frozen instant.

    Advancing keeps the clock running from the new point; freezing pins it (useful in unit tests).
    """

    __slots__ = ("_frozen_ms", "_offset_ms")

    def __init__(self, offset_ms: int = 0, frozen_ms: int | None = None) -> None:
        self._offset_ms = offset_ms
        self._frozen_ms = frozen_ms

    def now_ms(self) -> int:
        if self._frozen_ms is not None:
            return self._frozen_ms
        return int(time.time() * 1000) + self._offset_ms

    def now(self) -> float:
        return self.now_ms() / 1000.0

    def advance(self, seconds: float) -> None:
        delta = round(seconds * 1000)
        if self._frozen_ms is not None:
            self._frozen_ms += delta
        else:
            self._offset_ms += delta

    def set(self, at_ms: int) -> None:
        if self._frozen_ms is not None:
            self._frozen_ms = at_ms
        else:
            self._offset_ms = at_ms - int(time.time() * 1000)

    def freeze(self, at_ms: int | None = None) -> None:
        self._frozen_ms = self.now_ms() if at_ms is None else at_ms

    def unfreeze(self) -> None:
        """Run again from the frozen instant (nothing is skipped)."""
        if self._frozen_ms is not None:
            self._offset_ms = self._frozen_ms - int(time.time() * 1000)
            self._frozen_ms = None

    @property
    def frozen(self) -> bool:
        return self._frozen_ms is not None

    def snapshot(self) -> str:
        """The clock's setting as text other processes can `restore`: its offset from the wall clock
        (processes of one machine share the wall clock), or the frozen instant."""
        if self._frozen_ms is not None:
            return f"frozen:{self._frozen_ms}"
        return f"offset:{self._offset_ms}"

    def restore(self, snapshot: str) -> bool:
        """Take the setting a `snapshot` describes; False (and no change) for text that is not one."""
        kind, _, amount = snapshot.partition(":")
        if not amount.lstrip("-").isdigit():
            return False
        if kind == "frozen":
            self._frozen_ms = int(amount)
        elif kind == "offset":
            self._frozen_ms, self._offset_ms = None, int(amount)
        else:
            return False
        return True


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


_DAYS: dict[int, str] = {}  # day number since the epoch -> "YYYY-MM-DDT"
_HOURS_MINUTES = tuple(f"{hour:02d}:{minute:02d}:" for hour in range(24) for minute in range(60))
_SECONDS = tuple(f"{second:02d}" for second in range(60))
_MILLIS = tuple(f".{millis:03d}Z" for millis in range(1000))


def iso_ms(epoch_ms: int) -> str:
    """v2 timestamps: ISO 8601 UTC with milliseconds, e.g. 2021-10-07T07:41:18.000Z.

    Every rendered post has one, so the date part is formatted once per day and the time of day is
    put together from precomputed pieces (a third of the cost of formatting it)."""
    day, in_day = divmod(epoch_ms, 86_400_000)
    date = _DAYS.get(day)
    if date is None:
        date = time.strftime("%Y-%m-%dT", time.gmtime(day * 86_400))
        if len(_DAYS) >= 100_000:
            _DAYS.clear()
        _DAYS[day] = date
    minutes, in_minute = divmod(in_day, 60_000)
    second, millis = divmod(in_minute, 1000)
    return "".join((date, _HOURS_MINUTES[minutes], _SECONDS[second], _MILLIS[millis]))


def minute_text(epoch_ms: int) -> str:
    """Times echoed in the platform's time-window errors: `2021-03-30T18:18Z` (minute precision)."""
    return time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime(epoch_ms // 1000))


def parse_rfc3339(value: str) -> int | None:
    """Epoch ms for an RFC 3339 timestamp (`YYYY-MM-DDTHH:mm:ssZ`, fractions and offsets allowed)."""
    text = value.strip()
    if len(text) < 20 or text[10] not in "Tt":
        return None
    if text[-1] in "zZ":
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    # Integer arithmetic: going through a float timestamp loses a millisecond now and then.
    delta = parsed.astimezone(UTC) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
