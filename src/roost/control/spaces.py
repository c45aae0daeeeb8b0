"""Control-plane writes for Spaces and compliance (the platform has no write endpoint for them).

- POST /_roost/spaces: a Space, live now (`spaces.start`) or scheduled (`scheduled_start`); body
  {creator_id, title?, scheduled_start?, lang?, is_ticketed?, host_ids?, speaker_ids?,
  invited_user_ids?, topic_ids?, participant_count?, subscriber_count?}.
- PATCH /_roost/spaces/{id}: change a scheduled or live Space (the same fields but creator and
  ticketing).
- POST /_roost/spaces/{id}/start: a scheduled Space goes live (`spaces.start`).
- POST /_roost/spaces/{id}/end: a live Space ends (`spaces.end`); a scheduled one is cancelled.
- POST /_roost/spaces/{id}/tickets {user_id}: a user buys a ticket to a ticketed Space.
- POST /_roost/users/{id}/standing {suspended?, deactivated?, scrub_geo?}: what compliance jobs
  report of an account and its posts.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse, _json, numeric_id
from roost.control.state import ServerState
from roost.core import errors
from roost.core.clock import iso_ms
from roost.core.records import Row
from roost.domain.space_objects import id_list


def _time(value: int | None) -> str | None:
    return None if value is None else iso_ms(value)


def space_view(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "state": row["state"],
        "creator_id": str(row["creator_id"]),
        "title": row["title"],
        "created_at": _time(row["created_at"]),
        "scheduled_start": _time(row["scheduled_start"]),
        "started_at": _time(row["started_at"]),
        "ended_at": _time(row["ended_at"]),
        "lang": row["lang"],
        "is_ticketed": bool(row["is_ticketed"]),
        "participant_count": row["participant_count"],
        "subscriber_count": row["subscriber_count"],
        "host_ids": id_list(row["host_ids"]),
        "speaker_ids": id_list(row["speaker_ids"]),
        "invited_user_ids": id_list(row["invited_user_ids"]),
        "topic_ids": id_list(row["topic_ids"]),
    }


def _standing_view(row: Row) -> dict[str, Any]:
    return {
        "user_id": str(row["user_id"]),
        "suspended": row["suspended_at"] is not None,
        "deactivated": row["deactivated_at"] is not None,
        "geo_scrubbed_at": _time(row["geo_scrubbed_at"]),
    }


def space_routes(state: ServerState) -> list[BaseRoute]:
    spaces = state.domain.spaces

    async def create(request: Request) -> Response:
        row = await spaces.create(await _json(request))
        return OrjsonResponse(space_view(row), status_code=201)

    async def update(request: Request) -> Response:
        row = await spaces.update(request.path_params["space_id"], await _json(request))
        return OrjsonResponse(space_view(row))

    async def start(request: Request) -> Response:
        row, started = await spaces.go_live(request.path_params["space_id"])
        return OrjsonResponse({**space_view(row), "started_now": started})

    async def end(request: Request) -> Response:
        row, ended = await spaces.end(request.path_params["space_id"])
        return OrjsonResponse({**space_view(row), "ended_now": ended})

    async def ticket(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict):
            raise errors.invalid_body("$: a JSON object is expected")
        user_id = numeric_id(body.get("user_id"), "user_id")
        space_id = request.path_params["space_id"]
        created = await spaces.sell_ticket(space_id, user_id)
        view = {"space_id": space_id, "user_id": str(user_id), "created": created}
        return OrjsonResponse(view, status_code=201 if created else 200)

    async def standing(request: Request) -> Response:
        user_id = numeric_id(request.path_params["user_id"], "id")
        row = await state.domain.compliance.set_standing(user_id, await _json(request))
        return OrjsonResponse(_standing_view(row))

    return [
        Route("/_roost/spaces", create, methods=["POST"]),
        Route("/_roost/spaces/{space_id}", update, methods=["PATCH"]),
        Route("/_roost/spaces/{space_id}/start", start, methods=["POST"]),
        Route("/_roost/spaces/{space_id}/end", end, methods=["POST"]),
        Route("/_roost/spaces/{space_id}/tickets", ticket, methods=["POST"]),
        Route("/_roost/users/{user_id}/standing", standing, methods=["POST"]),
    ]
