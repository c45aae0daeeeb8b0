"""State several server processes on one PostgreSQL database share (issue 16): the OAuth 1.0a nonces
already accepted and the rate-limit windows. Registered on `metadata` by importing this module from
`schema`. A single process (the embedded SQLite case) keeps both in memory and leaves these empty."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, Table, Text

from roost.storage.schema_base import metadata

# A nonce accepted inside the timestamp window: a replay to any process is refused while it is kept.
oauth_nonces = Table(
    "oauth_nonces",
    metadata,
    Column("key", Text, primary_key=True),  # digest of (consumer key, token, nonce, timestamp)
    Column("expires_at", BigInteger, nullable=False),  # epoch seconds: past the timestamp window
    Index("ix_oauth_nonces_expires", "expires_at"),
)

# One rate-limit window: what it counts and for whom, how many requests it has counted, and when it
# resets; every process counts into the same row.
rate_windows = Table(
    "rate_windows",
    metadata,
    Column("key", Text, primary_key=True),
    Column("used", Integer, nullable=False),
    Column("reset_s", BigInteger, nullable=False),  # epoch seconds
    Index("ix_rate_windows_reset", "reset_s"),
)
