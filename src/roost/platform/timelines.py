"""Reverse-chronological pages with the platform's meta (newest_id, oldest_id, next/previous tokens)."""

from __future__ import annotations

from typing import Any

from roost.core import pagination
from roost.core.clock import minute_text
from roost.core.errors import invalid_request, param_error
from roost.core.params import IntRange, Param, ParamError, Snowflake, Timestamp, Token
from roost.core.pipeline import Call, Objects
from roost.domain.lookup import hidden_authors, visible_post
from roost.storage.posts import MAX_ID

# Timelines reach back to 2010-11-06 (the spec's "Must be on or after 2010-11-06" on both times).
EARLIEST_MS = 1_289_001_600_000

TIMELINE_PARAMS = (
    Param("since_id", Snowflake()),
    Param("until_id", Snowflake()),
    Param("max_results", IntRange(5, 100), default=10),
    Param("pagination_token", Token()),
    Param("start_time", Timestamp()),
    Param("end_time", Timestamp()),
)


async def timeline_page(call: Call, scope: str, **where: Any) -> Objects:
    params = call.params
    limit = params["max_results"]
    since_id = params.get("since_id", 0)
    until_id = params.get("until_id", MAX_ID)
    token = params.get("pagination_token")
    direction = pagination.NEXT
    if token is not None:
        try:
            cursor, direction = pagination.decode("pagination_token", token, scope)
        except ParamError as exc:
            raise invalid_request([param_error("pagination_token", token, exc.message)]) from None
        if direction == pagination.NEXT:
            until_id = min(until_id, cursor)
        else:
            since_id = max(since_id, cursor)
    for name in ("start_time", "end_time"):
        if params.get(name, EARLIEST_MS) < EARLIEST_MS:
            message = (
                f"Invalid '{name}':'{minute_text(params[name])}'. '{name}' must be on or after "
                f"{minute_text(EARLIEST_MS)}"
            )
            raise invalid_request([param_error(name, call.raw[name], message)])
    rows = await call.services.posts.timeline(
        since_id=since_id,
        until_id=until_id,
        # An id bound takes precedence over the time bound on the same side (the spec says so).
        start_ms=0 if "since_id" in params else params.get("start_time", 0),
        end_ms=MAX_ID if "until_id" in params else params.get("end_time", MAX_ID),
        limit=limit + 1,
        ascending=direction == pagination.PREVIOUS,
        **where,
    )
    more = len(rows) > limit
    rows = rows[:limit]
    hidden = await hidden_authors(call.services, call.principal.user_id, (row["author_id"] for row in rows))
    rows = [row for row in rows if visible_post(row) and row["author_id"] not in hidden]
    if direction == pagination.PREVIOUS:
        rows.reverse()
    meta: dict[str, Any] = {"result_count": len(rows)}
    if rows:
        meta = {"result_count": len(rows), "newest_id": str(rows[0]["id"]), "oldest_id": str(rows[-1]["id"])}
        if more or direction == pagination.PREVIOUS:
            meta["next_token"] = pagination.encode(rows[-1]["id"], pagination.NEXT, scope)
        if token is not None and (direction == pagination.NEXT or more):
            meta["previous_token"] = pagination.encode(rows[0]["id"], pagination.PREVIOUS, scope)
    return Objects(rows, meta=meta)
