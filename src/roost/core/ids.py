"""Identifiers: snowflakes on the platform epoch, media keys, opaque tokens from a seeded source."""

from __future__ import annotations

import random
import string

from roost.core.clock import Clock

PLATFORM_EPOCH_MS = 1288834974657
MAX_SNOWFLAKE = (1 << 63) - 1

# media_key prefixes by media type, as the platform writes them.
MEDIA_TYPE_DIGITS = {"photo": 3, "video": 7, "animated_gif": 16, "amplify_video": 13}

_TOKEN_ALPHABET = string.ascii_letters + string.digits


class SnowflakeGenerator:
    """64-bit ids: 41 bits of ms since the platform epoch, 5 datacenter, 5 worker, 12 sequence.

    Ids are strictly increasing within a process even if the clock is moved backwards.
    """

    def __init__(self, clock: Clock, datacenter: int = 1, worker: int = 1) -> None:
        self._clock = clock
        self._node = ((datacenter & 0x1F) << 17) | ((worker & 0x1F) << 12)
        self._last = 0

    def next_id(self) -> int:
        candidate = ((self._clock.now_ms() - PLATFORM_EPOCH_MS) << 22) | self._node
        if candidate <= self._last:
            # Same (or an earlier) millisecond: next sequence number, and once the 12 sequence bits
            # are used up, the next millisecond, so the datacenter and worker bits stay intact.
            millis = self._last >> 22
            sequence = (self._last & 0xFFF) + 1
            if sequence > 0xFFF or (self._last & 0x3FF000) != self._node:
                millis, sequence = millis + 1, 0
            candidate = (millis << 22) | self._node | sequence
        self._last = candidate
        return candidate

    def use_datacenter(self, datacenter: int) -> None:
        """Make ids with these datacenter bits from now on (a process's own slot, issue 16)."""
        self._node = ((datacenter & 0x1F) << 17) | (self._node & 0x1F000)

    def observe(self, existing_id: int) -> None:
        """Never hand out an id at or below one already stored (imports, restarts)."""
        self._last = max(self._last, existing_id)


def snowflake_ms(snowflake: int) -> int:
    return (snowflake >> 22) + PLATFORM_EPOCH_MS


def snowflake_floor(epoch_ms: int) -> int:
    """The smallest snowflake created at or after epoch_ms (for time-bounded id ranges)."""
    return max(0, epoch_ms - PLATFORM_EPOCH_MS) << 22


def media_key(media_type: str, media_id: int) -> str:
    return f"{MEDIA_TYPE_DIGITS.get(media_type, 3)}_{media_id}"


class TokenSource:
    """Random strings for tokens and secrets; seedable so demo data and tests are reproducible."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed) if seed is not None else random.SystemRandom()

    def token(self, length: int = 40, alphabet: str = _TOKEN_ALPHABET) -> str:
        choice = self._random.choice
        return "".join(choice(alphabet) for _ in range(length))

    def randint(self, low: int, high: int) -> int:
        return self._random.randint(low, high)
