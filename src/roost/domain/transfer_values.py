"""What every import section checks the same way: its items, ids and times."""

from __future__ import annotations

from typing import Any

from roost.core import errors
from roost.core.clock import parse_rfc3339


def section_items(payload: dict[str, Any], section: str) -> list[dict[str, Any]]:
    """The objects of one section of an import payload (absent: none; not a list: the 400)."""
    items = payload.get(section) or []
    if not isinstance(items, list):
        raise errors.invalid_body(f"$.{section}: array expected")
    return [item for item in items if isinstance(item, dict)]


def import_id(value: Any, what: str) -> int:
    """A positive 63-bit id given as digits (a string or an integer), else the 400 naming `what`."""
    text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if not (text.isascii() and text.isdigit() and 0 < int(text) < 1 << 63):
        raise errors.invalid_body(f"{what}: [{value}] is not a valid id")
    return int(text)


def import_time(value: Any, fallback_ms: int) -> int:
    """An RFC 3339 time in epoch milliseconds, or `fallback_ms` when absent or unreadable."""
    parsed = parse_rfc3339(value) if isinstance(value, str) else None
    return parsed if parsed is not None else fallback_ms
