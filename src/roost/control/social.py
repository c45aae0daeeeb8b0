"""Control-plane writes that cause activity events where the v2 surface has no endpoint.

POST /_roost/blocks, DELETE /_roost/blocks/{source}/{target}, PATCH /_roost/users/{id}/profile,
POST /_roost/dm_conversations/{id}/read and /typing (dm.read and dm.indicate_typing). Errors are JSON
problems like the rest of /_roost. The Spaces routes are in `control/spaces.py`.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse, _json, numeric_id
from roost.control.state import ServerState
from roost.core import errors, jsonio
from roost.core.records import Row


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    return body


def _profile_view(row: Row) -> dict[str, Any]:
    affiliation = row["affiliation"]
    return {
        "id": str(row["id"]),
        "username": row["username"],
        "name": row["name"],
        "description": row["description"],
        "location": row["location"],
        "url": row["url"],
        "verified": bool(row["verified"]),
        "affiliation": jsonio.loads(affiliation) if isinstance(affiliation, str) else affiliation,
        "profile_image_url": row["profile_image_url"],
        "profile_banner_url": row["profile_banner_url"],
    }


def social_routes(state: ServerState) -> list[BaseRoute]:
    async def block(request: Request) -> Response:
        body = _object(await _json(request))
        source = numeric_id(body.get("source_user_id"), "source_user_id")
        target = numeric_id(body.get("target_user_id"), "target_user_id")
        created = await state.domain.social.block(source, target)
        return OrjsonResponse({"blocking": True, "created": created}, status_code=201 if created else 200)

    async def unblock(request: Request) -> Response:
        source = numeric_id(request.path_params["source"], "source_user_id")
        target = numeric_id(request.path_params["target"], "target_user_id")
        removed = await state.domain.social.unblock(source, target)
        return OrjsonResponse({"blocking": False, "removed": removed})

    async def profile(request: Request) -> Response:
        user_id = numeric_id(request.path_params["user_id"], "id")
        row, changed = await state.domain.profiles.update(user_id, await _json(request))
        return OrjsonResponse({"user": _profile_view(row), "changed": changed})

    async def dm_read(request: Request) -> Response:
        body = _object(await _json(request))
        user_id = numeric_id(body.get("user_id"), "user_id")
        last_read = numeric_id(body.get("last_read_event_id"), "last_read_event_id")
        told = await state.domain.dms.signal(
            request.path_params["conversation_id"], user_id, "dm.read", last_read
        )
        return OrjsonResponse({"read": True, "participants": told})

    async def dm_typing(request: Request) -> Response:
        body = _object(await _json(request))
        user_id = numeric_id(body.get("user_id"), "user_id")
        conversation = request.path_params["conversation_id"]
        told = await state.domain.dms.signal(conversation, user_id, "dm.indicate_typing")
        return OrjsonResponse({"typing": True, "participants": told})

    return [
        Route("/_roost/dm_conversations/{conversation_id}/read", dm_read, methods=["POST"]),
        Route("/_roost/dm_conversations/{conversation_id}/typing", dm_typing, methods=["POST"]),
        Route("/_roost/blocks", block, methods=["POST"]),
        Route("/_roost/blocks/{source}/{target}", unblock, methods=["DELETE"]),
        Route("/_roost/users/{user_id}/profile", profile, methods=["PATCH"]),
    ]
