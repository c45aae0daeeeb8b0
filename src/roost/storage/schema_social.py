"""The social surface's tables (issue 14): lists and their members, followers and pins, bookmarks and
their folders, DM blocks. Registered on `metadata` by importing this module from `schema`."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, PrimaryKeyConstraint, Table, Text

from roost.storage.schema_base import RowId, metadata

lists = Table(
    "lists",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("owner_id", BigInteger, nullable=False),
    Column("name", Text, nullable=False),
    Column("description", Text, nullable=False, server_default=""),
    Column("private", Integer, nullable=False, server_default="0"),
    Column("created_at", BigInteger, nullable=False),
    # Kept with every membership and follow change, as the users' counts are.
    Column("member_count", BigInteger, nullable=False, server_default="0"),
    Column("follower_count", BigInteger, nullable=False, server_default="0"),
    Index("ix_lists_owner", "owner_id", "id"),
)

list_members = Table(
    "list_members",
    metadata,
    Column("list_id", BigInteger, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("list_id", "user_id"),
    Index("ix_list_members_user", "user_id", "list_id"),
)

list_followers = Table(
    "list_followers",
    metadata,
    Column("list_id", BigInteger, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("list_id", "user_id"),
    Index("ix_list_followers_user", "user_id", "list_id"),
)

pinned_lists = Table(
    "pinned_lists",
    metadata,
    Column("user_id", BigInteger, nullable=False),
    Column("list_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("user_id", "list_id"),
    Index("ix_pinned_lists_list", "list_id"),
)

bookmark_folders = Table(
    "bookmark_folders",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("user_id", BigInteger, nullable=False),
    Column("name", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_bookmark_folders_user", "user_id", "id"),
)

bookmarks = Table(
    "bookmarks",
    metadata,
    Column("user_id", BigInteger, nullable=False),
    Column("post_id", BigInteger, nullable=False),
    Column("folder_id", BigInteger),  # NULL: not filed in a folder
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("user_id", "post_id"),
    Index("ix_bookmarks_post", "post_id"),
    Index("ix_bookmarks_user_created", "user_id", "created_at"),
)

# A user who refuses direct messages from another (POST /2/users/{id}/dm/block), apart from blocks.
dm_blocks = Table(
    "dm_blocks",
    metadata,
    Column("source_id", BigInteger, nullable=False),
    Column("target_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("source_id", "target_id"),
    Index("ix_dm_blocks_target", "target_id", "source_id"),
)
