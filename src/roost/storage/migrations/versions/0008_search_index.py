"""search index: posts.search_text / search_urls, SQLite FTS5 or a PostgreSQL GIN index

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-22 09:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from roost.storage.search import FTS_DDL, FTS_DROP, PG_INDEX_DDL, PG_INDEX_DROP, backfill_sync

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("posts", sa.Column("search_text", sa.Text(), nullable=True))
    op.add_column("posts", sa.Column("search_urls", sa.Text(), nullable=True))
    op.create_index("ix_users_protected", "users", ["protected"], unique=False)
    bind = op.get_bind()
    backfill_sync(bind)  # existing posts get their search document before the index is built
    for statement in FTS_DDL if bind.dialect.name == "sqlite" else PG_INDEX_DDL:
        op.execute(statement)


def downgrade() -> None:
    bind = op.get_bind()
    for statement in FTS_DROP if bind.dialect.name == "sqlite" else PG_INDEX_DROP:
        op.execute(statement)
    op.drop_index("ix_users_protected", table_name="users")
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_column("search_urls")
        batch_op.drop_column("search_text")
