"""community notes and writers, news stories, communities and members, articles, post metrics

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26 12:59:08.810817
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "articles",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=False, nullable=False
        ),
        sa.Column("author_id", sa.BigInteger(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("content_state", sa.Text(), nullable=False),
        sa.Column("cover_media", sa.Text(), nullable=True),
        sa.Column("post_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("published_at", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("articles", schema=None) as batch_op:
        batch_op.create_index("ix_articles_author", ["author_id", "id"], unique=False)

    op.create_table(
        "communities",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=False, nullable=False
        ),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("access", sa.Text(), server_default="Public", nullable=False),
        sa.Column("join_policy", sa.Text(), server_default="Open", nullable=False),
        sa.Column("creator_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("member_count", sa.BigInteger(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "community_members",
        sa.Column("community_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("role", sa.Text(), server_default="Member", nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("community_id", "user_id"),
    )
    with op.batch_alter_table("community_members", schema=None) as batch_op:
        batch_op.create_index("ix_community_members_user", ["user_id", "community_id"], unique=False)

    op.create_table(
        "news_stories",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=False, nullable=False
        ),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("category", sa.Text(), server_default="News", nullable=False),
        sa.Column("summary", sa.Text(), server_default="", nullable=False),
        sa.Column("hook", sa.Text(), server_default="", nullable=False),
        sa.Column("disclaimer", sa.Text(), server_default="", nullable=False),
        sa.Column("contexts", sa.Text(), nullable=False),
        sa.Column("keywords", sa.Text(), nullable=False),
        sa.Column("cluster_post_ids", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("news_stories", schema=None) as batch_op:
        batch_op.create_index("ix_news_stories_updated", ["updated_at"], unique=False)

    op.create_table(
        "note_writers",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("user_id"),
    )
    op.create_table(
        "notes",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=False, nullable=False
        ),
        sa.Column("author_id", sa.BigInteger(), nullable=False),
        sa.Column("post_id", sa.BigInteger(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("classification", sa.Text(), nullable=False),
        sa.Column("misleading_tags", sa.Text(), nullable=False),
        sa.Column("trustworthy_sources", sa.Integer(), nullable=False),
        sa.Column("is_media_note", sa.Integer(), server_default="0", nullable=False),
        sa.Column("test_mode", sa.Integer(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("notes", schema=None) as batch_op:
        batch_op.create_index("ix_notes_author_id", ["author_id", "test_mode", "id"], unique=False)
        batch_op.create_index("ix_notes_author_post", ["author_id", "post_id"], unique=True)

    op.create_table(
        "post_metric_samples",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=False, nullable=False
        ),
        sa.Column("post_id", sa.BigInteger(), nullable=False),
        sa.Column("metric", sa.Text(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("post_metric_samples", schema=None) as batch_op:
        batch_op.create_index("ix_post_metric_samples_post", ["post_id", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("post_metric_samples", schema=None) as batch_op:
        batch_op.drop_index("ix_post_metric_samples_post")

    op.drop_table("post_metric_samples")
    with op.batch_alter_table("notes", schema=None) as batch_op:
        batch_op.drop_index("ix_notes_author_post")
        batch_op.drop_index("ix_notes_author_id")

    op.drop_table("notes")
    op.drop_table("note_writers")
    with op.batch_alter_table("news_stories", schema=None) as batch_op:
        batch_op.drop_index("ix_news_stories_updated")

    op.drop_table("news_stories")
    with op.batch_alter_table("community_members", schema=None) as batch_op:
        batch_op.drop_index("ix_community_members_user")

    op.drop_table("community_members")
    op.drop_table("communities")
    with op.batch_alter_table("articles", schema=None) as batch_op:
        batch_op.drop_index("ix_articles_author")

    op.drop_table("articles")
