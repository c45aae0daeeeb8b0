"""OAuth 1.0a nonces and rate-limit windows shared by the processes of one database (issue 16)

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26 13:31:22.570759
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "oauth_nonces",
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    with op.batch_alter_table("oauth_nonces", schema=None) as batch_op:
        batch_op.create_index("ix_oauth_nonces_expires", ["expires_at"], unique=False)

    op.create_table(
        "rate_windows",
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.Column("reset_s", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    with op.batch_alter_table("rate_windows", schema=None) as batch_op:
        batch_op.create_index("ix_rate_windows_reset", ["reset_s"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("rate_windows", schema=None) as batch_op:
        batch_op.drop_index("ix_rate_windows_reset")

    op.drop_table("rate_windows")
    with op.batch_alter_table("oauth_nonces", schema=None) as batch_op:
        batch_op.drop_index("ix_oauth_nonces_expires")

    op.drop_table("oauth_nonces")
