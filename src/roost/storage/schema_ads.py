"""Ads API tables. Entities share one table: their lists filter on the same columns (account,
parent, funding instrument, name prefix, status, deleted), and the full API object is kept as JSON
text beside them, so each kind's attributes need no column of their own."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, PrimaryKeyConstraint, Table, Text

from roost.storage.schema_base import RowId, metadata

ads_accounts = Table(
    "ads_accounts",
    metadata,
    Column("id", Text, primary_key=True),
    Column("sandbox", Integer, nullable=False, server_default="0"),
    Column("name_lower", Text, nullable=False),
    Column("deleted", Integer, nullable=False, server_default="0"),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Column("body", Text, nullable=False),  # the account object as the API shows it
    Column("features", Text, nullable=False, server_default="[]"),
    Column("tax_settings", Text, nullable=False, server_default="{}"),
    Column("allowlist", Text, nullable=False, server_default="[]"),  # beta programmes
    Column("limits", Text, nullable=False, server_default="{}"),  # raised caps (active campaigns, ...)
    Index("ix_ads_accounts_name", "sandbox", "name_lower"),
)

# Which users reach which accounts, with their roles (authenticated_user_access).
ads_account_users = Table(
    "ads_account_users",
    metadata,
    Column("account_id", Text, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("permissions", Text, nullable=False),  # JSON array
    PrimaryKeyConstraint("account_id", "user_id"),
    Index("ix_ads_account_users_user", "user_id"),
)

ads_entities = Table(
    "ads_entities",
    metadata,
    Column("id", Text, primary_key=True),
    Column("kind", Text, nullable=False),
    Column("account_id", Text, nullable=False),
    Column("parent_id", Text),  # campaign of a line item; line item of a criterion, promoted tweet, ...
    Column("funding_instrument_id", Text),
    Column("name_lower", Text),
    Column("entity_status", Text),
    Column("deleted", Integer, nullable=False, server_default="0"),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Column("body", Text, nullable=False),
    Index("ix_ads_entities_account", "account_id", "kind", "id"),
    Index("ix_ads_entities_parent", "parent_id", "kind"),
)

# Change history for account_history: one row per create, update or delete.
ads_history = Table(
    "ads_history",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("account_id", Text, nullable=False),
    Column("entity_type", Text, nullable=False),
    Column("entity_id", Text, nullable=False),
    Column("change_type", Text, nullable=False),
    Column("change_time", BigInteger, nullable=False),
    Column("user_id", BigInteger),
    Column("body", Text, nullable=False),  # changes and entity snapshot
    Index("ix_ads_history_entity", "account_id", "entity_type", "entity_id", "change_time"),
)

# Id sequences per kind (ids are short base-36 strings, not snowflakes).
ads_counters = Table(
    "ads_counters",
    metadata,
    Column("name", Text, primary_key=True),
    Column("value", BigInteger, nullable=False),
)
