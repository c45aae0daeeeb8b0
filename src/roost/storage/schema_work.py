"""Work several server processes on one database share out (issue 16): the leases that let one
process at a time run a singleton job (turning the event log into deliveries, the CRC schedule, replay
jobs). Registered on `metadata` by importing this module from `schema`."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Table, Text

from roost.storage.schema_base import metadata

# One row per singleton job: the process holding it and until when (wall-clock epoch ms, not the
# roost clock, which tests move). A holder renews it; another process takes it once it has expired.
work_leases = Table(
    "work_leases",
    metadata,
    Column("name", Text, primary_key=True),
    Column("holder", Text, nullable=False),  # a random id per server process
    Column("expires_at", BigInteger, nullable=False),
)
