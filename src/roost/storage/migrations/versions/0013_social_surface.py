"""social surface: lists, bookmarks, dm blocks, hidden replies

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 12:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bookmark_folders",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=False, nullable=False
        ),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("bookmark_folders", schema=None) as batch_op:
        batch_op.create_index("ix_bookmark_folders_user", ["user_id", "id"], unique=False)

    op.create_table(
        "bookmarks",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("post_id", sa.BigInteger(), nullable=False),
        sa.Column("folder_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "post_id"),
    )
    with op.batch_alter_table("bookmarks", schema=None) as batch_op:
        batch_op.create_index("ix_bookmarks_post", ["post_id"], unique=False)
        batch_op.create_index("ix_bookmarks_user_created", ["user_id", "created_at"], unique=False)

    op.create_table(
        "dm_blocks",
        sa.Column("source_id", sa.BigInteger(), nullable=False),
        sa.Column("target_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("source_id", "target_id"),
    )
    with op.batch_alter_table("dm_blocks", schema=None) as batch_op:
        batch_op.create_index("ix_dm_blocks_target", ["target_id", "source_id"], unique=False)

    op.create_table(
        "list_followers",
        sa.Column("list_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("list_id", "user_id"),
    )
    with op.batch_alter_table("list_followers", schema=None) as batch_op:
        batch_op.create_index("ix_list_followers_user", ["user_id", "list_id"], unique=False)

    op.create_table(
        "list_members",
        sa.Column("list_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("list_id", "user_id"),
    )
    with op.batch_alter_table("list_members", schema=None) as batch_op:
        batch_op.create_index("ix_list_members_user", ["user_id", "list_id"], unique=False)

    op.create_table(
        "lists",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=False, nullable=False
        ),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("private", sa.Integer(), server_default="0", nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("member_count", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("follower_count", sa.BigInteger(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lists", schema=None) as batch_op:
        batch_op.create_index("ix_lists_owner", ["owner_id", "id"], unique=False)

    op.create_table(
        "pinned_lists",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("list_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "list_id"),
    )
    with op.batch_alter_table("pinned_lists", schema=None) as batch_op:
        batch_op.create_index("ix_pinned_lists_list", ["list_id"], unique=False)

    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reply_hidden", sa.Integer(), server_default="0", nullable=False))
        batch_op.create_index("ix_posts_quoted", ["quoted_post_id"], unique=False)
        batch_op.create_index("ix_posts_reposted", ["reposted_post_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("posts", schema=None) as batch_op:
        batch_op.drop_index("ix_posts_reposted")
        batch_op.drop_index("ix_posts_quoted")
        batch_op.drop_column("reply_hidden")

    with op.batch_alter_table("pinned_lists", schema=None) as batch_op:
        batch_op.drop_index("ix_pinned_lists_list")

    op.drop_table("pinned_lists")
    with op.batch_alter_table("lists", schema=None) as batch_op:
        batch_op.drop_index("ix_lists_owner")

    op.drop_table("lists")
    with op.batch_alter_table("list_members", schema=None) as batch_op:
        batch_op.drop_index("ix_list_members_user")

    op.drop_table("list_members")
    with op.batch_alter_table("list_followers", schema=None) as batch_op:
        batch_op.drop_index("ix_list_followers_user")

    op.drop_table("list_followers")
    with op.batch_alter_table("dm_blocks", schema=None) as batch_op:
        batch_op.drop_index("ix_dm_blocks_target")

    op.drop_table("dm_blocks")
    with op.batch_alter_table("bookmarks", schema=None) as batch_op:
        batch_op.drop_index("ix_bookmarks_user_created")
        batch_op.drop_index("ix_bookmarks_post")

    op.drop_table("bookmarks")
    with op.batch_alter_table("bookmark_folders", schema=None) as batch_op:
        batch_op.drop_index("ix_bookmark_folders_user")

    op.drop_table("bookmark_folders")
