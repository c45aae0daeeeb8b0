"""Bookmarks and bookmark folders: the v2 operations (private to the authenticated user)."""

from __future__ import annotations

from typing import Any

from roost.core.params import IntRange, Param, Snowflake, Token
from roost.domain.social import require_self
from roost.platform.operations import OAUTH2, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.platform.timelines import page_objects


def _me(call: Call) -> int:
    """The authenticated user, who must be the path's user (bookmarks are private)."""
    require_self(call.principal.user_id, call.params["id"])
    assert call.principal.user_id is not None
    return call.principal.user_id


def _paging(call: Call) -> tuple[int, Any]:
    return call.params["max_results"], call.params.get("pagination_token")


async def bookmark(call: Call) -> dict[str, Any]:
    await call.domain.bookmarks.add(_me(call), call.body)
    return {"data": {"bookmarked": True}}


async def remove_bookmark(call: Call) -> dict[str, Any]:
    await call.domain.bookmarks.remove(_me(call), call.params["tweet_id"])
    return {"data": {"bookmarked": False}}


async def bookmarks(call: Call) -> Objects:
    return page_objects(await call.domain.bookmarks.posts(_me(call), *_paging(call)))


async def create_folder(call: Call) -> dict[str, Any]:
    return {"data": await call.domain.bookmarks.create_folder(_me(call), call.body)}


async def folders(call: Call) -> dict[str, Any]:
    return await call.domain.bookmarks.folders(_me(call), *_paging(call))


async def folder_posts(call: Call) -> dict[str, Any]:
    return await call.domain.bookmarks.folder_posts(_me(call), call.params["folder_id"], *_paging(call))


USER_ID = Param("id", Snowflake(), required=True, in_path=True)
PAGING = (Param("max_results", IntRange(1, 100), default=100), Param("pagination_token", Token()))
WRITE_LIMIT = RateLimit(user=50)
FOLDER_LIMIT = RateLimit(user=50)

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getUsersBookmarks",
        "GET",
        "/2/users/{id}/bookmarks",
        bookmarks,
        USER_AUTH,
        ("bookmark.read", "tweet.read", "users.read"),
        params=(USER_ID, *PAGING),
        returns="tweet",
        rate_limit=RateLimit(user=180),
        tag="Bookmarks",
        summary="Get Users Bookmarks",
    ),
    Operation(
        "createUsersBookmark",
        "POST",
        "/2/users/{id}/bookmarks",
        bookmark,
        (OAUTH2,),
        ("bookmark.write", "tweet.read", "users.read"),
        write=True,
        body=True,
        params=(USER_ID,),
        rate_limit=WRITE_LIMIT,
        tag="Bookmarks",
        summary="Create Users Bookmark",
    ),
    Operation(
        "deleteUsersBookmark",
        "DELETE",
        "/2/users/{id}/bookmarks/{tweet_id}",
        remove_bookmark,
        (OAUTH2,),
        ("bookmark.write", "tweet.read", "users.read"),
        write=True,
        params=(USER_ID, Param("tweet_id", Snowflake(), required=True, in_path=True)),
        rate_limit=WRITE_LIMIT,
        tag="Bookmarks",
        summary="Delete Bookmark",
    ),
    Operation(
        "getUsersBookmarkFolders",
        "GET",
        "/2/users/{id}/bookmarks/folders",
        folders,
        USER_AUTH,
        ("bookmark.read", "users.read"),
        params=(USER_ID, *PAGING),
        rate_limit=FOLDER_LIMIT,
        tag="Bookmarks",
        summary="Get Users Bookmark Folders",
    ),
    Operation(
        "createUsersBookmarkFolder",
        "POST",
        "/2/users/{id}/bookmarks/folders",
        create_folder,
        (OAUTH2,),
        ("bookmark.write", "users.read"),
        write=True,
        body=True,
        params=(USER_ID,),
        rate_limit=WRITE_LIMIT,
        status=201,
        tag="Bookmarks",
        summary="Create Bookmark Folder",
    ),
    Operation(
        "getUsersBookmarksByFolderId",
        "GET",
        "/2/users/{id}/bookmarks/folders/{folder_id}",
        folder_posts,
        USER_AUTH,
        ("bookmark.read", "tweet.read", "users.read"),
        params=(USER_ID, Param("folder_id", Snowflake(), required=True, in_path=True), *PAGING),
        rate_limit=FOLDER_LIMIT,
        tag="Bookmarks",
        summary="Get Users Bookmarks by Folder ID",
    ),
)
