"""spaces: the rest of the Space object, space tickets, compliance jobs, account standing

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26 12:58:56.123520
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_standing",
        sa.Column(
            "user_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=False,
            nullable=False,
        ),
        sa.Column("suspended_at", sa.BigInteger(), nullable=True),
        sa.Column("deactivated_at", sa.BigInteger(), nullable=True),
        sa.Column("geo_scrubbed_at", sa.BigInteger(), nullable=True),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("user_id"),
    )
    op.create_table(
        "compliance_jobs",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=False, nullable=False
        ),
        sa.Column("app_id", sa.BigInteger(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("resumable", sa.Integer(), server_default="0", nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("upload_expires_at", sa.BigInteger(), nullable=False),
        sa.Column("download_expires_at", sa.BigInteger(), nullable=False),
        sa.Column("signature", sa.Text(), nullable=False),
        sa.Column("upload", sa.Text(), nullable=True),
        sa.Column("uploaded_at", sa.BigInteger(), nullable=True),
        sa.Column("ready_at", sa.BigInteger(), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("compliance_jobs", schema=None) as batch_op:
        batch_op.create_index("ix_compliance_jobs_app", ["app_id", "type", "id"], unique=False)

    op.create_table(
        "space_tickets",
        sa.Column("space_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("space_id", "user_id"),
    )
    with op.batch_alter_table("space_tickets", schema=None) as batch_op:
        batch_op.create_index("ix_space_tickets_space_created", ["space_id", "created_at"], unique=False)

    with op.batch_alter_table("spaces", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scheduled_start", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("updated_at", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("lang", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("is_ticketed", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(
            sa.Column("participant_count", sa.BigInteger(), server_default="0", nullable=False)
        )
        batch_op.add_column(
            sa.Column("subscriber_count", sa.BigInteger(), server_default="0", nullable=False)
        )
        batch_op.add_column(sa.Column("host_ids", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("speaker_ids", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("invited_user_ids", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("topic_ids", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("spaces", schema=None) as batch_op:
        batch_op.drop_column("topic_ids")
        batch_op.drop_column("invited_user_ids")
        batch_op.drop_column("speaker_ids")
        batch_op.drop_column("host_ids")
        batch_op.drop_column("subscriber_count")
        batch_op.drop_column("participant_count")
        batch_op.drop_column("is_ticketed")
        batch_op.drop_column("lang")
        batch_op.drop_column("updated_at")
        batch_op.drop_column("scheduled_start")

    with op.batch_alter_table("space_tickets", schema=None) as batch_op:
        batch_op.drop_index("ix_space_tickets_space_created")

    op.drop_table("space_tickets")
    with op.batch_alter_table("compliance_jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_compliance_jobs_app")

    op.drop_table("compliance_jobs")
    op.drop_table("account_standing")
