"""The one pagination-token codec: opaque, checksummed tokens that carry a cursor id and direction,
and `PageToken`, the value every paged operation's `pagination_token` (or `next_token`) parameter
becomes: the domain, which knows the list, decodes it for that list's scope."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from roost.core import errors
from roost.core.errors import ParamError

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


def encode_key(key: str, scope: str = "") -> str:
    """Token for "continue after this key" in lists ordered by something other than one id
    (connections: connected time and uuid)."""
    check = _check(0, NEXT, f"{scope}:{key}")
    return base64.urlsafe_b64encode(f"{check:x}:{key}".encode()).decode("ascii").rstrip("=")


@dataclass(frozen=True, slots=True)
class PageToken:
    """A pagination token as the request gave it, under the parameter that carried it."""

    name: str
    raw: str

    def invalid(self, message: str | None = None) -> errors.ApiError:
        text = message or f"The `{self.name}` query parameter value [{self.raw}] is not a valid token"
        return errors.invalid_request([errors.param_error(self.name, self.raw, text)])

    def position(self, scope: str) -> tuple[int, int]:
        """(cursor, direction) of a token made for `scope`; anything else is the platform's 400."""
        try:
            return decode(self.name, self.raw, scope)
        except ParamError as exc:
            raise self.invalid(exc.message) from None

    def following(self, scope: str) -> int:
        """The cursor of a forward-only token (`next_token`): a backward one is not valid here."""
        cursor, direction = self.position(scope)
        if direction != NEXT:
            raise self.invalid()
        return cursor

    def offset(self, scope: str, base: int) -> int:
        """An offset into a list, carried as `base + offset` so it cannot pass for an id cursor."""
        cursor, _ = self.position(scope)
        if cursor < base:
            raise self.invalid()
        return cursor - base

    def key(self, scope: str) -> str:
        """The key of an `encode_key` token made for `scope`."""
        try:
            text = base64.urlsafe_b64decode(self.raw + "=" * (-len(self.raw) % 4)).decode("ascii")
            check, _, key = text.partition(":")
            if key and int(check, 16) == _check(0, NEXT, f"{scope}:{key}"):
                return key
        except (ValueError, UnicodeError):
            pass
        raise self.invalid()
