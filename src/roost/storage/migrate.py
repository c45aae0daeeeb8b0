"""Bring a database to the newest schema revision (Alembic), from the CLI or at server start.

Alembic (about 11 MB of resident memory once imported) is loaded only when the database is not
already at the newest revision, which is every start but the first: the revision stored in the
database's `alembic_version` table is compared with the head of `migrations/versions` first.

Processes started together on one new database take turns: the migration (and, at server start, the
demo seed after it) runs under `StartupLock`, a PostgreSQL advisory lock or, for SQLite, an exclusive
lock on a file beside the database; the others wait for it, then find the work done.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import re
import sqlite3
import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

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
    """Bring the database to the newest revision, holding the start-up lock while it runs."""
    with StartupLock(url):
        upgrade_holding_lock(url)


def upgrade_holding_lock(url: str) -> None:
    """`upgrade` for a caller that holds the `StartupLock` already (the server, which seeds after).
    Runs in a thread of its own: the PostgreSQL path starts its own event loop."""
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


# The advisory lock's key: any fixed 64-bit number other programs on the database are unlikely to use.
ADVISORY_LOCK_KEY = 0x726F6F7374  # "roost"


class StartupLock:
    """One process at a time between `acquire` and `release`, among all processes on one database.

    PostgreSQL: a session advisory lock, held by a connection of its own on a thread of its own (so it
    serves synchronous and asynchronous callers alike, and a crashed holder's lock ends with its
    connection). SQLite: `flock` on `<database>.lock`, which ends with the process too. An in-memory
    database is this process's alone: nothing to lock.
    """

    def __init__(self, url: str) -> None:
        self._url = url
        self._file: int | None = None
        self._holder: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._done: asyncio.Event | None = None

    def acquire(self) -> None:
        """Block until this process holds the lock (the waiting is the point)."""
        if self._url.startswith("sqlite"):
            path = sqlite_path(self._url)
            if path == ":memory:":
                return
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._file = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(self._file, fcntl.LOCK_EX)
            return
        acquired = threading.Event()
        failure: list[BaseException] = []

        async def hold() -> None:
            import asyncpg

            self._loop = asyncio.get_running_loop()
            self._done = asyncio.Event()
            try:
                connection = await asyncpg.connect(asyncpg_dsn(self._url))
            except BaseException as exc:
                failure.append(exc)
                acquired.set()
                return
            try:
                await connection.execute("SELECT pg_advisory_lock($1)", ADVISORY_LOCK_KEY)
            except BaseException as exc:
                failure.append(exc)
                await connection.close()
                acquired.set()
                return
            acquired.set()
            try:
                await self._done.wait()
            finally:
                await connection.close()  # the session's end releases its advisory lock

        self._holder = threading.Thread(target=asyncio.run, args=(hold(),), name="roost-startup-lock")
        self._holder.start()
        acquired.wait()
        if failure:
            self._holder.join()
            self._holder = None
            raise failure[0]

    def release(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            os.close(file)  # closing the descriptor releases the flock
        if self._holder is not None:
            holder, self._holder = self._holder, None
            if self._loop is not None and self._done is not None:
                with contextlib.suppress(RuntimeError):  # the loop already ended
                    self._loop.call_soon_threadsafe(self._done.set)
            holder.join()

    def __enter__(self) -> StartupLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.release()

    async def __aenter__(self) -> StartupLock:
        await asyncio.to_thread(self.acquire)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await asyncio.to_thread(self.release)
