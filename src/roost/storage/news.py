"""News stories: the statements behind `/2/news*`, the control plane's publishing and the activity
events' `news.new` payloads."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import posts, users
from roost.storage.schema_community import news_stories
from roost.storage.statements import insert_all

_insert = insert_all(news_stories)
_story = select(news_stories).where(news_stories.c.id == bindparam("id"))
_recent = (
    select(news_stories)
    .where(news_stories.c.updated_at >= bindparam("since"))
    .order_by(news_stories.c.updated_at.desc(), news_stories.c.id.desc())
)
_all = select(news_stories).order_by(news_stories.c.id)
# Recent live posts of public accounts whose text holds a term (the demo's story clusters).
_posts_with = (
    select(posts.c.id)
    .join(users, users.c.id == posts.c.author_id)
    .where(
        posts.c.deleted_at.is_(None),
        users.c.protected == 0,
        posts.c.created_at >= bindparam("since"),
        posts.c.text.like(bindparam("pattern")),
    )
    .order_by(posts.c.id.desc())
    .limit(bindparam("limit"))
)


async def insert_story(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert, row)


async def story_tx(tx: Executor, story_id: int) -> Row | None:
    return await tx.fetch_one(_story, {"id": story_id})


async def recent_posts_with_tx(tx: Executor, term: str, since_ms: int, limit: int) -> list[int]:
    params = {"pattern": f"%{term}%", "since": since_ms, "limit": limit}
    return [int(row["id"]) for row in await tx.fetch_all(_posts_with, params)]


async def all_stories(db: Executor | Database) -> list[Row]:
    """Every story (the export)."""
    return await db.fetch_all(_all)


class NewsStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, story_id: int) -> Row | None:
        return await self._db.fetch_one(_story, {"id": story_id})

    async def updated_since(self, since_ms: int) -> list[Row]:
        """Stories updated at or after an instant, the latest first."""
        return await self._db.fetch_all(_recent, {"since": since_ms})
