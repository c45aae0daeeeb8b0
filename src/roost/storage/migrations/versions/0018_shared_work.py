"""Shared work of several processes on one database (issue 16): singleton-job leases and delivery claims

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26 14:00:11.969371
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "work_leases",
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("holder", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    # Rows left `sending` by an older server have no claim expiry: they count as expired claims.
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("claim_expires_at", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_column("claim_expires_at")
        batch_op.drop_column("claimed_by")

    op.drop_table("work_leases")
