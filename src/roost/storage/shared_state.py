"""Settings every server process on one database shares (issue 16): the clock and the feature
settings changed at run time, as rows of `roost_settings` whose keys start with `shared:`."""

from __future__ import annotations

from sqlalchemy import select

from roost.storage.apps import put_setting
from roost.storage.db import Database
from roost.storage.schema import settings

PREFIX = "shared:"
CLOCK_KEY = PREFIX + "clock"
FEATURE_PREFIX = PREFIX + "feature:"

# A key range rather than LIKE: the primary key's index answers it on both databases.
_shared = select(settings.c.key, settings.c.value).where(
    settings.c.key >= PREFIX, settings.c.key < PREFIX[:-1] + ";"
)


async def shared_settings(db: Database) -> dict[str, str]:
    """Every shared row, by key."""
    return {row["key"]: row["value"] for row in await db.fetch_all(_shared)}


async def put_shared(db: Database, values: dict[str, str]) -> None:
    """Write shared rows in one transaction (its commit tells the other processes)."""
    async with db.transaction() as tx:
        for key, value in values.items():
            await put_setting(tx, key, value)
