"""A page of a list as the domain hands it to a handler, and the offset paging of lists that are
not ordered by id (follows, likes): tokens carry an offset lifted above any id cursor, so every
token is at least the 16 characters the platform's tokens (and the official document) have."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from roost.core import pagination
from roost.core.pagination import PageToken
from roost.core.records import Row

OFFSET_BASE = 1 << 50


@dataclass(slots=True)
class Page:
    """Rows for the fields engine, the list's meta (None: no meta member) and partial errors."""

    rows: list[Row]
    meta: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)


def offset_of(token: PageToken | None, scope: str) -> int:
    return 0 if token is None else token.offset(scope, OFFSET_BASE)


def offset_page(rows: list[Row], shown: list[Row], offset: int, limit: int, scope: str) -> Page:
    """`rows` read with one more than `limit` (so a following page is known), `shown` what of them
    the viewer sees: next_token when more rows follow, previous_token after the first page."""
    meta: dict[str, Any] = {"result_count": len(shown)}
    if len(rows) > limit:
        meta["next_token"] = pagination.encode(OFFSET_BASE + offset + limit, pagination.NEXT, scope)
    if offset > 0:
        back = max(0, offset - limit)
        meta["previous_token"] = pagination.encode(OFFSET_BASE + back, pagination.PREVIOUS, scope)
    return Page(shown, meta)
