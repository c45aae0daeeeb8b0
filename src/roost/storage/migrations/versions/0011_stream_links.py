"""filtered-stream webhook links

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-22 09:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "stream_links",
        sa.Column(
            "webhook_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=False,
            nullable=False,
        ),
        sa.Column("app_id", sa.BigInteger(), nullable=False),
        sa.Column("params", sa.Text(), server_default="[]", nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("webhook_id"),
    )
    with op.batch_alter_table("stream_links", schema=None) as batch_op:
        batch_op.create_index("ix_stream_links_app", ["app_id", "webhook_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("stream_links", schema=None) as batch_op:
        batch_op.drop_index("ix_stream_links_app")

    op.drop_table("stream_links")
