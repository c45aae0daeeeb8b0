"""media uploads and their segments

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 13:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "media_uploads",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=False, nullable=False
        ),
        sa.Column("media_key", sa.Text(), nullable=False),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("additional_owners", sa.Text(), nullable=True),
        sa.Column("shared", sa.Integer(), server_default="0", nullable=False),
        sa.Column("media_type", sa.Text(), nullable=False),
        sa.Column("category", sa.Text(), nullable=False),
        sa.Column("processed", sa.Integer(), server_default="0", nullable=False),
        sa.Column("total_bytes", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.Text(), server_default="uploading", nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.Column("finalized_at", sa.BigInteger(), nullable=True),
        sa.Column("failure", sa.Text(), nullable=True),
        sa.Column("width", sa.Integer(), nullable=True),
        sa.Column("height", sa.Integer(), nullable=True),
        sa.Column("used_at", sa.BigInteger(), nullable=True),
        sa.Column("alt_text", sa.Text(), nullable=True),
        sa.Column("subtitles", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("media_uploads", schema=None) as batch_op:
        batch_op.create_index("ix_media_uploads_owner", ["owner_id", "id"], unique=False)
    op.create_table(
        "media_segments",
        sa.Column("media_id", sa.BigInteger(), nullable=False),
        sa.Column("segment_index", sa.Integer(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("media_id", "segment_index"),
    )


def downgrade() -> None:
    op.drop_table("media_segments")
    with op.batch_alter_table("media_uploads", schema=None) as batch_op:
        batch_op.drop_index("ix_media_uploads_owner")
    op.drop_table("media_uploads")
