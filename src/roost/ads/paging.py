"""Results and cursors of the ads surface: the envelope's `data`, `next_cursor`, `total_count`."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from roost.ads import errors
from roost.ads.ids import base36, from_base36


@dataclass(slots=True)
class AdsResult:
    """What a handler returns. `paged` puts `next_cursor` in the envelope (null on the last page)."""

    data: Any
    paged: bool = False
    next_cursor: str | None = None
    total_count: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. `data_type`
    status: int | None = None
    request: Any = None  # replaces `{"params": echo}` (batch responses echo each item)
    without_data: bool = False  # answers with no `data` at all (a draft post's preview)


def encode_cursor(offset: int) -> str:
    """Opaque: the offset with a check so a made-up cursor is refused instead of misread."""
    check = zlib.crc32(str(offset).encode()) % 1296
    return base36(offset) + "-" + base36(check).rjust(2, "0")


def decode_cursor(raw: str | None) -> int:
    if not raw:
        return 0
    body, sep, _ = raw.rpartition("-")
    offset = from_base36(body) if sep else None
    if offset is None or offset < 0 or encode_cursor(offset) != raw:
        raise errors.invalid_parameter("cursor", f'Expected cursor, got "{raw}" for cursor')
    return offset


def page_window(params: dict[str, Any]) -> tuple[int, int]:
    """(offset, count) of a list request; `with_total_count` and `cursor` are exclusive."""
    if params.get("with_total_count") and params.get("cursor"):
        raise errors.exclusive("with_total_count", "cursor")
    return decode_cursor(params.get("cursor")), int(params.get("count") or 200)


def page_of(items: Sequence[Any], params: dict[str, Any]) -> AdsResult:
    """One page of an in-memory list (reference data)."""
    offset, count = page_window(params)
    chunk = list(items[offset : offset + count])
    following = offset + count if offset + count < len(items) else None
    return AdsResult(
        chunk,
        paged=True,
        next_cursor=encode_cursor(following) if following is not None else None,
        total_count=len(items) if params.get("with_total_count") else None,
    )


def stored_page(
    rows: Sequence[Any], offset: int, count: int, total: int | None, params: dict[str, Any]
) -> AdsResult:
    """A page read from storage with one extra row fetched to know whether another page follows."""
    more = len(rows) > count
    return AdsResult(
        list(rows[:count]),
        paged=True,
        next_cursor=encode_cursor(offset + count) if more else None,
        total_count=total if params.get("with_total_count") else None,
    )
