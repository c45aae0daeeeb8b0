"""Storage behind custom audiences: the identities of roost's users that uploaded audience members
are matched against (id, username, email), read in pages by id."""

from __future__ import annotations

from sqlalchemy import bindparam, select

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import users

_identities = (
    select(users.c.id, users.c.username, users.c.email)
    .where(users.c.id > bindparam("after"))
    .order_by(users.c.id)
    .limit(bindparam("limit"))
)


async def user_identities(reader: Database | Executor, after: int, limit: int) -> list[Row]:
    """Users with an id above `after`, oldest first: `id`, `username`, `email`."""
    return await reader.fetch_all(_identities, {"after": after, "limit": limit})
