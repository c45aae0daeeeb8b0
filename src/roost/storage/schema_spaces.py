"""Issue 15's tables: tickets sold for Spaces, batch compliance jobs, and the account standing that
compliance results report (suspended, deactivated, geo scrubbed). Registered on `metadata` by
importing this module from `schema`; the `spaces` table itself is in `schema`."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, PrimaryKeyConstraint, Table, Text

from roost.storage.schema_base import RowId, metadata

# A ticket to a ticketed Space, bought by a user (what GET /2/spaces/{id}/buyers lists).
space_tickets = Table(
    "space_tickets",
    metadata,
    Column("space_id", Text, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("space_id", "user_id"),
    Index("ix_space_tickets_space_created", "space_id", "created_at"),
)

# A batch compliance job of one app. `status` is what was last settled: the job moves on the roost
# clock (upload expiry, processing time, download expiry) and is settled when next read.
compliance_jobs = Table(
    "compliance_jobs",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("app_id", BigInteger, nullable=False),
    Column("type", Text, nullable=False),  # tweets | users
    Column("name", Text),
    Column("resumable", Integer, nullable=False, server_default="0"),
    Column("status", Text, nullable=False),  # created | in_progress | complete | failed | expired
    Column("created_at", BigInteger, nullable=False),
    Column("upload_expires_at", BigInteger, nullable=False),
    Column("download_expires_at", BigInteger, nullable=False),
    Column("signature", Text, nullable=False),  # the pre-signed URLs' signature (hex)
    Column("upload", Text),  # the uploaded file so far (ids, one a line)
    Column("uploaded_at", BigInteger),
    Column("ready_at", BigInteger),  # when processing ends (uploaded_at + processing time)
    Column("result", Text),  # JSON lines, one per id needing action, set when complete
    Index("ix_compliance_jobs_app", "app_id", "type", "id"),
)

# What an account's compliance events say happened to it, beyond deletion and protection (which the
# users and posts tables hold): suspension, deactivation, and the scrub of its posts' geo data.
account_standing = Table(
    "account_standing",
    metadata,
    Column("user_id", RowId, primary_key=True, autoincrement=False),
    Column("suspended_at", BigInteger),
    Column("deactivated_at", BigInteger),
    Column("geo_scrubbed_at", BigInteger),
    Column("updated_at", BigInteger, nullable=False),
)

__all__ = ["account_standing", "compliance_jobs", "space_tickets"]
