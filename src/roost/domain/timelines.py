"""Reverse-chronological pages of posts (a user's posts, mentions) with the platform's meta:
`newest_id`, `oldest_id`, `next_token` and `previous_token`, and what the viewer may see."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roost.core import pagination
from roost.core.clock import minute_text
from roost.core.errors import invalid_request, not_authorized_for_resource_item, param_error
from roost.core.pagination import PageToken
from roost.domain.lookup import Lookup, visible_post
from roost.domain.pages import Page
from roost.storage.posts import MAX_ID, PostStore

# Timelines reach back to 2010-11-06 (the spec's "Must be on or after 2010-11-06" on both times).
EARLIEST_MS = 1_289_001_600_000


@dataclass(frozen=True, slots=True)
class Window:
    """The bounds and size of one page as the request gave them (`start_time`/`end_time` with the
    raw text each came as, for the error that echoes it)."""

    max_results: int
    since_id: int | None = None
    until_id: int | None = None
    start_time: int | None = None
    end_time: int | None = None
    token: PageToken | None = None
    raw: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, params: dict[str, Any], raw: dict[str, str]) -> Window:
        return cls(
            params["max_results"],
            params.get("since_id"),
            params.get("until_id"),
            params.get("start_time"),
            params.get("end_time"),
            params.get("pagination_token"),
            tuple((name, raw[name]) for name in ("start_time", "end_time") if name in raw),
        )


class Timelines:
    def __init__(self, posts: PostStore, lookup: Lookup) -> None:
        self._posts = posts
        self._lookup = lookup

    async def user_posts(
        self, viewer_id: int | None, author_id: int, window: Window, exclude: frozenset[str]
    ) -> Page:
        """A user's posts; a protected author the viewer does not follow is an authorization error."""
        if await self._lookup.hidden_authors(viewer_id, [author_id]):
            error = not_authorized_for_resource_item("user", "id", str(author_id), "data")
            return Page([], errors=[error])
        return await self.page(
            viewer_id,
            window,
            "tweets",
            author_id=author_id,
            include_replies="replies" not in exclude,
            include_reposts="retweets" not in exclude,
        )

    async def home(
        self,
        user_id: int,
        window: Window,
        exclude: frozenset[str],
        columns: tuple[str, ...] | None = None,
    ) -> Page:
        """The user's home timeline: their own posts and reposts and those of the accounts they
        follow, newest first, the most recent 3,200 at most (`PostStore.home_entries`; the caller is
        the user: the handler checks). `columns`: the post columns the field selection reads."""
        return await self.page(
            user_id,
            window,
            f"home:{user_id}",
            home_id=user_id,
            include_replies="replies" not in exclude,
            include_reposts="retweets" not in exclude,
            columns=columns,
        )

    async def mentions(self, viewer_id: int | None, user_id: int, window: Window) -> Page:
        return await self.page(viewer_id, window, "mentions", mentioned_id=user_id)

    async def page(self, viewer_id: int | None, window: Window, scope: str, **where: Any) -> Page:
        limit = window.max_results
        since_id = window.since_id or 0
        until_id = MAX_ID if window.until_id is None else window.until_id
        token = window.token
        direction = pagination.NEXT
        if token is not None:
            cursor, direction = token.position(scope)
            if direction == pagination.NEXT:
                until_id = min(until_id, cursor)
            else:
                since_id = max(since_id, cursor)
        raw = dict(window.raw)
        for name, value in (("start_time", window.start_time), ("end_time", window.end_time)):
            if value is not None and value < EARLIEST_MS:
                message = (
                    f"Invalid '{name}':'{minute_text(value)}'. '{name}' must be on or after "
                    f"{minute_text(EARLIEST_MS)}"
                )
                raise invalid_request([param_error(name, raw[name], message)])
        rows = await self._posts.timeline(
            since_id=since_id,
            until_id=until_id,
            # An id bound takes precedence over the time bound on the same side (the spec says so).
            start_ms=0 if window.since_id is not None else (window.start_time or 0),
            end_ms=MAX_ID if window.until_id is not None else (window.end_time or MAX_ID),
            limit=limit + 1,
            ascending=direction == pagination.PREVIOUS,
            **where,
        )
        more = len(rows) > limit
        rows = rows[:limit]
        hidden = await self._lookup.hidden_authors(viewer_id, (row["author_id"] for row in rows))
        rows = [row for row in rows if visible_post(row) and row["author_id"] not in hidden]
        if direction == pagination.PREVIOUS:
            rows.reverse()
        meta: dict[str, Any] = {"result_count": len(rows)}
        if rows:
            meta = {
                "result_count": len(rows),
                "newest_id": str(rows[0]["id"]),
                "oldest_id": str(rows[-1]["id"]),
            }
            if more or direction == pagination.PREVIOUS:
                meta["next_token"] = pagination.encode(rows[-1]["id"], pagination.NEXT, scope)
            if token is not None and (direction == pagination.NEXT or more):
                meta["previous_token"] = pagination.encode(rows[0]["id"], pagination.PREVIOUS, scope)
        return Page(rows, meta)
