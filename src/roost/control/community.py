"""Control-plane writes for issue 15's objects the v2 surface cannot make: publishing a news story
(which emits `news.new` to activity subscriptions), enrolling API note writers, creating communities
and adding their members, adding impressions and engagements to posts.

POST /_roost/news, PUT /_roost/note_writers/{user_id}, POST /_roost/communities,
PUT /_roost/communities/{community_id}/members/{user_id} (body optional: {"role"}),
POST /_roost/tweets/{post_id}/metrics ({"impressions": n, "url_clicks": n, ...}: analytics). Errors are
JSON problems like the rest of /_roost.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse, _json, numeric_id
from roost.control.state import ServerState
from roost.core.fields import RenderContext
from roost.domain.community_objects import COMMUNITY_FIELDS, NEWS_FIELDS, render_community, render_news


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

    async def create_community(request: Request) -> Response:
        row = await state.domain.communities.create(await _json(request))
        view = render_community(row, COMMUNITY_FIELDS, RenderContext())
        return OrjsonResponse({**view, "creator_id": str(row["creator_id"])}, status_code=201)

    async def add_member(request: Request) -> Response:
        community_id = numeric_id(request.path_params["community_id"], "community_id")
        user_id = numeric_id(request.path_params["user_id"], "user_id")
        body = await _json(request)
        role = body.get("role", "Member") if isinstance(body, dict) else "Member"
        added = await state.domain.communities.join(community_id, user_id, role)
        view = {"community_id": str(community_id), "user_id": str(user_id), "member": True}
        return OrjsonResponse(view, status_code=201 if added else 200)

    async def add_metrics(request: Request) -> Response:
        post_id = numeric_id(request.path_params["post_id"], "post_id")
        added = await state.domain.analytics.add(post_id, await _json(request))
        return OrjsonResponse({"post_id": str(post_id), "added": added}, status_code=201)

    return [
        Route("/_roost/tweets/{post_id}/metrics", add_metrics, methods=["POST"]),
        Route("/_roost/communities", create_community, methods=["POST"]),
        Route("/_roost/communities/{community_id}/members/{user_id}", add_member, methods=["PUT"]),
        Route("/_roost/news", publish_news, methods=["POST"]),
        Route("/_roost/note_writers/{user_id}", enrol_writer, methods=["PUT"]),
    ]
