"""Bookmarks and bookmark folders in the import/export document (`transfer.py`): the sections
`bookmark_folders` (`{id, user_id, name, created_at}`) and `bookmarks` (`{user_id, tweet_id,
folder_id?, created_at}`). A post's `bookmark_count` travels with the post, so importing bookmarks
counts nothing again."""

from __future__ import annotations

from typing import Any

from roost.core import errors
from roost.core.clock import iso_ms
from roost.domain.transfer_values import import_id, import_time, section_items
from roost.storage import bookmarks as bookmark_rows
from roost.storage.db import Database, Executor

SECTIONS = ("bookmark_folders", "bookmarks")


async def export_bookmarks(db: Database) -> dict[str, list[dict[str, Any]]]:
    folders = await bookmark_rows.all_folders(db)
    marks = await bookmark_rows.all_bookmarks(db)
    return {
        "bookmark_folders": [
            {
                "id": str(row["id"]),
                "user_id": str(row["user_id"]),
                "name": row["name"],
                "created_at": iso_ms(row["created_at"]),
            }
            for row in folders
        ],
        "bookmarks": [
            {
                "user_id": str(row["user_id"]),
                "tweet_id": str(row["post_id"]),
                **({"folder_id": str(row["folder_id"])} if row["folder_id"] is not None else {}),
                "created_at": iso_ms(row["created_at"]),
            }
            for row in marks
        ],
    }


async def import_bookmarks(tx: Executor, payload: dict[str, Any], now_ms: int) -> dict[str, int]:
    """Import the sections the payload carries (others are not counted); existing ones are skipped."""
    counts: dict[str, int] = {}
    if "bookmark_folders" in payload:
        counts["bookmark_folders"] = 0
        for item in section_items(payload, "bookmark_folders"):
            folder_id = import_id(item.get("id"), "bookmark_folders[].id")
            user_id = import_id(item.get("user_id"), "bookmark_folders[].user_id")
            name = item.get("name")
            if not isinstance(name, str) or not name:
                raise errors.invalid_body("bookmark_folders[].name: a non-empty string is expected")
            if await bookmark_rows.get_folder_tx(tx, user_id, folder_id) is None:
                row = {"id": folder_id, "user_id": user_id, "name": name}
                await bookmark_rows.insert_folder(
                    tx, {**row, "created_at": import_time(item.get("created_at"), now_ms)}
                )
                counts["bookmark_folders"] += 1
    if "bookmarks" in payload:
        counts["bookmarks"] = 0
        for item in section_items(payload, "bookmarks"):
            user_id = import_id(item.get("user_id"), "bookmarks[].user_id")
            post_id = import_id(item.get("tweet_id") or item.get("post_id"), "bookmarks[].tweet_id")
            folder = item.get("folder_id")
            filed_in: int | None = (
                None if folder in (None, "") else import_id(folder, "bookmarks[].folder_id")
            )
            if filed_in is not None and await bookmark_rows.get_folder_tx(tx, user_id, filed_in) is None:
                filed_in = None  # a folder the user does not have: the bookmark stays top-level
            if await bookmark_rows.get_bookmark_tx(tx, user_id, post_id) is None:
                row = {"user_id": user_id, "post_id": post_id, "folder_id": filed_in}
                await bookmark_rows.insert_bookmark(
                    tx, {**row, "created_at": import_time(item.get("created_at"), now_ms)}
                )
                counts["bookmarks"] += 1
    return counts
