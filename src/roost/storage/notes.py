"""Community notes and note writers: the statements behind `/2/notes*` and `/2/evaluate_note`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete, exists, select

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import posts, users
from roost.storage.schema_community import note_writers, notes
from roost.storage.statements import insert_all

_insert_note = insert_all(notes)
_insert_writer = insert_all(note_writers)
_writer = select(note_writers).where(note_writers.c.user_id == bindparam("user_id"))
_note = select(notes).where(notes.c.id == bindparam("id"))
_note_of = select(notes).where(
    notes.c.author_id == bindparam("author_id"), notes.c.post_id == bindparam("post_id")
)
_delete_note = delete(notes).where(notes.c.id == bindparam("id"))
_written_page = (
    select(notes)
    .where(
        notes.c.author_id == bindparam("author_id"),
        notes.c.test_mode == bindparam("test_mode"),
        notes.c.id < bindparam("before"),
    )
    .order_by(notes.c.id.desc())
    .limit(bindparam("limit"))
)
_noted_by_writer = exists().where(notes.c.post_id == posts.c.id, notes.c.author_id == bindparam("writer"))


# Eligible posts (docs/notes.md): live originals, replies and quotes (no reposts) of public accounts,
# by others than the writer, created in the window, the writer has not noted yet; newest first.
def _eligible(in_lang: bool) -> Any:
    where = [
        posts.c.deleted_at.is_(None),
        posts.c.superseded_by.is_(None),
        posts.c.reposted_post_id.is_(None),
        users.c.protected == 0,
        posts.c.author_id != bindparam("writer"),
        posts.c.created_at >= bindparam("since"),
        posts.c.id < bindparam("before"),
        ~_noted_by_writer,
    ]
    if in_lang:
        where.append(posts.c.lang == bindparam("lang"))
    return (
        select(posts)
        .join(users, users.c.id == posts.c.author_id)
        .where(*where)
        .order_by(posts.c.id.desc())
        .limit(bindparam("limit"))
    )


_eligible_page = {in_lang: _eligible(in_lang) for in_lang in (False, True)}
_all_notes = select(notes).order_by(notes.c.id)
_all_writers = select(note_writers).order_by(note_writers.c.user_id)


# ---- writes (inside the caller's transaction) ---------------------------------------------------


async def insert_note(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_note, row)


async def note_of_tx(tx: Executor, author_id: int, post_id: int) -> Row | None:
    return await tx.fetch_one(_note_of, {"author_id": author_id, "post_id": post_id})


async def note_tx(tx: Executor, note_id: int) -> Row | None:
    return await tx.fetch_one(_note, {"id": note_id})


async def delete_note(tx: Executor, note_id: int) -> bool:
    return await tx.execute(_delete_note, {"id": note_id}) > 0


async def enrol_writer(tx: Executor, user_id: int, now_ms: int) -> bool:
    """Enrol a note writer; False if already enrolled."""
    if await tx.fetch_one(_writer, {"user_id": user_id}) is not None:
        return False
    await tx.execute(_insert_writer, {"user_id": user_id, "created_at": now_ms})
    return True


async def all_notes(db: Executor | Database) -> list[Row]:
    """Every note (the export)."""
    return await db.fetch_all(_all_notes)


async def all_writers(db: Executor | Database) -> list[Row]:
    return await db.fetch_all(_all_writers)


# ---- reads --------------------------------------------------------------------------------------


class NoteStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def is_writer(self, user_id: int) -> bool:
        return await self._db.fetch_one(_writer, {"user_id": user_id}) is not None

    async def written(self, author_id: int, test_mode: bool, before: int, limit: int) -> list[Row]:
        """The writer's notes of one mode with ids below `before`, newest first."""
        params = {"author_id": author_id, "test_mode": int(test_mode), "before": before, "limit": limit}
        return await self._db.fetch_all(_written_page, params)

    async def eligible(
        self, writer: int, since_ms: int, lang: str | None, before: int, limit: int
    ) -> list[Row]:
        params: dict[str, Any] = {"writer": writer, "since": since_ms, "before": before, "limit": limit}
        if lang is not None:
            params["lang"] = lang
        return await self._db.fetch_all(_eligible_page[lang is not None], params)
