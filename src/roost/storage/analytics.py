"""What post analytics count, with when it happened: likes and unlikes (the event log), reposts,
replies and quotes (posts), bookmarks, and the metrics the control plane adds (`post_metric_samples`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import events, posts
from roost.storage.schema_community import post_metric_samples as samples
from roost.storage.schema_social import bookmarks
from roost.storage.statements import binds, in_params, insert_all, sized

_insert_sample = insert_all(samples)
_add_impressions = (
    update(posts)
    .where(posts.c.id == bindparam("id"))
    .values(impression_count=posts.c.impression_count + bindparam("amount"))
)
_START: Any = bindparam("start")
_END: Any = bindparam("end")


@sized
def _likes(count: int) -> Select[Any]:
    """Likes and unlikes of some posts in [start, end) (the log's object is the liked post)."""
    return select(events.c.object_id.label("post_id"), events.c.kind, events.c.created_at).where(
        or_(events.c.kind == "like.create", events.c.kind == "like.delete"),
        events.c.object_id.in_(binds(count)),
        events.c.created_at >= _START,
        events.c.created_at < _END,
    )


@sized
def _references(count: int) -> Select[Any]:
    """Live posts replying to, quoting or reposting some posts, made in [start, end)."""
    ids = binds(count)
    return select(
        posts.c.created_at, posts.c.in_reply_to_post_id, posts.c.quoted_post_id, posts.c.reposted_post_id
    ).where(
        or_(
            posts.c.in_reply_to_post_id.in_(ids),
            posts.c.quoted_post_id.in_(ids),
            posts.c.reposted_post_id.in_(ids),
        ),
        posts.c.deleted_at.is_(None),
        posts.c.superseded_by.is_(None),
        posts.c.created_at >= _START,
        posts.c.created_at < _END,
    )


@sized
def _bookmarks(count: int) -> Select[Any]:
    return select(bookmarks.c.post_id, bookmarks.c.created_at).where(
        bookmarks.c.post_id.in_(binds(count)), bookmarks.c.created_at >= _START, bookmarks.c.created_at < _END
    )


@sized
def _samples(count: int) -> Select[Any]:
    return select(samples.c.post_id, samples.c.metric, samples.c.amount, samples.c.created_at).where(
        samples.c.post_id.in_(binds(count)), samples.c.created_at >= _START, samples.c.created_at < _END
    )


async def insert_sample(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_sample, row)


async def add_impressions(tx: Executor, post_id: int, amount: int) -> None:
    """The post's `impression_count` (public metrics) moves with the impressions added."""
    await tx.execute(_add_impressions, {"id": post_id, "amount": amount})


class AnalyticsStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def _read(self, build: Any, ids: list[int], start: int, end: int) -> list[Row]:
        params = {**in_params(ids), "start": start, "end": end}
        return await self._db.fetch_all(build(len(ids)), params)

    async def likes(self, ids: list[int], start: int, end: int) -> list[Row]:
        return await self._read(_likes, ids, start, end)

    async def references(self, ids: list[int], start: int, end: int) -> list[Row]:
        return await self._read(_references, ids, start, end)

    async def bookmarks(self, ids: list[int], start: int, end: int) -> list[Row]:
        return await self._read(_bookmarks, ids, start, end)

    async def samples(self, ids: list[int], start: int, end: int) -> list[Row]:
        return await self._read(_samples, ids, start, end)
