"""Alembic environment: runs migrations for SQLite (sqlite3) and PostgreSQL (asyncpg via run_sync)."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import context
from sqlalchemy import Connection, create_engine, pool

from roost.storage.schema import metadata
from roost.storage.search import SEARCH_INDEX_OBJECTS

config = context.config
url = config.get_main_option("sqlalchemy.url") or ""


def include_object(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """Leave the full-text index alone in autogenerate: SQLite's FTS5 table (and its shadow tables)
    and PostgreSQL's expression index are made by raw DDL in migration 0008, not by the metadata."""
    if not reflected or name is None:
        return True
    if type_ == "table" and name.startswith(SEARCH_INDEX_OBJECTS):
        return False
    return not (type_ == "index" and name in SEARCH_INDEX_OBJECTS)


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=True,
        include_object=include_object,
    )
    with context.begin_transaction():
        context.run_migrations()


def _online() -> None:
    if url.startswith("postgres"):
        from sqlalchemy.ext.asyncio import create_async_engine

        async_url = "postgresql+asyncpg://" + url.split("://", 1)[1]

        async def run_async() -> None:
            engine = create_async_engine(async_url, poolclass=pool.NullPool)
            async with engine.connect() as connection:
                await connection.run_sync(_run)
                await connection.commit()
            await engine.dispose()

        asyncio.run(run_async())
    else:
        engine = create_engine(url, poolclass=pool.NullPool)
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
        engine.dispose()


if context.is_offline_mode():
    context.configure(url=url, target_metadata=metadata, literal_binds=True, include_object=include_object)
    with context.begin_transaction():
        context.run_migrations()
else:
    _online()
