"""connection heartbeats and addresses: stream_connections.seen_at, client_ip

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-22 10:15:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("stream_connections") as batch:
        batch.add_column(sa.Column("seen_at", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("client_ip", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("stream_connections") as batch:
        batch.drop_column("client_ip")
        batch.drop_column("seen_at")
