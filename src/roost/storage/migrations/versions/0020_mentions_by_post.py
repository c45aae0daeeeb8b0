"""Mentions found by post: the account-activity fan-out and post deletion read them by post id

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28 19:05:00.000000
"""

from __future__ import annotations

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("post_mentions", schema=None) as batch_op:
        batch_op.create_index("ix_post_mentions_post", ["post_id", "user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("post_mentions", schema=None) as batch_op:
        batch_op.drop_index("ix_post_mentions_post")
