"""`GET /_roost/limits`: the rate-limit windows this process holds now, one per key (read-only).

    {"data": [{"operation", "app_id", "user_id", "limit", "remaining", "reset", "kind", …}]}

A window's key says what it counts and for whom (`platform/pipeline.py`, `ads/pipeline.py`,
`platform/v1.py`, `oauth/limits.py`); `kind` names the shape it came from. Windows already reset by
the server's clock are left out (the next request starts a new one).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse, numeric_id
from roost.core.clock import Clock
from roost.core.ratelimit import Key, RateLimiter, Window


def _id(value: Any) -> str | None:
    return None if value is None else str(value)


def describe(key: Key, window: Window) -> dict[str, Any]:
    """One window as the listing shows it."""
    row: dict[str, Any] = {"kind": "", "operation": "", "app_id": None, "user_id": None}
    head = key[0] if key else ""
    if head in ("24h-app", "24h-user", "ads", "v1.1") and len(key) >= 3:
        # ("24h-app", op, app) ("24h-user", op, app, user) ("ads", op or category, app, user)
        # ("v1.1", path, app, user)
        row.update(kind=head, operation=str(key[1]), app_id=_id(key[2]))
        if len(key) >= 4:
            row["user_id"] = _id(key[3])
    elif head == "ads-account" and len(key) == 3:
        row.update(kind=head, operation=str(key[1]), account_id=_id(key[2]))
    elif len(key) == 3:
        row.update(kind="user", operation=str(head), app_id=_id(key[1]), user_id=_id(key[2]))
    elif len(key) == 2 and isinstance(key[1], int):
        row.update(kind="app", operation=str(head), app_id=_id(key[1]))
    elif len(key) == 2:
        # The OAuth endpoints count per client address, before anyone is identified.
        row.update(kind="oauth", operation=str(head), client=str(key[1]))
    else:
        row.update(kind="other", operation=str(head), key=[_id(part) for part in key])
    row.update(limit=window.limit, remaining=max(window.remaining, 0), reset=window.reset_s)
    return row


def limit_routes(limiter: RateLimiter, clock: Clock) -> list[BaseRoute]:
    async def limits(request: Request) -> Response:
        query = request.query_params
        raw_app = query.get("app_id")
        app_id = str(numeric_id(raw_app, "app_id")) if raw_app else None
        operation = query.get("operation")
        rows = [describe(key, window) for key, window in limiter.running(clock.now())]
        if app_id is not None:
            rows = [row for row in rows if row["app_id"] == app_id]
        if operation:
            rows = [row for row in rows if row["operation"] == operation]
        rows.sort(key=lambda row: (row["operation"], row["app_id"] or "", row["user_id"] or "", row["kind"]))
        return OrjsonResponse({"data": rows, "meta": {"result_count": len(rows)}})

    return [Route("/_roost/limits", limits)]
