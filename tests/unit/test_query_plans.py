"""Reads on the write path find their rows through an index, not by scanning a growing table.

Every post's account-activity fan-out reads who the post mentions, and deleting a post deletes its
mentions; both look mentions up by post id (the table's key starts with the user), so without an
index of their own each scanned every mention ever stored: a cost that grew with the database.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.sql import ClauseElement

from roost.storage import activity, posts
from roost.storage.db import StatementCache
from roost.storage.migrate import upgrade


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    path: Path = tmp_path_factory.mktemp("plans") / "plans.db"
    upgrade(f"sqlite:///{path}")
    return sqlite3.connect(path)


def plan(conn: sqlite3.Connection, statement: ClauseElement) -> list[str]:
    compiled = StatementCache(sqlite_dialect.dialect(paramstyle="qmark")).get(statement)
    params = [1] * len(compiled.names)
    return [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {compiled.sql}", params)]


@pytest.mark.parametrize(
    "statement",
    [posts.mentions_of_post, posts.mentions_of_posts(3), posts._delete_mentions],
    ids=["mentions of a post", "mentions of a batch's posts (fan-out)", "mentions of a deleted post"],
)
def test_a_posts_mentions_are_found_by_index(conn: sqlite3.Connection, statement: ClauseElement) -> None:
    [step] = plan(conn, statement)
    assert step.startswith("SEARCH post_mentions USING ")
    assert step.endswith("INDEX ix_post_mentions_post (post_id=?)")


def test_a_batchs_post_subscriptions_are_found_by_index(conn: sqlite3.Connection) -> None:
    """Activity events' read-ahead: the post subscriptions of a dispatcher batch's users."""
    steps = plan(conn, activity._matching_users(3))
    assert steps[0].startswith("SEARCH activity_subscriptions USING INDEX ix_activity_subscriptions_match")
    assert "(event_type=? AND filter_user_id=?)" in steps[0]
