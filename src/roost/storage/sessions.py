"""Browser sessions of the sign-in page."""

from __future__ import annotations

from sqlalchemy import bindparam, delete, select

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import web_sessions
from roost.storage.statements import insert_all

_insert = insert_all(web_sessions)
_get = select(web_sessions).where(web_sessions.c.id == bindparam("id"))
_delete = delete(web_sessions).where(web_sessions.c.id == bindparam("id"))


async def create_session(tx: Executor, session_id: str, user_id: int, now_ms: int, lifetime_ms: int) -> None:
    await tx.execute(
        _insert,
        {"id": session_id, "user_id": user_id, "created_at": now_ms, "expires_at": now_ms + lifetime_ms},
    )


async def get_session(db: Database, session_id: str) -> Row | None:
    return await db.fetch_one(_get, {"id": session_id})


async def end_session(tx: Executor, session_id: str) -> None:
    await tx.execute(_delete, {"id": session_id})
