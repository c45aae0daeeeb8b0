"""The console's streams page: each app's filtered-stream rules and open connections (with a button
that ends one, as `DELETE /2/connections` would), and a live view of the event log the streams read
(server-sent events from `EventTap`: no connection slot taken, bounded in time and events)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from roost.control.console.base import (
    PREFIX,
    BadParam,
    allowed_keys,
    console_page,
    form,
    render,
    required_id,
)
from roost.control.state import ServerState
from roost.core import jsonio
from roost.core.clock import iso_ms

RULES_LISTED = 100
LIVE_SECONDS = 120.0  # one view's length; the page's Follow button opens another
LIVE_EVENTS = 1000


def stream_routes(state: ServerState) -> list[BaseRoute]:
    domain = state.domain

    @console_page
    async def page(request: Request) -> Response:
        allowed_keys(request.query_params, ())
        apps: list[dict[str, Any]] = []
        for app in await domain.console.apps():
            app_id = int(app["id"])
            rules = await domain.stream_rules.listing(app_id, None, RULES_LISTED, None)
            connections = await domain.connections.active_rows(app_id)
            apps.append(
                {
                    "id": str(app_id),
                    "name": app["name"],
                    "rules": rules.get("data", []),
                    "connections": [
                        {
                            "id": str(row["id"]),
                            "endpoint": row["endpoint"],
                            "connected_at": iso_ms(int(row["connected_at"])),
                            "client_ip": row.get("client_ip") or "",
                        }
                        for row in connections
                    ],
                }
            )
        return render(request, "streams.html", title="Streams", apps=apps)

    @console_page
    async def close(request: Request) -> Response:
        fields = await form(request)
        app_id = required_id(fields.get("app_id"), "app_id")
        connection = fields.get("connection_id", "")
        if not connection or len(connection) > 100:
            raise BadParam("connection_id is required")
        await domain.connections.terminate(app_id, [connection])
        return render(
            request, "closed.html", title="Connection closed", connection=connection, app_id=str(app_id)
        )

    async def live(request: Request) -> Response:
        if request.query_params:
            return Response("this stream takes no parameters", status_code=400, media_type="text/plain")

        async def lines() -> AsyncIterator[bytes]:
            yield b"retry: 3000\n\n"
            async for batch in domain.console_tap.follow(LIVE_SECONDS, LIVE_EVENTS):
                if not batch:
                    yield b": keep-alive\n\n"
                for event in batch:
                    yield b"event: event\ndata: " + jsonio.dumps(event) + b"\n\n"
            yield b"event: end\ndata: {}\n\n"

        headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
        return StreamingResponse(lines(), media_type="text/event-stream", headers=headers)

    return [
        Route(PREFIX + "/streams", page),
        Route(PREFIX + "/streams/close", close, methods=["POST"]),
        Route(PREFIX + "/streams/live", live),
    ]
