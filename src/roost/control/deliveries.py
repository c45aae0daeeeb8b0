"""`GET /_roost/deliveries?webhook_id=`: the delivery rows and their attempts, for tests and tools."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse
from roost.control.state import ServerState
from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.params import MAX_ID
from roost.core.records import Row
from roost.storage.deliveries import DeliveryStore


def _iso(value: Any) -> str | None:
    return iso_ms(int(value)) if value is not None else None


def render_delivery(row: Row) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "webhook_id": str(row["webhook_id"]),
        "event_id": str(row["event_id"]),
        "event_position": int(row["event_position"]),
        "for_user_id": str(row["for_user_id"]),
        "route": row["route"],
        "state": row["state"],
        "attempts": int(row["attempts"]),
        "next_attempt_at": _iso(row["next_attempt_at"]),
        "last_status": row["last_status"],
        "last_latency_ms": row["last_latency_ms"],
        "delivered_at": _iso(row["delivered_at"]),
        "created_at": _iso(row["created_at"]),
        "payload": jsonio.loads(row["body"]),
    }


def delivery_routes(state: ServerState) -> list[BaseRoute]:
    async def deliveries(request: Request) -> Response:
        raw = request.query_params.get("webhook_id")
        # ASCII digits only (`isdigit` alone admits "²"), and no more than a 64-bit id holds.
        numeric = raw is not None and raw.isascii() and raw.isdigit() and len(raw) <= 19
        if raw is not None and not (numeric and int(raw) <= MAX_ID):
            return OrjsonResponse({"error": "webhook_id must be a numeric id"}, status_code=400)
        store = DeliveryStore(state.services.db)
        rows = await store.listing(int(raw) if raw is not None else None)
        data = [render_delivery(row) for row in rows]
        return OrjsonResponse({"data": data, "meta": {"result_count": len(data)}})

    return [Route("/_roost/deliveries", deliveries)]
