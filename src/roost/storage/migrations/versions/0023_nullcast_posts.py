"""Promoted-only (nullcast) posts and the card a post carries (issue 23, ads creatives)

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-10 10:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("nullcast", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("card_uri", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_column("card_uri")
        batch_op.drop_column("nullcast")
