"""Stream tables: the history of streaming connections (`/2/connections`) and the post usage ledger
behind usage caps and `/2/usage/tweets`."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, Table, Text

from roost.storage.schema_base import RowId, metadata

stream_connections = Table(
    "stream_connections",
    metadata,
    Column("id", Text, primary_key=True),  # the connection UUID
    Column("app_id", BigInteger, nullable=False),
    Column("project_id", BigInteger, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("partition", Integer),
    Column("connected_at", BigInteger, nullable=False),
    Column("disconnected_at", BigInteger),
    Column("disconnect_reason", Text),
    # Wall-clock ms of the serving process's last heartbeat: a row without a recent one belongs to a
    # process that is gone, so the connection is over even though nobody closed the row.
    Column("seen_at", BigInteger),
    Column("client_ip", Text),
    Index("ix_stream_connections_app", "app_id", "connected_at"),
)

# Append-only: one row per delivery batch or search page, summed by day (no upserts, so concurrent
# writers in several processes never conflict).
usage_records = Table(
    "usage_records",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("project_id", BigInteger, nullable=False),
    Column("app_id", BigInteger, nullable=False),
    Column("day_ms", BigInteger, nullable=False),  # 00:00 UTC of the day the posts were delivered
    Column("posts", BigInteger, nullable=False),
    Index("ix_usage_records_project_day", "project_id", "day_ms"),
)
