"""New and wiped posts reach the SQLite full-text index through roost's writers, not triggers

A trigger adds each post to the FTS5 index inside its own savepoint, and FTS5 writes a segment at every
savepoint; the writers now add the posts of a group commit together just before its COMMIT
(`storage/search.py`). PostgreSQL's index is an expression index: nothing changes there.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-06 09:00:00.000000
"""

from __future__ import annotations

from alembic import op

from roost.storage.search import FTS_DDL, FTS_WRITER_TRIGGERS

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in FTS_WRITER_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in FTS_DDL:
            if any(f"TRIGGER {name} " in statement for name in FTS_WRITER_TRIGGERS):
                op.execute(statement)
