"""Media upload tables (issue 15): upload sessions and their bytes. Registered on `metadata` by
importing this module from `schema`.

The bytes live in the database, one row per segment, so every process of a PostgreSQL deployment
reads them and no upload or download holds a whole file in memory."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, LargeBinary, PrimaryKeyConstraint, Table, Text

from roost.storage.schema_base import RowId, metadata

media_uploads = Table(
    "media_uploads",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("media_key", Text, nullable=False),
    Column("owner_id", BigInteger, nullable=False),
    Column("additional_owners", Text),  # JSON array of user ids (strings)
    Column("shared", Integer, nullable=False, server_default="0"),
    Column("media_type", Text, nullable=False),
    Column("category", Text, nullable=False),
    Column("processed", Integer, nullable=False, server_default="0"),  # processed after FINALIZE
    Column("total_bytes", BigInteger, nullable=False),
    # uploading → finalized (the processing state after that is a function of the clock)
    Column("state", Text, nullable=False, server_default="uploading"),
    Column("created_at", BigInteger, nullable=False),
    Column("expires_at", BigInteger, nullable=False),
    Column("finalized_at", BigInteger),
    Column("failure", Text),  # JSON {code, name, message} when processing will fail
    Column("width", Integer),
    Column("height", Integer),
    Column("used_at", BigInteger),  # attached to a post or message: no longer expires
    Column("alt_text", Text),
    Column("subtitles", Text),  # JSON [{media_id, language_code, display_name}]
    Index("ix_media_uploads_owner", "owner_id", "id"),
)

media_segments = Table(
    "media_segments",
    metadata,
    Column("media_id", BigInteger, nullable=False),
    Column("segment_index", Integer, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("data", LargeBinary, nullable=False),
    PrimaryKeyConstraint("media_id", "segment_index"),
)
