"""Bookmarks and bookmark folders: private to their user, so reads and writes act for the
authenticated user only. A post's `bookmark_count` moves with each bookmark made or removed.

The platform has no bookmark event (activity or account activity), so these writes append none.
"""

from __future__ import annotations

from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.errors import resource_not_found_item
from roost.core.ids import SnowflakeGenerator
from roost.core.pagination import PageToken
from roost.core.records import Row
from roost.domain.lookup import Lookup, visible_post
from roost.domain.pages import Page, offset_of, offset_page
from roost.domain.social import body_id
from roost.storage import bookmarks as bookmark_rows
from roost.storage import posts as post_rows
from roost.storage import social as social_rows
from roost.storage.bookmarks import BookmarkStore
from roost.storage.db import Database
from roost.storage.posts import PostStore

FOLDER_NAME_MAX = 25


def _bad(name: str, value: str, message: str) -> errors.ApiError:
    return errors.invalid_request([errors.param_error(name, value, message)])


def _bookmark_body(body: Any) -> tuple[int, int | None]:
    """(tweet_id, folder_id or None) of `{"tweet_id", "folder_id"?}`, checked like the platform's schema."""
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    extra = sorted(set(body) - {"tweet_id", "folder_id"})
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    post_id = body_id({"tweet_id": body["tweet_id"]} if "tweet_id" in body else {}, "tweet_id")
    folder_id = body_id({"folder_id": body["folder_id"]}, "folder_id") if "folder_id" in body else None
    return post_id, folder_id


def _folder_name(body: Any) -> str:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    extra = sorted(set(body) - {"name"})
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    if "name" not in body:
        raise errors.invalid_body("$.name: is missing but it is required")
    name = body["name"]
    if not isinstance(name, str):
        raise errors.invalid_body(f"$.name: {jsonio.type_name(name)} found, string expected")
    if not name:
        raise errors.invalid_body("$.name: must be at least 1 characters long")
    if len(name) > FOLDER_NAME_MAX:
        raise errors.invalid_body(f"$.name: must be at most {FOLDER_NAME_MAX} characters long")
    return name


class Bookmarks:
    """A user's bookmarks and folders (the caller has checked that the user is the authenticated one)."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        store: BookmarkStore,
        posts: PostStore,
        lookup: Lookup,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._store = store
        self._posts = posts
        self._lookup = lookup

    # ---- writes ---------------------------------------------------------------------------------

    async def add(self, user_id: int, body: Any) -> bool:
        """Bookmark a post (into a folder if named); False if it was bookmarked already, in which case
        a named folder refiles it and nothing is counted twice."""
        post_id, folder_id = _bookmark_body(body)
        post = await self._posts.get(post_id)
        if (
            post is None
            or not visible_post(post)
            or await self._lookup.hidden_authors(user_id, [post["author_id"]])
        ):
            raise _bad("tweet_id", str(post_id), f"Could not find tweet with tweet_id: [{post_id}].")
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            if folder_id is not None and await bookmark_rows.get_folder_tx(tx, user_id, folder_id) is None:
                raise _bad(
                    "folder_id",
                    str(folder_id),
                    f"Could not find bookmark_folder with folder_id: [{folder_id}].",
                )
            existing = await bookmark_rows.get_bookmark_tx(tx, user_id, post_id)
            if existing is not None:
                if folder_id is not None and existing["folder_id"] != folder_id:
                    await bookmark_rows.file_bookmark(tx, user_id, post_id, folder_id)
                return False
            await bookmark_rows.insert_bookmark(
                tx,
                {
                    "user_id": user_id,
                    "post_id": post_id,
                    "folder_id": folder_id,
                    "created_at": self._clock.now_ms(),
                },
            )
            await post_rows.bump_post(tx, post_id, "bookmark_count", 1)
        return True

    async def remove(self, user_id: int, post_id: int) -> bool:
        """Remove a bookmark; False if there was none (idempotent, like unliking)."""
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            if not await bookmark_rows.delete_bookmark(tx, user_id, post_id):
                return False
            await post_rows.bump_post(tx, post_id, "bookmark_count", -1)
        return True

    async def create_folder(self, user_id: int, body: Any) -> dict[str, str]:
        name = _folder_name(body)
        folder_id = self._ids.next_id()
        async with self._db.transaction() as tx:
            await bookmark_rows.insert_folder(
                tx, {"id": folder_id, "user_id": user_id, "name": name, "created_at": self._clock.now_ms()}
            )
        return {"id": str(folder_id), "name": name}

    # ---- reads ----------------------------------------------------------------------------------

    async def posts(self, user_id: int, limit: int, token: PageToken | None) -> Page:
        return await self._posts_page(user_id, None, f"bookmarks:{user_id}", limit, token)

    async def folders(self, user_id: int, limit: int, token: PageToken | None) -> dict[str, Any]:
        scope = f"bookmark_folders:{user_id}"
        offset = offset_of(token, scope)
        rows = await self._store.folders(user_id, limit + 1, offset)
        page = offset_page(rows, rows[:limit], offset, limit, scope)
        return _plain(page, [{"id": str(row["id"]), "name": row["name"]} for row in page.rows])

    async def folder_posts(
        self, user_id: int, folder_id: int, limit: int, token: PageToken | None
    ) -> dict[str, Any]:
        """The post ids filed in one of the user's folders; another user's folder is not found."""
        if await self._store.folder(user_id, folder_id) is None:
            return {"errors": [resource_not_found_item("bookmark_folder", "folder_id", str(folder_id))]}
        page = await self._posts_page(user_id, folder_id, f"bookmark_folder:{folder_id}", limit, token)
        return _plain(page, [{"id": str(row["id"])} for row in page.rows])

    async def _posts_page(
        self, user_id: int, folder_id: int | None, scope: str, limit: int, token: PageToken | None
    ) -> Page:
        offset = offset_of(token, scope)
        rows = await self._store.posts(user_id, folder_id, limit + 1, offset)
        page = rows[:limit]
        # Posts the user may no longer see (a protected author since unfollowed) are left out.
        hidden = await self._lookup.hidden_authors(user_id, (row["author_id"] for row in page))
        shown: list[Row] = [row for row in page if row["author_id"] not in hidden]
        return offset_page(rows, shown, offset, limit, scope)


def _plain(page: Page, data: list[dict[str, str]]) -> dict[str, Any]:
    """A page of plain objects (folders, folder contents): no `data` member when empty."""
    body: dict[str, Any] = {"data": data} if data else {}
    body["meta"] = page.meta
    return body
