"""Each webhook's newest CRC checks, for the console (issue 17)

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26 19:50:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "crc_checks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("webhook_id", sa.BigInteger(), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("trigger", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("crc_checks", schema=None) as batch_op:
        batch_op.create_index("ix_crc_checks_webhook", ["webhook_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("crc_checks", schema=None) as batch_op:
        batch_op.drop_index("ix_crc_checks_webhook")
    op.drop_table("crc_checks")
