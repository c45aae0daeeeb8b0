"""What each app's traffic cost (issue 20): the ledger of priced requests by app, UTC day, operation
and price variant. Registered on `metadata` by importing this module from `schema`."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, PrimaryKeyConstraint, Table, Text

from roost.storage.schema_base import metadata

# One row per (app, day, operation, variant); every process adds its counts to the same row. The cost is
# recorded when the requests are counted, at the price of that moment, in millionths of a dollar.
usage_ledger = Table(
    "usage_ledger",
    metadata,
    Column("app_id", BigInteger, nullable=False),
    Column("day", Text, nullable=False),  # YYYY-MM-DD, UTC
    Column("operation", Text, nullable=False),
    Column("variant", Text, nullable=False),  # "" (the base price), "url" or "owned"
    Column("requests", BigInteger, nullable=False),
    Column("billed", BigInteger, nullable=False),  # answered below 400
    Column("resources", BigInteger, nullable=False),  # objects returned by the billed requests
    Column("cost_micros", BigInteger, nullable=False),
    PrimaryKeyConstraint("app_id", "day", "operation", "variant"),
)
