"""Webhook actions the console's buttons call (and any tool may):

POST /_roost/deliveries/{id}/retry            send a delivered or failed delivery again now
POST /_roost/webhooks/{id}/replay  {"from": RFC 3339, "to": RFC 3339}
                                              a replay job for the window, as POST /2/webhooks/replay
                                              would make for the webhook's own app
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse, numeric_id
from roost.control.state import ServerState
from roost.core import errors, jsonio
from roost.core.clock import parse_rfc3339
from roost.events.deliveries import render_delivery


def _instant(body: dict[str, object], name: str) -> int:
    raw = body.get(name)
    epoch_ms = parse_rfc3339(raw) if isinstance(raw, str) else None
    if epoch_ms is None:
        raise errors.invalid_body(f"{name} must be an RFC 3339 time such as 2024-05-01T12:00:00Z")
    return epoch_ms


def delivery_action_routes(state: ServerState) -> list[BaseRoute]:
    console = state.domain.console

    async def retry(request: Request) -> Response:
        delivery_id = numeric_id(request.path_params["delivery_id"], "id")
        retried, row = await console.retry_delivery(delivery_id)
        if row is None:
            return OrjsonResponse({"error": f"no delivery {delivery_id}"}, status_code=404)
        if not retried:
            return OrjsonResponse(
                {"error": f"delivery {delivery_id} is {row['state']}: only a settled one is sent again"},
                status_code=409,
            )
        state.wake_workers()  # the dispatcher sends it in its next round, not at its next tick
        return OrjsonResponse({"data": render_delivery(row)})

    async def replay(request: Request) -> Response:
        webhook_id = numeric_id(request.path_params["webhook_id"], "webhook id")
        try:
            body = jsonio.loads(await request.body() or b"{}")
        except jsonio.JSONDecodeError:
            raise errors.invalid_body("Request body is not valid JSON.") from None
        if not isinstance(body, dict):
            raise errors.invalid_body("$: a JSON object with from and to is expected")
        job = await console.replay(webhook_id, _instant(body, "from"), _instant(body, "to"))
        return OrjsonResponse({"data": job})

    return [
        Route("/_roost/deliveries/{delivery_id}/retry", retry, methods=["POST"]),
        Route("/_roost/webhooks/{webhook_id}/replay", replay, methods=["POST"]),
    ]
