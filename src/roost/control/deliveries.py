"""`GET /_roost/deliveries?webhook_id=`: the delivery rows and their attempts, for tests and tools."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse
from roost.core.params import MAX_ID
from roost.events.deliveries import DeliveryRecords


def delivery_routes(records: DeliveryRecords) -> list[BaseRoute]:
    async def deliveries(request: Request) -> Response:
        raw = request.query_params.get("webhook_id")
        # ASCII digits only (`isdigit` alone admits "²"), and no more than a 64-bit id holds.
        numeric = raw is not None and raw.isascii() and raw.isdigit() and len(raw) <= 19
        if raw is not None and not (numeric and int(raw) <= MAX_ID):
            return OrjsonResponse({"error": "webhook_id must be a numeric id"}, status_code=400)
        data = await records.listing(int(raw) if raw is not None else None)
        return OrjsonResponse({"data": data, "meta": {"result_count": len(data)}})

    return [Route("/_roost/deliveries", deliveries)]
