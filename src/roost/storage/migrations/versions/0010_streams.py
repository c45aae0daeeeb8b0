"""streams: connection history, usage ledger

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-22 09:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "stream_connections",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("app_id", sa.BigInteger(), nullable=False),
        sa.Column("project_id", sa.BigInteger(), nullable=False),
        sa.Column("endpoint", sa.Text(), nullable=False),
        sa.Column("partition", sa.Integer(), nullable=True),
        sa.Column("connected_at", sa.BigInteger(), nullable=False),
        sa.Column("disconnected_at", sa.BigInteger(), nullable=True),
        sa.Column("disconnect_reason", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("stream_connections", schema=None) as batch_op:
        batch_op.create_index("ix_stream_connections_app", ["app_id", "connected_at"], unique=False)
    op.create_table(
        "usage_records",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("project_id", sa.BigInteger(), nullable=False),
        sa.Column("app_id", sa.BigInteger(), nullable=False),
        sa.Column("day_ms", sa.BigInteger(), nullable=False),
        sa.Column("posts", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("usage_records", schema=None) as batch_op:
        batch_op.create_index("ix_usage_records_project_day", ["project_id", "day_ms"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("usage_records", schema=None) as batch_op:
        batch_op.drop_index("ix_usage_records_project_day")
    op.drop_table("usage_records")
    with op.batch_alter_table("stream_connections", schema=None) as batch_op:
        batch_op.drop_index("ix_stream_connections_app")
    op.drop_table("stream_connections")
