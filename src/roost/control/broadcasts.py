"""Control-plane write for broadcasts: the platform ends a broadcast when its broadcaster stops the
stream, which no API operation does.

- POST /_roost/broadcasts/{id}/end: a running broadcast ends now (`broadcast.end`); a scheduled one is
  cancelled (no event: it never started). `ended_now` is false when it had ended already.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse
from roost.control.state import ServerState
from roost.domain.broadcast_bodies import scheduled_view


def broadcast_routes(state: ServerState) -> list[BaseRoute]:
    broadcasts = state.domain.broadcasts

    async def end(request: Request) -> Response:
        row, ended = await broadcasts.end(request.path_params["broadcast_id"])
        return OrjsonResponse({**scheduled_view(row), "user_id": str(row["user_id"]), "ended_now": ended})

    return [Route("/_roost/broadcasts/{broadcast_id}/end", end, methods=["POST"])]
