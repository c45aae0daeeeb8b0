"""Bring a database to the newest schema revision (Alembic), from the CLI or at server start.

Alembic (about 11 MB of resident memory once imported) is loaded only when the database is not
already at the newest revision, which is every start but the first: the revision stored in the
database's `alembic_version` table is compared with the head of `migrations/versions` first.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from roost.storage.db import asyncpg_dsn, sqlite_path

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"
_REVISION = re.compile(r"""^(down_revision|revision)\s*=\s*["']?([\w-]+|None)["']?\s*$""", re.MULTILINE)


def alembic_config(url: str) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url.startswith("sqlite"):
        path = sqlite_path(url)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{path}"
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str | None:
    """The newest revision of the (linear) migration history, or None when it cannot be told."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for script in (MIGRATIONS / "versions").glob("*.py"):
        found: dict[str, str] = {
            name: value
            for name, value in (m.groups() for m in _REVISION.finditer(script.read_text(encoding="utf-8")))
        }
        if "revision" not in found:
            return None
        revisions.add(found["revision"])
        if found.get("down_revision", "None") != "None":
            parents.add(found["down_revision"])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def stored_revision(url: str) -> str | None:
    """The revision the database says it is at (None: no database yet, or no revision table)."""
    try:
        if url.startswith("sqlite"):
            path = sqlite_path(url)
            if path == ":memory:" or not Path(path).exists():
                return None
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
                row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
            return None if row is None else str(row[0])
        return asyncio.run(_postgres_revision(url))
    except Exception:  # no table yet, or no database: let Alembic create and say
        return None


async def _postgres_revision(url: str) -> str | None:
    import asyncpg

    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        value = await conn.fetchval("SELECT version_num FROM alembic_version")
    finally:
        await conn.close()
    return None if value is None else str(value)


def upgrade(url: str) -> None:
    """Run in a thread of its own: the PostgreSQL path starts its own event loop."""
    errors: list[BaseException] = []

    def work() -> None:
        try:
            head = head_revision()
            if head is not None and stored_revision(url) == head:
                return  # already at the newest revision: nothing to import or run
            from alembic import command

            command.upgrade(alembic_config(url), "head")
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=work, name="roost-migrate")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
