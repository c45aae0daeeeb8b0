"""What every schema module builds on: the one `MetaData` and the 64-bit row-id column type."""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer, MetaData

metadata = MetaData()

# A 64-bit key that SQLite stores as its rowid (INTEGER PRIMARY KEY): lookups by id then need no
# separate index probe.
RowId = BigInteger().with_variant(Integer(), "sqlite")
