"""Control-plane writes for issue 15's objects the v2 surface cannot make: publishing a news story
(which emits `news.new` to activity subscriptions) and enrolling API note writers.

POST /_roost/news, PUT /_roost/note_writers/{user_id}. Errors are JSON problems like the rest of
/_roost.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse, _json, numeric_id
from roost.control.state import ServerState
from roost.core.fields import RenderContext
from roost.domain.community_objects import NEWS_FIELDS, render_news


def community_routes(state: ServerState) -> list[BaseRoute]:
    async def publish_news(request: Request) -> Response:
        story = await state.domain.news.publish(await _json(request))
        return OrjsonResponse(render_news(story, NEWS_FIELDS, RenderContext()), status_code=201)

    async def enrol_writer(request: Request) -> Response:
        user_id = numeric_id(request.path_params["user_id"], "user_id")
        created = await state.domain.notes.enrol(user_id)
        return OrjsonResponse(
            {"user_id": str(user_id), "note_writer": True}, status_code=201 if created else 200
        )

    return [
        Route("/_roost/news", publish_news, methods=["POST"]),
        Route("/_roost/note_writers/{user_id}", enrol_writer, methods=["PUT"]),
    ]
