"""Usage, cost and credit (issues 17 and 20): the usage ledger's report, its prices, and each app's
credit, over the control plane.

GET  /_roost/usage[?app_id=ID]   {"data": {"currency", "apps", "days", "total_usd", "prices", "sources"}}
GET  /_roost/prices              {"data": [every price]}
POST /_roost/prices              {"operationId" or "operationId:variant": usd or null (the default), ...}
POST /_roost/apps/credit         {"consumer_key": …, "credit_usd": usd or null (no limit)}

The ledger and the changed prices are in the database, shared by every process (docs/decisions.md,
"The usage ledger").
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse, numeric_id
from roost.core import errors, jsonio
from roost.domain.ledger import Ledger, UnknownApp, checked_usd


def _checked_prices(body: Any, known: frozenset[str]) -> dict[str, float | None]:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object of operation ids to prices (USD) or null is expected")
    changes: dict[str, float | None] = {}
    for operation, usd in body.items():
        if operation not in known:
            raise errors.invalid_body(f"{operation}: not an operation id this server knows")
        try:
            changes[operation] = checked_usd(usd)
        except ValueError:
            raise errors.invalid_body(
                f"{operation}: the price must be a number of dollars, 0 or more, or null"
            ) from None
    return changes


async def _json(request: Request) -> Any:
    body = await request.body()
    try:
        return jsonio.loads(body) if body else None
    except jsonio.JSONDecodeError:
        raise errors.invalid_body("Request body is not valid JSON.") from None


def usage_routes(ledger: Ledger) -> list[BaseRoute]:
    async def usage(request: Request) -> Response:
        raw = request.query_params.get("app_id")
        app_id = numeric_id(raw, "app_id") if raw else None
        return OrjsonResponse({"data": await ledger.report(app_id)})

    async def prices(request: Request) -> Response:
        if request.method == "POST":
            await ledger.set_prices(_checked_prices(await _json(request), ledger.known))
        return OrjsonResponse({"data": ledger.prices()})

    async def credit(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict) or not isinstance(body.get("consumer_key"), str):
            raise errors.invalid_body("consumer_key is required")
        if "credit_usd" not in body:
            raise errors.invalid_body("credit_usd is required: dollars of credit left, or null for no limit")
        try:
            usd = checked_usd(body["credit_usd"])
        except ValueError:
            raise errors.invalid_body("credit_usd must be a number of dollars, 0 or more, or null") from None
        try:
            row = await ledger.set_credit(body["consumer_key"], usd)
        except UnknownApp:
            raise errors.invalid_body("consumer_key must name an existing app") from None
        return OrjsonResponse({"data": row})

    return [
        Route("/_roost/usage", usage),
        Route("/_roost/prices", prices, methods=["GET", "POST"]),
        Route("/_roost/apps/credit", credit, methods=["POST"]),
    ]
