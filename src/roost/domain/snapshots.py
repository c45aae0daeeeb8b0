"""Whole-state snapshots (`GET` and `POST /_roost/snapshot`): every covered table written as it is
stored, and restored exactly, ids kept, in one transaction (`docs/snapshots.md`).

The read runs in one transaction, so the document is one instant of the database even while the server
keeps serving (on SQLite that transaction holds the write lock: writes wait until the document is out).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import cache

from roost.auth.principals import Authenticator
from roost.core import errors
from roost.core.ratelimit import RateLimiter
from roost.domain.maintenance import Maintenance
from roost.domain.shared_state import SharedSettings
from roost.domain.snapshot_document import DOCUMENT_END, TABLE_END, Reader, header, rows_lines, table_start
from roost.storage import snapshot as tables
from roost.storage.db import Database
from roost.storage.migrate import head_revision
from roost.storage.users import UserStore


@cache
def schema_revision() -> str:
    """The schema a document belongs to: the newest migration (the server migrates to it at start)."""
    return head_revision() or "unknown"


class Snapshots:
    def __init__(
        self,
        db: Database,
        users: UserStore,
        maintenance: Maintenance,
        shared: SharedSettings,
        authenticator: Authenticator,
        limiter: RateLimiter,
    ) -> None:
        self._db = db
        self._users = users
        self._maintenance = maintenance  # the id floor rises past restored ids
        self._shared = shared  # the restored clock and feature settings, taken at once
        self._authenticator = authenticator
        self._limiter = limiter

    async def document(self) -> AsyncIterator[bytes]:
        """The document in pieces: its header, then each table's rows a page at a time."""
        async with self._db.transaction() as tx:
            await tables.hold_still(tx, self._db.dialect_name)
            yield header(schema_revision())
            for index, spec in enumerate(tables.COVERED):
                yield table_start(spec, first=index == 0)
                first = True
                async for rows in tables.pages(tx, spec):
                    yield rows_lines(spec, rows, first)
                    first = False
                yield TABLE_END
            yield DOCUMENT_END

    async def restore(self, body: bytes) -> dict[str, int]:
        """Replace every covered table's rows with the document's; rows restored per table. A document
        that is malformed or of another schema is refused (400) before anything changes."""
        reader = Reader(body, schema_revision())  # the header is checked here, outside the transaction
        async with self._db.transaction() as tx:
            await tables.wipe(tx)
            for batch in reader.batches():
                if batch.rows:
                    try:
                        await tables.insert(tx, batch.spec, batch.rows)
                    except tables.RowsRefused as exc:
                        raise errors.invalid_body(f"snapshot: rows refused by the database: {exc}") from None
                    await asyncio.sleep(0)  # SQLite runs on the loop: let other requests through
            await tables.repair_sequences(tx, self._db.dialect_name)
        # What the server remembers of the rows it no longer has, as after a reset.
        self._authenticator.forget()
        self._limiter.reset()
        self._users.forget_protected()
        await self._maintenance.observe_ids()
        await self._shared.refresh()  # the restored clock and feature settings
        return reader.seen
