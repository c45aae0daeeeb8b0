"""The nonces and rate-limit windows of several processes on one PostgreSQL database (issue 16):
each claim or count is one statement, atomic across processes.

They run as single autocommitted statements (`fetch_value` of `… RETURNING`), not in `transaction()`:
a transaction's commit notifies every other process (waking its streams and workers), which the
hottest statements of the server must not do on every request."""

from __future__ import annotations

import hashlib

from sqlalchemy import bindparam, delete, literal
from sqlalchemy.dialects.postgresql import insert

from roost.storage.db import Database
from roost.storage.schema_shared import oauth_nonces

_claim = (
    insert(oauth_nonces)
    .values(key=bindparam("key"), expires_at=bindparam("expires_at"))
    .on_conflict_do_nothing(index_elements=[oauth_nonces.c.key])
    .returning(literal(1))
)
_expired_nonces = (
    delete(oauth_nonces).where(oauth_nonces.c.expires_at < bindparam("now")).returning(literal(1))
)

# Expired rows are deleted now and then, not on every claim.
SWEEP_EVERY_S = 60


class NonceStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._swept_at = 0.0

    async def claim(
        self, consumer_key: str, token: str | None, nonce: str, timestamp: int, expires_at: int
    ) -> bool:
        """True when no process accepted this nonce before (it is now taken), False for a replay."""
        text = "\x00".join((consumer_key, token or "", nonce, str(timestamp)))
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return await self._db.fetch_value(_claim, {"key": digest, "expires_at": expires_at}) == 1

    async def sweep(self, now_s: float) -> None:
        """Delete the nonces past their window (at most once a minute per process)."""
        if now_s - self._swept_at < SWEEP_EVERY_S:
            return
        self._swept_at = now_s
        await self._db.fetch_value(_expired_nonces, {"now": int(now_s)})
