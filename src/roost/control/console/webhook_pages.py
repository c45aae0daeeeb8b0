"""The console's webhooks page: every webhook with its CRC state and replay jobs, and one webhook's
newest deliveries (attempts, status, latency, body) with a retry button on each and a form that
replays a window (`control/delivery_actions.py` answers both)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.console.base import (
    PREFIX,
    allowed_keys,
    bounded,
    console_page,
    optional_id,
    render,
    required_id,
)
from roost.control.state import ServerState
from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.records import Row

DELIVERIES_PER_PAGE = 50


def _iso(value: Any) -> str:
    return "" if value is None else iso_ms(int(value))


def webhook_item(row: Row, replays: list[Row]) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "app_id": str(row["app_id"]),
        "url": row["url"],
        "valid": bool(row["valid"]),
        "created_at": _iso(row["created_at"]),
        "validated_at": _iso(row["validated_at"]),
        "crc_attempted_at": _iso(row["crc_attempted_at"]),
        "replays": [
            {
                "id": str(job["id"]),
                "from": _iso(job["from_ms"]),
                "to": _iso(job["to_ms"]),
                "state": job["state"],
                "created_at": _iso(job["created_at"]),
                "finished_at": _iso(job["finished_at"]),
            }
            for job in replays
        ],
    }


def crc_item(row: Row) -> dict[str, Any]:
    return {
        "at": _iso(row["at_ms"]),
        "passed": bool(row["passed"]),
        "detail": row["detail"],
        "trigger": row["trigger"],
    }


def delivery_item(row: Row) -> dict[str, Any]:
    body = row["body"]
    try:
        shown = jsonio.loads(body)
    except jsonio.JSONDecodeError:
        shown = body
    return {
        "id": str(row["id"]),
        "event_id": str(row["event_id"]),
        "route": row["route"],
        "state": row["state"],
        "attempts": int(row["attempts"]),
        "last_status": row["last_status"],
        "last_latency_ms": row["last_latency_ms"],
        "created_at": _iso(row["created_at"]),
        "delivered_at": _iso(row["delivered_at"]),
        "next_attempt_at": _iso(row["next_attempt_at"]) if row["state"] == "pending" else "",
        "body": shown,
    }


def webhook_routes(state: ServerState) -> list[BaseRoute]:
    console = state.domain.console

    @console_page
    async def listing(request: Request) -> Response:
        allowed_keys(request.query_params, ())
        views = await console.webhooks()
        return render(
            request,
            "webhooks.html",
            title="Webhooks and deliveries",
            webhooks=[webhook_item(view.row, view.replays) for view in views],
        )

    @console_page
    async def one(request: Request) -> Response:
        query = request.query_params
        allowed_keys(query, ("before", "limit"))
        webhook_id = required_id(request.path_params["webhook_id"], "webhook id")
        limit = bounded(query.get("limit"), "limit", DELIVERIES_PER_PAGE, 1, 500)
        views = {str(view.row["id"]): view for view in await console.webhooks()}
        view = views.get(str(webhook_id))
        if view is None:
            return render(request, "error.html", 404, title="Not found", message=f"no webhook {webhook_id}")
        rows = await console.deliveries(webhook_id, optional_id(query.get("before"), "before"), limit)
        checks = [crc_item(check) for check in await console.crc_checks(webhook_id)]
        return render(
            request,
            "webhook.html",
            title=f"Webhook {webhook_id}",
            hook=webhook_item(view.row, view.replays),
            checks=checks,
            deliveries=[delivery_item(row) for row in rows],
            older=str(rows[-1]["id"]) if len(rows) == limit else None,
            now=iso_ms(state.domain.maintenance.now_ms()),
        )

    return [
        Route(PREFIX + "/webhooks", listing),
        Route(PREFIX + "/webhooks/{webhook_id}", one),
    ]
