"""The console's Data pages: posts, users, DMs, Spaces and lists newest first with a search and an
"older" link, and one post, user or list with its neighbours. Each object is shown as the API returns
it with every field asked for (the fields engine's renderers), linked to the objects it names."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.console.base import (
    PREFIX,
    allowed_keys,
    bounded,
    choice,
    console_page,
    link,
    optional_id,
    render,
    required_id,
    text,
)
from roost.control.state import ServerState
from roost.core.fields import TWEET_VOCAB, FieldsEngine, RenderContext
from roost.core.records import Row
from roost.domain.console_data import KINDS

PER_PAGE = 20
# The console's kind → the engine's object kind, and the column each page is keyed ("older") on.
ENGINE_KIND = {"posts": "tweet", "users": "user", "dms": "dm_event", "spaces": "space", "lists": "list"}
PAGE_KEY = {"posts": "id", "users": "id", "dms": "id", "spaces": "created_at", "lists": "id"}


class Shown:
    """Rows rendered as the API renders them, with every field of their kind."""

    def __init__(self, engine: FieldsEngine) -> None:
        self._engine = engine
        self._fields = {
            name: tuple(f for f in kind.fields if f not in kind.aliases)
            for name, kind in engine.kinds.items()
        }

    def object(self, kind: str, row: Row, now_ms: int) -> dict[str, Any]:
        engine_kind = ENGINE_KIND[kind]
        context = RenderContext(TWEET_VOCAB, None, frozenset(), now_ms)
        rendered = self._engine.kinds[engine_kind].render(row, self._fields[engine_kind], context)
        return {"json": rendered, "links": neighbour_links(kind, row)}


def _user(value: Any, role: str) -> tuple[str, str] | None:
    return None if value is None else (f"{role} {value}", link(f"/data/users/{value}"))


def neighbour_links(kind: str, row: Row) -> list[tuple[str, str]]:
    """(label, console URL) of the objects a row names: its own page first when it has one."""
    found: list[tuple[str, str] | None] = []
    if kind == "posts":
        found.append(("post page", link(f"/data/posts/{row['id']}")))
        found.append(_user(row["author_id"], "author"))
        parent = row.get("in_reply_to_post_id")
        if parent is not None:
            found.append((f"replied-to post {parent}", link(f"/data/posts/{parent}")))
        quoted = row.get("quoted_post_id")
        if quoted is not None:
            found.append((f"quoted post {quoted}", link(f"/data/posts/{quoted}")))
    elif kind == "users":
        found.append(("user page", link(f"/data/users/{row['id']}")))
    elif kind == "dms":
        found.append(_user(row["sender_id"], "sender"))
    elif kind == "spaces":
        found.append(_user(row["creator_id"], "creator"))
    elif kind == "lists":
        found.append(("list page and members", link(f"/data/lists/{row['id']}")))
        found.append(_user(row["owner_id"], "owner"))
    return [item for item in found if item is not None]


def data_routes(state: ServerState, engine: FieldsEngine) -> list[BaseRoute]:
    data = state.domain.console_data
    shown = Shown(engine)

    def now() -> int:
        return state.domain.maintenance.now_ms()

    @console_page
    async def listing(request: Request) -> Response:
        query = request.query_params
        allowed_keys(query, ("kind", "q", "before", "limit"))
        kind = choice(query.get("kind"), "kind", KINDS, "posts")
        search = text(query.get("q"), "q", 200)
        before = optional_id(query.get("before"), "before")
        limit = bounded(query.get("limit"), "limit", PER_PAGE, 1, 100)
        rows = await data.page(kind, search, before, limit)
        instant = now()
        older = str(rows[-1][PAGE_KEY[kind]]) if len(rows) == limit else None
        return render(
            request,
            "data.html",
            title="Data",
            kind=kind,
            kinds=KINDS,
            search=search or "",
            objects=[shown.object(kind, row, instant) for row in rows],
            older=link("/data", kind=kind, q=search, before=older) if older else None,
        )

    @console_page
    async def post(request: Request) -> Response:
        allowed_keys(request.query_params, ())
        post_id = required_id(request.path_params["object_id"], "post id")
        around = await data.post(post_id)
        if around.row is None:
            return render(request, "error.html", 404, title="Not found", message=f"no post {post_id}")
        instant = now()
        sections = [
            ("Author", [shown.object("users", row, instant) for row in around.users.get("author", [])]),
            (
                "Replied to",
                [shown.object("posts", row, instant) for row in around.posts.get("replied_to", [])],
            ),
            ("Replies", [shown.object("posts", row, instant) for row in around.posts.get("replies", [])]),
        ]
        main = shown.object("posts", around.row, instant)
        return render(request, "data_object.html", title=f"Post {post_id}", main=main, sections=sections)

    @console_page
    async def user(request: Request) -> Response:
        query = request.query_params
        allowed_keys(query, ("before",))
        user_id = required_id(request.path_params["object_id"], "user id")
        around = await data.user(user_id, optional_id(query.get("before"), "before"))
        if around.row is None:
            return render(request, "error.html", 404, title="Not found", message=f"no user {user_id}")
        instant = now()
        posts = around.posts.get("posts", [])
        older = str(posts[-1]["id"]) if posts else None
        return render(
            request,
            "data_object.html",
            title=f"User @{around.row['username']}",
            main=shown.object("users", around.row, instant),
            sections=[("Posts", [shown.object("posts", row, instant) for row in posts])],
            older=link(f"/data/users/{user_id}", before=older) if older else None,
        )

    @console_page
    async def list_page(request: Request) -> Response:
        allowed_keys(request.query_params, ())
        list_id = required_id(request.path_params["object_id"], "list id")
        around = await data.list_of(list_id)
        if around.row is None:
            return render(request, "error.html", 404, title="Not found", message=f"no list {list_id}")
        instant = now()
        sections = [
            ("Owner", [shown.object("users", row, instant) for row in around.users.get("owner", [])]),
            ("Members", [shown.object("users", row, instant) for row in around.users.get("members", [])]),
        ]
        main = shown.object("lists", around.row, instant)
        return render(request, "data_object.html", title=f"List {list_id}", main=main, sections=sections)

    return [
        Route(PREFIX + "/data", listing),
        Route(PREFIX + "/data/posts/{object_id}", post),
        Route(PREFIX + "/data/users/{object_id}", user),
        Route(PREFIX + "/data/lists/{object_id}", list_page),
    ]
