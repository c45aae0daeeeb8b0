"""The one pagination-token codec: opaque, checksummed tokens that carry a cursor id and direction."""

from __future__ import annotations

import hashlib

from roost.core.params import ParamError

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
NEXT = 0
PREVIOUS = 1


def _base36(number: int) -> str:
    out = []
    while number:
        number, rest = divmod(number, 36)
        out.append(_DIGITS[rest])
    return "".join(reversed(out)) or "0"


def _check(cursor: int, direction: int, scope: str) -> int:
    digest = hashlib.blake2s(f"{scope}:{direction}:{cursor}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big")


def encode(cursor: int, direction: int = NEXT, scope: str = "") -> str:
    """Token for "continue from cursor" in the given direction; scope ties it to one kind of list."""
    payload = (cursor << 33) | (direction << 32) | _check(cursor, direction, scope)
    return _base36(payload)


def decode(name: str, token: str, scope: str = "") -> tuple[int, int]:
    """(cursor, direction); a token that was not made here for this scope is refused."""
    invalid = ParamError(f"The `{name}` query parameter value [{token}] is not a valid token")
    if not token or len(token) > 40 or token.strip(_DIGITS) or token[0] == "0":
        raise invalid
    payload = int(token, 36)
    checksum = payload & 0xFFFFFFFF
    direction = (payload >> 32) & 1
    cursor = payload >> 33
    if cursor >= 1 << 63 or checksum != _check(cursor, direction, scope):
        raise invalid
    return cursor, direction
