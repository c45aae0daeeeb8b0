"""Issue 22's broadcasts table: the scheduled live-video broadcasts of `/2/broadcasts/scheduled*`.
Registered on `metadata` by importing this module from `schema`."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, Table, Text

from roost.storage.schema_base import metadata

# One occurrence of a scheduled broadcast. `id` is the alphanumeric broadcast id of the paths,
# `scheduled_id` the numeric scheduler id the update body names; occurrences of one recurring series
# share `series_id`. `state` moves on the roost clock: Scheduled → Running → Ended.
broadcasts = Table(
    "broadcasts",
    metadata,
    Column("id", Text, primary_key=True),
    Column("scheduled_id", BigInteger, nullable=False, unique=True),
    Column("user_id", BigInteger, nullable=False),
    Column("source_id", Text, nullable=False),
    Column("title", Text),
    Column("description", Text),
    Column("locale", Text),
    Column("chat_option", Text),
    Column("telecast_id", Text),
    Column("thumbnail_media_id", Text),
    Column("available_for_replay", Integer, nullable=False, server_default="0"),
    Column("manual_publish", Integer, nullable=False, server_default="0"),
    Column("is_locked", Integer, nullable=False, server_default="0"),
    Column("series_id", BigInteger),
    Column("scheduled_start", BigInteger, nullable=False),
    Column("scheduled_end", BigInteger),
    Column("state", Text, nullable=False),  # Scheduled | Running | Ended
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Column("started_at", BigInteger),
    Column("ended_at", BigInteger),
    Index("ix_broadcasts_user_start", "user_id", "scheduled_start", "id"),
    Index("ix_broadcasts_state_start", "state", "scheduled_start"),
    Index("ix_broadcasts_state_end", "state", "scheduled_end"),
)

__all__ = ["broadcasts"]
