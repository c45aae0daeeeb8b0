"""Each app's access package: pay-per-use or enterprise (issue 20)

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28 19:40:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("apps", schema=None) as batch_op:
        # Apps made before packages existed keep every operation open.
        batch_op.add_column(sa.Column("package", sa.Text(), nullable=False, server_default="enterprise"))


def downgrade() -> None:
    with op.batch_alter_table("apps", schema=None) as batch_op:
        batch_op.drop_column("package")
