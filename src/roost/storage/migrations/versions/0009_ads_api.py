"""ads api: accounts, access, entities, history, id sequences

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-22 10:05:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "ads_accounts",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("sandbox", sa.Integer(), server_default="0", nullable=False),
        sa.Column("name_lower", sa.Text(), nullable=False),
        sa.Column("deleted", sa.Integer(), server_default="0", nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("features", sa.Text(), server_default="[]", nullable=False),
        sa.Column("tax_settings", sa.Text(), server_default="{}", nullable=False),
        sa.Column("allowlist", sa.Text(), server_default="[]", nullable=False),
        sa.Column("limits", sa.Text(), server_default="{}", nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_ads_accounts_name", "ads_accounts", ["sandbox", "name_lower"], unique=False)
    op.create_table(
        "ads_account_users",
        sa.Column("account_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("permissions", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("account_id", "user_id"),
    )
    op.create_index("ix_ads_account_users_user", "ads_account_users", ["user_id"], unique=False)
    op.create_table(
        "ads_entities",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("account_id", sa.Text(), nullable=False),
        sa.Column("parent_id", sa.Text(), nullable=True),
        sa.Column("funding_instrument_id", sa.Text(), nullable=True),
        sa.Column("name_lower", sa.Text(), nullable=True),
        sa.Column("entity_status", sa.Text(), nullable=True),
        sa.Column("deleted", sa.Integer(), server_default="0", nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_ads_entities_account", "ads_entities", ["account_id", "kind", "id"], unique=False)
    op.create_index("ix_ads_entities_parent", "ads_entities", ["parent_id", "kind"], unique=False)
    op.create_table(
        "ads_history",
        sa.Column("id", _ROW_ID, autoincrement=False, nullable=False),
        sa.Column("account_id", sa.Text(), nullable=False),
        sa.Column("entity_type", sa.Text(), nullable=False),
        sa.Column("entity_id", sa.Text(), nullable=False),
        sa.Column("change_type", sa.Text(), nullable=False),
        sa.Column("change_time", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_ads_history_entity",
        "ads_history",
        ["account_id", "entity_type", "entity_id", "change_time"],
        unique=False,
    )
    op.create_table(
        "ads_counters",
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("ads_counters")
    op.drop_index("ix_ads_history_entity", table_name="ads_history")
    op.drop_table("ads_history")
    op.drop_index("ix_ads_entities_parent", table_name="ads_entities")
    op.drop_index("ix_ads_entities_account", table_name="ads_entities")
    op.drop_table("ads_entities")
    op.drop_index("ix_ads_account_users_user", table_name="ads_account_users")
    op.drop_table("ads_account_users")
    op.drop_index("ix_ads_accounts_name", table_name="ads_accounts")
    op.drop_table("ads_accounts")
