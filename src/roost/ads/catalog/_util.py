"""Shared helpers for the reference catalogs: stable values and name matching."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable

_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_WORD_START = re.compile(r"(?:^|[^0-9a-z])(?=[0-9a-z])")


def hex_value(*parts: str) -> str:
    """16 lowercase hex chars derived from an identity, so values survive table reordering."""
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def base36(n: int) -> str:
    if n < 0:
        raise ValueError("negative")
    if n == 0:
        return "0"
    out = []
    while n:
        n, r = divmod(n, 36)
        out.append(_B36[r])
    return "".join(reversed(out))


def seeded(*parts: str) -> random.Random:
    """A generator seeded from an identity: figures differ per item yet never between runs."""
    return random.Random(int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:16], 16))


def fold(text: str) -> str:
    return text.casefold().strip()


def name_matches(name: str, q: str | None) -> bool:
    """Case-insensitive match of q at the start of the name or of any word in it."""
    if not q:
        return True
    needle = fold(q)
    hay = fold(name)
    if not needle:
        return True
    if hay.startswith(needle):
        return True
    return any(hay.startswith(needle, m.end()) for m in _WORD_START.finditer(hay))


def codes(values: str | Iterable[str] | None) -> set[str] | None:
    """Normalise a code filter given as one code or several into an upper-case set."""
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    return {v.strip().upper() for v in values if v and v.strip()}
