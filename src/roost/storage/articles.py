"""Articles: drafts and their publication (`/2/articles*`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select, update

from roost.storage.db import Executor, Row
from roost.storage.schema_community import articles
from roost.storage.statements import insert_all

_insert = insert_all(articles)
_article = select(articles).where(articles.c.id == bindparam("id"))
_publish = (
    update(articles)
    .where(articles.c.id == bindparam("id"), articles.c.post_id.is_(None))
    .values(post_id=bindparam("post_id"), published_at=bindparam("published_at"))
)


async def insert_article(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert, row)


async def article_tx(tx: Executor, article_id: int) -> Row | None:
    return await tx.fetch_one(_article, {"id": article_id})


async def mark_published(tx: Executor, article_id: int, post_id: int, now_ms: int) -> bool:
    """Record the post that carries the article; False if it was published already."""
    params = {"id": article_id, "post_id": post_id, "published_at": now_ms}
    return await tx.execute(_publish, params) > 0
