"""Control-plane writes that cause activity events where the v2 surface has no endpoint."""

from __future__ import annotations

from starlette.routing import BaseRoute

from roost.control.state import ServerState


def social_routes(state: ServerState) -> list[BaseRoute]:
    return []
