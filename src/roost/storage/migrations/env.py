"""Alembic environment: runs migrations for SQLite (sqlite3) and PostgreSQL (asyncpg via run_sync)."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import Connection, create_engine, pool

from roost.storage.schema import metadata

config = context.config
url = config.get_main_option("sqlalchemy.url") or ""


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
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
    context.configure(url=url, target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    _online()
