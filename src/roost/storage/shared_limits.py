"""The nonces and rate-limit windows of several processes on one PostgreSQL database (issue 16):
each claim or count is one statement, atomic across processes.

They run as single autocommitted statements (`fetch_value` of `… RETURNING`), not in `transaction()`:
a transaction's commit notifies every other process (waking its streams and workers), which the
hottest statements of the server must not do on every request."""

from __future__ import annotations

import hashlib

from sqlalchemy import bindparam, delete, literal, text
from sqlalchemy.dialects.postgresql import insert

from roost.core.records import Row
from roost.storage.db import Database
from roost.storage.schema_shared import oauth_nonces, rate_windows

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


# Every window counted since the last call in one statement: each row adds its requests to the
# shared count, or starts the window again when the stored one has reset.
_count = text(
    """
    INSERT INTO rate_windows (key, used, reset_s)
    SELECT key, used, reset_s
    FROM unnest(CAST(:keys AS text[]), CAST(:amounts AS integer[]), CAST(:resets AS bigint[]))
        AS counted (key, used, reset_s)
    ON CONFLICT (key) DO UPDATE SET
        used = CASE WHEN rate_windows.reset_s <= CAST(:now AS bigint)
            THEN excluded.used ELSE rate_windows.used + excluded.used END,
        reset_s = CASE WHEN rate_windows.reset_s <= CAST(:now AS bigint)
            THEN excluded.reset_s ELSE rate_windows.reset_s END
    RETURNING key, used, reset_s
    """
)
_expired_windows = delete(rate_windows).where(rate_windows.c.reset_s < bindparam("now")).returning(literal(1))


class WindowStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._swept_at = 0.0

    async def count(self, counted: list[tuple[str, int, int]], now_s: int) -> list[Row]:
        """Add (key, requests, reset_s) to the shared windows; each window's key, used and reset_s now."""
        if not counted:
            return []
        keys, amounts, resets = (list(column) for column in zip(*counted, strict=True))
        params = {"keys": keys, "amounts": amounts, "resets": resets, "now": now_s}
        return await self._db.fetch_all(_count, params)

    async def count_one(self, key: str, window_s: int, now_s: int) -> int:
        """Count one request in a fixed window of `window_s` seconds; the window's count now."""
        rows = await self.count([(key, 1, now_s + window_s)], now_s)
        return int(rows[0]["used"])

    async def sweep(self, now_s: float) -> None:
        """Delete the windows that have reset (at most once a minute per process)."""
        if now_s - self._swept_at < SWEEP_EVERY_S:
            return
        self._swept_at = now_s
        await self._db.fetch_value(_expired_windows, {"now": int(now_s)})
