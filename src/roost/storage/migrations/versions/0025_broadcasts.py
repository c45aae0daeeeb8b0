"""Scheduled broadcasts (issue 22)

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06 10:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "broadcasts",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("scheduled_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("source_id", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("locale", sa.Text(), nullable=True),
        sa.Column("chat_option", sa.Text(), nullable=True),
        sa.Column("telecast_id", sa.Text(), nullable=True),
        sa.Column("thumbnail_media_id", sa.Text(), nullable=True),
        sa.Column("available_for_replay", sa.Integer(), server_default="0", nullable=False),
        sa.Column("manual_publish", sa.Integer(), server_default="0", nullable=False),
        sa.Column("is_locked", sa.Integer(), server_default="0", nullable=False),
        sa.Column("series_id", sa.BigInteger(), nullable=True),
        sa.Column("scheduled_start", sa.BigInteger(), nullable=False),
        sa.Column("scheduled_end", sa.BigInteger(), nullable=True),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.Column("started_at", sa.BigInteger(), nullable=True),
        sa.Column("ended_at", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("scheduled_id"),
    )
    op.create_index("ix_broadcasts_user_start", "broadcasts", ["user_id", "scheduled_start", "id"])
    op.create_index("ix_broadcasts_state_start", "broadcasts", ["state", "scheduled_start"])
    op.create_index("ix_broadcasts_state_end", "broadcasts", ["state", "scheduled_end"])


def downgrade() -> None:
    op.drop_index("ix_broadcasts_state_end", table_name="broadcasts")
    op.drop_index("ix_broadcasts_state_start", table_name="broadcasts")
    op.drop_index("ix_broadcasts_user_start", table_name="broadcasts")
    op.drop_table("broadcasts")
