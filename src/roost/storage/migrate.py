"""Bring a database to the newest schema revision (Alembic), from the CLI or at server start."""

from __future__ import annotations

import threading
from pathlib import Path

from alembic import command
from alembic.config import Config

from roost.storage.db import sqlite_path

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url.startswith("sqlite"):
        path = sqlite_path(url)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{path}"
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str) -> None:
    """Run in a thread of its own: the PostgreSQL path starts its own event loop."""
    errors: list[BaseException] = []

    def work() -> None:
        try:
            command.upgrade(alembic_config(url), "head")
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=work, name="roost-migrate")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
