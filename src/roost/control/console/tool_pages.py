"""The console's pages driven by their script over the control plane's JSON: limits, usage and cost
(`/_roost/limits`, `/_roost/usage`, `/_roost/prices`), and the clock and fault rules
(`/_roost/clock`, `/_roost/faults`). A missing endpoint shows as a note, not a broken page."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.console.base import PREFIX, allowed_keys, console_page, render
from roost.control.state import ServerState
from roost.core.clock import iso_ms

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "*")


def tool_routes(state: ServerState) -> list[BaseRoute]:
    @console_page
    async def limits(request: Request) -> Response:
        allowed_keys(request.query_params, ())
        return render(request, "limits.html", title="Limits, usage and cost")

    @console_page
    async def clock(request: Request) -> Response:
        allowed_keys(request.query_params, ())
        now = iso_ms(state.domain.maintenance.now_ms())
        return render(request, "clock.html", title="Clock and faults", now=now, methods=METHODS)

    return [Route(PREFIX + "/limits", limits), Route(PREFIX + "/clock", clock)]
