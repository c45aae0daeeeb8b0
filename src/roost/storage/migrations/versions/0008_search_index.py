"""search index (the search helper fills this in)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-22 09:30:00
"""

from __future__ import annotations

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
