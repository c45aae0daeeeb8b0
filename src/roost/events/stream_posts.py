"""What stream lines are made of: the public post or like behind an event, the matcher's view of a post,
and an object rendered with a connection's fields and expansions (shared by every stream and by the
filtered-stream webhooks)."""

from __future__ import annotations

from typing import Any

from roost.core import jsonio
from roost.core.clock import Clock
from roost.core.fields import FieldsEngine, Loader, RenderContext, Selection
from roost.core.records import Row
from roost.domain.like_objects import like_row
from roost.domain.lookup import visible_post
from roost.search.view import PostView, view_of
from roost.storage.posts import PostStore
from roost.storage.reposts import RepostStore
from roost.storage.users import UserStore

POST_KINDS = frozenset({"post.create", "post.edit"})
QUOTES_PAGE = 500  # quotes read at a time for a deleted post's compliance events


def event_object_id(event: Row, key: str) -> int | None:
    try:
        return int(jsonio.loads(event["payload"])[key])
    except (KeyError, TypeError, ValueError):
        return None  # a row not following the conventions is skipped


def line(body: dict[str, Any]) -> bytes:
    return jsonio.dumps(body) + b"\r\n"


class StreamObjects:
    """Posts and likes as streams send them. `engine` is the server's fields engine (the one that
    parsed the connection's selection) and `loader` its loader for an app-only caller."""

    def __init__(
        self,
        posts: PostStore,
        users: UserStore,
        engine: FieldsEngine,
        loader: Loader,
        clock: Clock,
        reposts: RepostStore,
    ) -> None:
        self._posts = posts
        self._reposts = reposts
        self._users = users
        self.engine = engine
        self._loader = loader
        self._clock = clock

    async def public_post(self, event: Row) -> Row | None:
        """The event's post if it may be streamed: it exists, is visible and its author is not
        protected."""
        post_id = event_object_id(event, "post_id")
        if post_id is None:
            return None
        post = await self._posts.get(post_id)
        if post is None or not visible_post(post):
            return None
        if int(post["author_id"]) in await self._users.protected_ids():
            return None  # posts of protected accounts are never streamed
        return post

    async def public_like(self, event: Row) -> Row | None:
        """The event's like if it is public: the liked post exists and neither its author nor the
        liking account is protected (a protected account's likes are not public)."""
        try:
            payload = jsonio.loads(event["payload"])
            liker, post_id = int(payload["user_id"]), int(payload["post_id"])
        except (KeyError, TypeError, ValueError):
            return None  # a row not following the log's conventions is skipped
        post = await self._posts.get(post_id)
        if post is None or not visible_post(post):
            return None
        protected = await self._users.protected_ids()
        if liker in protected or int(post["author_id"]) in protected:
            return None
        return like_row(event, post)

    async def post(self, post_id: int) -> Row | None:
        return await self._posts.get(post_id)

    async def quote_ids(self, post_id: int) -> list[int]:
        """The ids of the posts quoting a post that are not deleted (replies included), oldest first."""
        ids: list[int] = []
        while True:
            page = await self._reposts.quotes(post_id, QUOTES_PAGE, len(ids), include_replies=True)
            ids.extend(int(row["id"]) for row in page)
            if len(page) < QUOTES_PAGE:
                return sorted(ids)

    async def render_post(self, selection: Selection, post: Row) -> dict[str, Any]:
        """`{"data", "includes"?, "errors"?}` exactly as a lookup by the app with the same parameters."""
        return await self.render(selection, "tweet", post)

    async def render(self, selection: Selection, kind: str, row: Row) -> dict[str, Any]:
        """One object of a stream line, rendered as for an app-only caller with the connection's fields."""
        context = RenderContext(selection.vocab, None, now_ms=self._clock.now_ms())
        rendered = await self.engine.render(kind, [row], selection, self._loader, context)
        body: dict[str, Any] = {"data": rendered.data[0]}
        if rendered.includes:
            body["includes"] = rendered.includes
        if rendered.errors:
            body["errors"] = rendered.errors
        return body

    async def post_view(self, post: Row) -> PostView:
        """The matcher's view of a post, with the rows its operators read."""
        posts, users = self._posts, self._users
        author = await users.get(int(post["author_id"]))
        quoted = None
        if post["quoted_post_id"] is not None:
            quoted = await posts.get(int(post["quoted_post_id"]))
        place = None
        if post["place_id"]:
            places = await users.places_many([post["place_id"]])
            place = places[0] if places else None
        media_types: list[str] = []
        if post["media_keys"]:
            keys = jsonio.loads(post["media_keys"]) or []
            if keys:
                media_types = [str(m["type"]) for m in await users.media_many(keys)]
        reply_to = None
        if post["in_reply_to_user_id"] is not None:
            reply_to = await users.get(int(post["in_reply_to_user_id"]))
        reposted_author = None
        if post["reposted_post_id"] is not None:
            reposted = await posts.get(int(post["reposted_post_id"]))
            if reposted is not None:
                reposted_author = await users.get(int(reposted["author_id"]))
        return view_of(
            post,
            author,
            quoted,
            place=place,
            media_types=media_types,
            in_reply_to_user=reply_to,
            retweeted_author=reposted_author,
        )
