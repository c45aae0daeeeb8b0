"""Posts as stream lines: the post behind a `post.create`/`post.edit` event, the matcher's view of it,
and its rendering with a connection's fields and expansions (shared by every post stream)."""

from __future__ import annotations

from typing import Any

from roost.core import jsonio
from roost.core.fields import FieldsEngine, RenderContext, Selection
from roost.domain.like_objects import LIKE_EXPANSIONS, LIKE_KINDS
from roost.domain.lookup import Lookup, visible_post
from roost.domain.objects import EXPANSIONS, KINDS
from roost.search.view import PostView, view_of
from roost.services import Services
from roost.storage.db import Row

POST_KINDS = frozenset({"post.create", "post.edit"})
_engine: FieldsEngine | None = None


def fields_engine() -> FieldsEngine:
    """The kinds stream lines render (posts and likes with what they expand to); the request's
    selection was parsed by the pipeline's engine, which has the same kinds."""
    global _engine
    if _engine is None:
        _engine = FieldsEngine((*KINDS, *LIKE_KINDS), {**EXPANSIONS, **LIKE_EXPANSIONS})
    return _engine


def event_object_id(event: Row, key: str) -> int | None:
    try:
        return int(jsonio.loads(event["payload"])[key])
    except (KeyError, TypeError, ValueError):
        return None  # a row not following the conventions is skipped


async def public_post(services: Services, event: Row) -> Row | None:
    """The event's post if it may be streamed: it exists, is visible and its author is not protected."""
    post_id = event_object_id(event, "post_id")
    if post_id is None:
        return None
    post = await services.posts.get(post_id)
    if post is None or not visible_post(post):
        return None
    if int(post["author_id"]) in await services.users.protected_ids():
        return None  # posts of protected accounts are never streamed
    return post


async def render_post(services: Services, selection: Selection, post: Row) -> dict[str, Any]:
    """`{"data", "includes"?, "errors"?}` exactly as a lookup by the app with the same parameters."""
    return await render_line(services, selection, "tweet", post)


async def render_line(services: Services, selection: Selection, kind: str, row: Row) -> dict[str, Any]:
    """One object of a stream line, rendered as for an app-only caller with the connection's fields."""
    context = RenderContext(selection.vocab, None, now_ms=services.clock.now_ms())
    loader = Lookup(services.posts, services.users).loader(None)
    rendered = await fields_engine().render(kind, [row], selection, loader, context)
    body: dict[str, Any] = {"data": rendered.data[0]}
    if rendered.includes:
        body["includes"] = rendered.includes
    if rendered.errors:
        body["errors"] = rendered.errors
    return body


async def post_view(services: Services, post: Row) -> PostView:
    """The matcher's view of a post, with the rows its operators read."""
    author = await services.users.get(int(post["author_id"]))
    quoted = None
    if post["quoted_post_id"] is not None:
        quoted = await services.posts.get(int(post["quoted_post_id"]))
    place = None
    if post["place_id"]:
        places = await services.users.places_many([post["place_id"]])
        place = places[0] if places else None
    media_types: list[str] = []
    if post["media_keys"]:
        keys = jsonio.loads(post["media_keys"]) or []
        if keys:
            media_types = [str(m["type"]) for m in await services.users.media_many(keys)]
    reply_to = None
    if post["in_reply_to_user_id"] is not None:
        reply_to = await services.users.get(int(post["in_reply_to_user_id"]))
    reposted_author = None
    if post["reposted_post_id"] is not None:
        reposted = await services.posts.get(int(post["reposted_post_id"]))
        if reposted is not None:
            reposted_author = await services.users.get(int(reposted["author_id"]))
    return view_of(
        post,
        author,
        quoted,
        place=place,
        media_types=media_types,
        in_reply_to_user=reply_to,
        retweeted_author=reposted_author,
    )


def line(body: dict[str, Any]) -> bytes:
    return jsonio.dumps(body) + b"\r\n"
