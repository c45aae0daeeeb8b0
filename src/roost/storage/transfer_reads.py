"""What imports and exports read beyond the aggregates' own stores: every like and follow, and a
post an author already has with the same text (an import's post stored under another id)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select

from roost.core.records import Row
from roost.storage.db import Database, Executor
from roost.storage.schema import follows, likes, posts

_likes = select(likes.c.user_id, likes.c.post_id, likes.c.created_at).order_by(
    likes.c.user_id, likes.c.post_id
)
_follows = select(follows.c.follower_id, follows.c.followee_id, follows.c.created_at).order_by(
    follows.c.follower_id, follows.c.followee_id
)
_same_post = (
    select(posts.c.id)
    .where(
        posts.c.author_id == bindparam("author_id"),
        posts.c.text == bindparam("text"),
        posts.c.deleted_at.is_(None),
    )
    .order_by(posts.c.id)
    .limit(1)
)


async def all_likes(db: Database) -> list[Row]:
    return await db.fetch_all(_likes)


async def all_follows(db: Database) -> list[Row]:
    return await db.fetch_all(_follows)


async def post_with_text(tx: Executor, author_id: int, text: str) -> Any:
    """The id of the author's live post with exactly this text, or None."""
    return await tx.fetch_value(_same_post, {"author_id": author_id, "text": text})
