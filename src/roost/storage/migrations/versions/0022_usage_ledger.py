"""The usage ledger and each app's credit (issue 20)

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-06 01:20:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "usage_ledger",
        sa.Column("app_id", sa.BigInteger(), nullable=False),
        sa.Column("day", sa.Text(), nullable=False),
        sa.Column("operation", sa.Text(), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("requests", sa.BigInteger(), nullable=False),
        sa.Column("billed", sa.BigInteger(), nullable=False),
        sa.Column("resources", sa.BigInteger(), nullable=False),
        sa.Column("cost_micros", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("app_id", "day", "operation", "variant"),
    )
    with op.batch_alter_table("apps", schema=None) as batch_op:
        batch_op.add_column(sa.Column("credit_micros", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("apps", schema=None) as batch_op:
        batch_op.drop_column("credit_micros")
    op.drop_table("usage_ledger")
