"""Bookmarks and bookmark folders: the statements behind `/2/users/{id}/bookmarks*`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, bindparam, delete, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import posts, users
from roost.storage.schema_social import bookmark_folders, bookmarks
from roost.storage.statements import insert_all

_mine = and_(bookmarks.c.user_id == bindparam("user_id"), bookmarks.c.post_id == bindparam("post_id"))
_bookmark = select(bookmarks).where(_mine)
_insert_bookmark = insert_all(bookmarks)
_delete_bookmark = delete(bookmarks).where(_mine)
_file_bookmark = update(bookmarks).where(_mine).values(folder_id=bindparam("folder_id"))

_insert_folder = insert_all(bookmark_folders)
_folder = select(bookmark_folders).where(
    bookmark_folders.c.id == bindparam("id"), bookmark_folders.c.user_id == bindparam("user_id")
)
_folders_page = (
    select(bookmark_folders)
    .where(bookmark_folders.c.user_id == bindparam("user_id"))
    .order_by(bookmark_folders.c.id)
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)


def _bookmarked_posts(in_folder: bool) -> Any:
    """Posts a user bookmarked (in one folder, or in any), newest bookmark first; deleted posts left out."""
    where = [bookmarks.c.user_id == bindparam("user_id"), posts.c.deleted_at.is_(None)]
    if in_folder:
        where.append(bookmarks.c.folder_id == bindparam("folder_id"))
    return (
        select(posts)
        .join(bookmarks, bookmarks.c.post_id == posts.c.id)
        .where(*where)
        .order_by(bookmarks.c.created_at.desc(), posts.c.id.desc())
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
    )


_posts_page = {in_folder: _bookmarked_posts(in_folder) for in_folder in (False, True)}
# The newest live posts of public accounts (what the demo seed bookmarks).
_public_posts = (
    select(posts.c.id)
    .join(users, users.c.id == posts.c.author_id)
    .where(posts.c.deleted_at.is_(None), users.c.protected == 0, posts.c.author_id != bindparam("not_by"))
    .order_by(posts.c.id.desc())
    .limit(bindparam("limit"))
)
_all_bookmarks = select(bookmarks).order_by(bookmarks.c.user_id, bookmarks.c.created_at)
_all_folders = select(bookmark_folders).order_by(bookmark_folders.c.user_id, bookmark_folders.c.id)


# ---- writes (inside the caller's transaction) ---------------------------------------------------


async def get_bookmark_tx(tx: Executor, user_id: int, post_id: int) -> Row | None:
    return await tx.fetch_one(_bookmark, {"user_id": user_id, "post_id": post_id})


async def insert_bookmark(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_bookmark, row)


async def file_bookmark(tx: Executor, user_id: int, post_id: int, folder_id: int | None) -> None:
    await tx.execute(_file_bookmark, {"user_id": user_id, "post_id": post_id, "folder_id": folder_id})


async def delete_bookmark(tx: Executor, user_id: int, post_id: int) -> bool:
    """Remove one bookmark; True if it existed."""
    return await tx.execute(_delete_bookmark, {"user_id": user_id, "post_id": post_id}) > 0


async def insert_folder(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_folder, row)


async def get_folder_tx(tx: Executor, user_id: int, folder_id: int) -> Row | None:
    return await tx.fetch_one(_folder, {"user_id": user_id, "id": folder_id})


async def all_folders(db: Executor | Database) -> list[Row]:
    """Every bookmark folder (the export)."""
    return await db.fetch_all(_all_folders)


async def all_bookmarks(db: Executor | Database) -> list[Row]:
    """Every bookmark (the export)."""
    return await db.fetch_all(_all_bookmarks)


async def public_post_ids_tx(tx: Executor, not_by: int, limit: int) -> list[int]:
    return [int(row["id"]) for row in await tx.fetch_all(_public_posts, {"not_by": not_by, "limit": limit})]


# ---- reads --------------------------------------------------------------------------------------


class BookmarkStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def posts(self, user_id: int, folder_id: int | None, limit: int, offset: int) -> list[Row]:
        """One page of bookmarked posts (all of them, or one folder's)."""
        params = {"user_id": user_id, "limit": limit, "offset": offset}
        if folder_id is not None:
            params["folder_id"] = folder_id
        return await self._db.fetch_all(_posts_page[folder_id is not None], params)

    async def folder(self, user_id: int, folder_id: int) -> Row | None:
        return await self._db.fetch_one(_folder, {"user_id": user_id, "id": folder_id})

    async def folders(self, user_id: int, limit: int, offset: int) -> list[Row]:
        return await self._db.fetch_all(_folders_page, {"user_id": user_id, "limit": limit, "offset": offset})
