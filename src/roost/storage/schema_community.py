"""Community notes and their writers, news stories, communities and their members, articles, and the
metrics the control plane adds to posts (issue 15). Registered on `metadata` by importing this module
from `schema`."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, PrimaryKeyConstraint, Table, Text

from roost.storage.schema_base import RowId, metadata

# Users enrolled as API note writers (the platform admits writers; roost's control plane does).
note_writers = Table(
    "note_writers",
    metadata,
    Column("user_id", BigInteger, primary_key=True, autoincrement=False),
    Column("created_at", BigInteger, nullable=False),
)

notes = Table(
    "notes",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("author_id", BigInteger, nullable=False),
    Column("post_id", BigInteger, nullable=False),
    Column("text", Text, nullable=False),
    Column("classification", Text, nullable=False),
    Column("misleading_tags", Text, nullable=False),  # JSON array
    Column("trustworthy_sources", Integer, nullable=False),
    Column("is_media_note", Integer, nullable=False, server_default="0"),
    Column("test_mode", Integer, nullable=False),
    Column("status", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    # One note per writer per post.
    Index("ix_notes_author_post", "author_id", "post_id", unique=True),
    Index("ix_notes_author_id", "author_id", "test_mode", "id"),
)

news_stories = Table(
    "news_stories",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("name", Text, nullable=False),
    Column("category", Text, nullable=False, server_default="News"),
    Column("summary", Text, nullable=False, server_default=""),
    Column("hook", Text, nullable=False, server_default=""),
    Column("disclaimer", Text, nullable=False, server_default=""),
    Column("contexts", Text, nullable=False),  # JSON object
    Column("keywords", Text, nullable=False),  # JSON array of strings
    Column("cluster_post_ids", Text, nullable=False),  # JSON array of ids (strings)
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Index("ix_news_stories_updated", "updated_at"),
)

communities = Table(
    "communities",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("name", Text, nullable=False),
    Column("description", Text, nullable=False, server_default=""),
    Column("access", Text, nullable=False, server_default="Public"),
    Column("join_policy", Text, nullable=False, server_default="Open"),
    Column("creator_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    # Kept with every membership change, as the users' counts are.
    Column("member_count", BigInteger, nullable=False, server_default="0"),
)

community_members = Table(
    "community_members",
    metadata,
    Column("community_id", BigInteger, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("role", Text, nullable=False, server_default="Member"),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("community_id", "user_id"),
    Index("ix_community_members_user", "user_id", "community_id"),
)

articles = Table(
    "articles",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("author_id", BigInteger, nullable=False),
    Column("title", Text, nullable=False),
    Column("content_state", Text, nullable=False),  # JSON (DraftJS content state)
    Column("cover_media", Text),  # JSON
    Column("post_id", BigInteger),  # the post that carries it, once published
    Column("created_at", BigInteger, nullable=False),
    Column("published_at", BigInteger),
    Index("ix_articles_author", "author_id", "id"),
)

# Impressions and engagements the control plane adds to a post at an instant (analytics read them
# with the likes, reposts, replies and quotes of the event log).
post_metric_samples = Table(
    "post_metric_samples",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),
    Column("post_id", BigInteger, nullable=False),
    Column("metric", Text, nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_post_metric_samples_post", "post_id", "created_at"),
)
