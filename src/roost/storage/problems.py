"""Why a database could not be opened, in one line a person can act on (for the command line).

The driver errors arrive wrapped (SQLAlchemy around asyncpg at migration time, bare at connect
time), so the cause chain is searched for the first error that says something useful.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from urllib.parse import unquote, urlsplit

from roost.storage.db import sqlite_path

# PostgreSQL SQLSTATE codes (asyncpg errors carry them as `sqlstate`).
_NO_DATABASE = "3D000"
_LOGIN_REFUSED = ("28000", "28P01")


def explain(exc: BaseException, url: str) -> str | None:
    """One line for a failure to reach the database at `url`, or None when it is something else."""
    scheme = url.partition("://")[0].lower()
    if not scheme.startswith(("sqlite", "postgres")):
        return f"unsupported database URL {_safe(url)}: use sqlite:///PATH or postgresql://USER@HOST/NAME"
    for error in _causes(exc):
        if scheme.startswith("postgres"):
            message = _postgres(error, url)
        elif isinstance(error, OSError | sqlite3.Error):
            message = f"cannot open the SQLite database {sqlite_path(url)}: {_reason(error)}"
        else:
            message = None
        if message is not None:
            return message
    return None


def _postgres(error: BaseException, url: str) -> str | None:
    parts = urlsplit(url)
    try:
        given_port = parts.port
    except ValueError:  # not a number: the driver says so below
        given_port = None
    host, port = parts.hostname or "localhost", given_port or 5432
    name = unquote(parts.path.lstrip("/")) or parts.username or "postgres"
    code = getattr(error, "sqlstate", None)
    if code == _NO_DATABASE:
        options = "".join(
            f" {flag} {value}"
            for flag, value in (("-h", parts.hostname), ("-p", given_port), ("-U", parts.username))
            if value
        )
        return f'database "{name}" does not exist on {host}:{port}; create it with: createdb{options} {name}'
    if code in _LOGIN_REFUSED:
        return f"PostgreSQL at {host}:{port} refused the login: {error}"
    if isinstance(error, ConnectionRefusedError):
        return f"cannot connect to PostgreSQL at {host}:{port}: connection refused (is the server running?)"
    if isinstance(error, OSError):
        return f"cannot connect to PostgreSQL at {host}:{port}: {_reason(error)}"
    return None


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The error and what it wraps (`__cause__`, `__context__`, SQLAlchemy's `orig`), each once."""
    pending: list[BaseException | None] = [exc]
    seen: set[int] = set()
    while pending:
        error = pending.pop(0)
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        pending += [getattr(error, "orig", None), error.__cause__, error.__context__]


def _reason(error: BaseException) -> str:
    return (error.strerror if isinstance(error, OSError) else None) or str(error)


def _safe(url: str) -> str:
    """The URL without a password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1)).geturl()
