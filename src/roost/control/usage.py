"""Usage and cost: requests counted per (app, UTC day, operation) from the request journal, priced
at the platform's published pay-per-use prices (`control/price_list.py`), editable at run time.

GET  /_roost/usage[?app_id=ID]   {"data": {"currency", "prices", "days", "total_usd"}}
POST /_roost/prices              {"operationId": usd or null (the default again), ...}

Counts are this process's, in memory, since it started (docs/decisions.md, "Usage and cost").
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.price_list import SOURCES, Price, default_prices
from roost.control.routes import OrjsonResponse, numeric_id
from roost.core import errors, jsonio
from roost.core.journal import Entry

DAY_MS = 86_400_000
SET_AT_RUN_TIME = "priced at run time (POST /_roost/prices)"


class UsageMeter:
    """A journal listener: per (UTC day, app, operation), the requests and the billed ones (answered
    below 400: the platform charges for what it returns, not for refusals). Requests without an app
    (no credentials) or an operation (the OAuth pages) are not counted."""

    def __init__(self, known: Iterable[str] = (), defaults: dict[str, Price] | None = None) -> None:
        self._defaults = default_prices() if defaults is None else defaults
        self.known = frozenset(known) | frozenset(self._defaults)
        self._custom: dict[str, float] = {}
        self._counts: dict[tuple[str, int, str], list[int]] = {}  # [requests, billed]
        self._day_number = -1
        self._day = ""

    def __call__(self, entry: Entry) -> None:
        app, operation = entry[9], entry[7]
        if app is None or not operation:
            return
        day_number = entry[1] // DAY_MS
        if day_number != self._day_number:  # the day's text, made once a day
            self._day_number = day_number
            self._day = time.strftime("%Y-%m-%d", time.gmtime(day_number * 86_400))
        key = (self._day, app, operation)
        counts = self._counts.get(key)
        if counts is None:
            counts = self._counts[key] = [0, 0]
        counts[0] += 1
        if entry[5] < 400:
            counts[1] += 1

    # ---- prices --------------------------------------------------------------------------------

    def price(self, operation: str) -> float:
        custom = self._custom.get(operation)
        if custom is not None:
            return custom
        default = self._defaults.get(operation)
        return default.usd if default is not None else 0.0

    def set_prices(self, changes: dict[str, float | None]) -> None:
        """Apply checked changes: a price, or None for the default again."""
        for operation, usd in changes.items():
            if usd is None:
                self._custom.pop(operation, None)
            else:
                self._custom[operation] = usd

    def prices(self) -> list[dict[str, Any]]:
        listed = [*self._defaults, *sorted(op for op in self._custom if op not in self._defaults)]
        out = []
        for operation in listed:
            default = self._defaults.get(operation)
            out.append(
                {
                    "operation": operation,
                    "usd": self.price(operation),
                    "per": default.per if default is not None else "request",
                    "category": default.category if default is not None else None,
                    "default_usd": default.usd if default is not None else 0.0,
                    "custom": operation in self._custom,
                    "source": default.source if default is not None else None,
                    "note": default.note if default is not None else SET_AT_RUN_TIME,
                }
            )
        return out

    # ---- the report ----------------------------------------------------------------------------

    def report(self, app_id: int | None = None) -> dict[str, Any]:
        days: dict[tuple[str, int], dict[str, Any]] = {}
        total = 0.0
        for (day, app, operation), (requests, billed) in sorted(self._counts.items()):
            if app_id is not None and app != app_id:
                continue
            cost = billed * self.price(operation)
            row = days.get((day, app))
            if row is None:
                row = days[(day, app)] = {
                    "day": day,
                    "app_id": str(app),
                    "requests": 0,
                    "billed": 0,
                    "cost_usd": 0.0,
                    "by_operation": {},
                }
            row["requests"] += requests
            row["billed"] += billed
            row["cost_usd"] += cost
            row["by_operation"][operation] = {"requests": requests, "billed": billed, "cost_usd": _usd(cost)}
            total += cost
        for row in days.values():
            row["cost_usd"] = _usd(row["cost_usd"])
        return {
            "currency": "USD",
            "prices": self.prices(),
            "days": list(days.values()),
            "total_usd": _usd(total),
            "sources": SOURCES,
        }


def _usd(value: float) -> float:
    return round(value, 6)  # a millionth of a dollar: the float sums' noise stays out of view


def _checked_prices(body: Any, known: frozenset[str]) -> dict[str, float | None]:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object of operation ids to prices (USD) or null is expected")
    changes: dict[str, float | None] = {}
    for operation, usd in body.items():
        if operation not in known:
            raise errors.invalid_body(f"{operation}: not an operation id this server knows")
        if usd is None:
            changes[operation] = None
            continue
        if not isinstance(usd, int | float) or isinstance(usd, bool) or not math.isfinite(usd) or usd < 0:
            raise errors.invalid_body(
                f"{operation}: the price must be a number of dollars, 0 or more, or null"
            )
        changes[operation] = float(usd)
    return changes


def usage_routes(meter: UsageMeter) -> list[BaseRoute]:
    async def usage(request: Request) -> Response:
        raw = request.query_params.get("app_id")
        app_id = numeric_id(raw, "app_id") if raw else None
        return OrjsonResponse({"data": meter.report(app_id)})

    async def prices(request: Request) -> Response:
        if request.method == "GET":
            return OrjsonResponse({"data": meter.prices()})
        body = await request.body()
        try:
            parsed = jsonio.loads(body) if body else None
        except jsonio.JSONDecodeError:
            raise errors.invalid_body("Request body is not valid JSON.") from None
        meter.set_prices(_checked_prices(parsed, meter.known))
        return OrjsonResponse({"data": meter.prices()})

    return [
        Route("/_roost/usage", usage),
        Route("/_roost/prices", prices, methods=["GET", "POST"]),
    ]
