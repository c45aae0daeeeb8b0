"""Leases of the singleton jobs several processes share (issue 16): one statement takes or renews a
lease, atomic across processes on both databases (PostgreSQL row locks; SQLite's single writer)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import bindparam, or_, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.sql import ClauseElement

from roost.storage.db import Database
from roost.storage.schema_work import work_leases


def _take(insert: Callable[..., Any]) -> ClauseElement:
    # Insert the lease, or take it over when this holder has it already or it has expired; the row
    # comes back only when this holder now has it.
    statement = insert(work_leases).values(
        name=bindparam("name"), holder=bindparam("holder"), expires_at=bindparam("until")
    )
    return statement.on_conflict_do_update(
        index_elements=[work_leases.c.name],
        set_={"holder": statement.excluded.holder, "expires_at": statement.excluded.expires_at},
        where=or_(
            work_leases.c.holder == statement.excluded.holder,
            work_leases.c.expires_at < bindparam("now"),
        ),
    ).returning(work_leases.c.holder)


_take_postgres = _take(postgresql.insert)
_take_sqlite = _take(sqlite_dialect.insert)
_give_up = (
    update(work_leases)
    .where(work_leases.c.name == bindparam("name"), work_leases.c.holder == bindparam("holder"))
    .values(expires_at=0)
)


class LeaseStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._take = _take_postgres if db.dialect_name == "postgresql" else _take_sqlite

    async def take(self, name: str, holder: str, now_ms: int, until_ms: int) -> bool:
        """Take or renew the lease `name` for `holder` until `until_ms`; False while another holds it."""
        params = {"name": name, "holder": holder, "until": until_ms, "now": now_ms}
        async with self._db.transaction() as tx:
            return await tx.fetch_value(self._take, params) is not None

    async def give_up(self, name: str, holder: str) -> None:
        """End `holder`'s lease at once (a graceful stop), so another process takes over now."""
        async with self._db.transaction() as tx:
            await tx.execute(_give_up, {"name": name, "holder": holder})
