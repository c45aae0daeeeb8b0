"""User, follow, media, poll and place storage (the objects posts point at)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, and_, bindparam, func, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import follows, media, places, polls, users
from roost.storage.statements import binds, in_params, insert_all, sized

_user_by_id = select(users).where(users.c.id == bindparam("id"))
# What writing a post reads of its author (the length limit's subscription, the duplicate check's
# latest post): the whole row is forty columns, a third of a post's reads.
_poster_by_id = select(users.c.id, users.c.subscription_type, users.c.most_recent_post_id).where(
    users.c.id == bindparam("id")
)
_user_by_name = select(users).where(users.c.username_lower == bindparam("name"))
_insert_user = insert_all(users)
_insert_follow = insert_all(follows)
_insert_media = insert_all(media)
_insert_poll = insert_all(polls)
_insert_place = insert_all(places)
_media_by_key = select(media).where(media.c.media_key == bindparam("key"))
_media_by_id = select(media).where(media.c.id == bindparam("id"))
_poll_by_id = select(polls).where(polls.c.id == bindparam("id"))
_max_user_id = select(func.max(users.c.id))
_max_media_id = select(func.max(media.c.id))
_connection = select(follows.c.follower_id, follows.c.followee_id).where(
    or_(
        and_(follows.c.follower_id == bindparam("viewer"), follows.c.followee_id == bindparam("other")),
        and_(follows.c.follower_id == bindparam("other"), follows.c.followee_id == bindparam("viewer")),
    )
)
_update_user = update(users).where(users.c.id == bindparam("target"))
_protected_ids = select(users.c.id).where(users.c.protected == 1)
_PROTECTED_TTL_S = 30.0
_USER_CACHE_TTL_S = 300.0
_USER_CACHE_ROWS = 50_000


@sized
def _users_by_ids(count: int) -> Select[Any]:
    return select(users).where(users.c.id.in_(binds(count)))


@sized
def _users_by_names(count: int) -> Select[Any]:
    return select(users).where(users.c.username_lower.in_(binds(count)))


@sized
def _media_by_keys(count: int) -> Select[Any]:
    return select(media).where(media.c.media_key.in_(binds(count)))


@sized
def _polls_by_ids(count: int) -> Select[Any]:
    return select(polls).where(polls.c.id.in_(binds(count)))


@sized
def _places_by_ids(count: int) -> Select[Any]:
    return select(places).where(places.c.id.in_(binds(count)))


@sized
def _following_among(count: int) -> Select[Any]:
    return select(follows.c.follower_id, follows.c.followee_id).where(
        or_(
            and_(follows.c.follower_id == bindparam("viewer"), follows.c.followee_id.in_(binds(count))),
            and_(follows.c.followee_id == bindparam("viewer"), follows.c.follower_id.in_(binds(count))),
        )
    )


async def _many(db: Database, build: Any, keys: Sequence[Any]) -> list[Row]:
    if not keys:
        return []
    unique = list(dict.fromkeys(keys))
    return await db.fetch_all(build(len(unique)), in_params(unique))


class UserStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._protected: frozenset[int] = frozenset()
        self._protected_until = 0.0
        self._protected_generation = -1
        self._row_cache: dict[int, tuple[Row, float]] = {}
        self._cache_generation = -1

    def known_protected_ids(self) -> frozenset[int] | None:
        """The cached set of protected accounts while it is current, else None (call `protected_ids`)."""
        current = self._db.current_generation()
        if self._protected_generation == current and time.monotonic() < self._protected_until:
            return self._protected
        return None

    async def protected_ids(self) -> frozenset[int]:
        """Ids of protected accounts. Every post lookup consults them, so they are cached until the next
        commit (this process's or, as the database reports it, another's), the time limit being a backstop."""
        known = self.known_protected_ids()
        if known is not None:
            return known
        generation = self._db.current_generation()
        rows = await self._db.fetch_all(_protected_ids)
        self._protected = frozenset(row["id"] for row in rows)
        self._protected_generation = generation
        self._protected_until = time.monotonic() + _PROTECTED_TTL_S
        return self._protected

    def forget_protected(self) -> None:
        self._protected_until = 0.0

    async def get(self, user_id: int) -> Row | None:
        return await self._db.fetch_one(_user_by_id, {"id": user_id})

    async def get_by_username(self, username: str) -> Row | None:
        return await self._db.fetch_one(_user_by_name, {"name": username.lower()})

    async def get_many(self, ids: Sequence[int]) -> list[Row]:
        found = await self.by_ids(ids)
        return [found[user_id] for user_id in dict.fromkeys(ids) if user_id in found]

    def _current_cache(self) -> dict[int, tuple[Row, float]]:
        generation = self._db.current_generation()
        if generation != self._cache_generation:
            self._row_cache.clear()
            self._cache_generation = generation
        return self._row_cache

    def known_by_ids(self, ids: Sequence[int]) -> dict[int, Row] | None:
        """Users by id from the cache alone: None unless every one of them is cached and current."""
        if self._db.current_generation() != self._cache_generation:
            return None  # `by_ids` starts the cache afresh
        cache = self._row_cache
        now = time.monotonic()
        out: dict[int, Row] = {}
        for user_id in ids:
            hit = cache.get(user_id)
            if hit is None or hit[1] <= now:
                return None
            out[user_id] = hit[0]
        return out

    async def by_ids(self, ids: Sequence[int]) -> dict[int, Row]:
        """Users by id. Rows are cached: expansions load the same authors over and over.

        A cached row is used only while no write has committed since it was read: the database's
        generation moves with this process's commits and with other processes' (PostgreSQL
        notifications, SQLite's data version). The time limit is a backstop.
        """
        cache = self._current_cache()
        generation = self._cache_generation
        now = time.monotonic()
        out: dict[int, Row] = {}
        missing: list[int] = []
        for user_id in ids:
            hit = cache.get(user_id)
            if hit is not None and hit[1] > now:
                out[user_id] = hit[0]
            else:
                missing.append(user_id)
        if missing:
            rows = await _many(self._db, _users_by_ids, missing)
            keep = self._db.generation == generation
            if keep and len(cache) > _USER_CACHE_ROWS:
                cache.clear()
            for row in rows:
                out[row["id"]] = row
                if keep:
                    cache[row["id"]] = (row, now + _USER_CACHE_TTL_S)
        return out

    async def get_many_by_username(self, names: Sequence[str]) -> list[Row]:
        return await _many(self._db, _users_by_names, [name.lower() for name in names])

    async def relations(self, viewer_id: int, other_ids: Sequence[int]) -> set[tuple[int, int]]:
        """(follower, followee) pairs between the viewer and each of the others."""
        if not other_ids:
            return set()
        unique = list(dict.fromkeys(other_ids))
        params = in_params(unique)
        params["viewer"] = viewer_id
        rows = await self._db.fetch_all(_following_among(len(unique)), params)
        return {(row["follower_id"], row["followee_id"]) for row in rows}

    async def max_id(self) -> int:
        return int(await self._db.fetch_value(_max_user_id) or 0)

    async def media(self, key: str) -> Row | None:
        return await self._db.fetch_one(_media_by_key, {"key": key})

    async def media_by_id(self, media_id: int) -> Row | None:
        return await self._db.fetch_one(_media_by_id, {"id": media_id})

    async def media_many(self, keys: Sequence[str]) -> list[Row]:
        return await _many(self._db, _media_by_keys, keys)

    async def max_media_id(self) -> int:
        return int(await self._db.fetch_value(_max_media_id) or 0)

    async def polls_many(self, ids: Sequence[int]) -> list[Row]:
        return await _many(self._db, _polls_by_ids, ids)

    async def places_many(self, ids: Sequence[str]) -> list[Row]:
        return await _many(self._db, _places_by_ids, ids)


async def insert_user(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_user, row)


async def insert_follow(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_follow, row)


async def insert_media(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_media, row)


async def insert_poll(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_poll, row)


async def insert_place(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_place, row)


async def get_user_tx(tx: Executor, user_id: int) -> Row | None:
    return await tx.fetch_one(_user_by_id, {"id": user_id})


async def get_poster_tx(tx: Executor, user_id: int) -> Row | None:
    """A post's author as writing the post reads it: `id`, `subscription_type`, `most_recent_post_id`."""
    return await tx.fetch_one(_poster_by_id, {"id": user_id})


async def get_users_by_names_tx(tx: Executor, names: Sequence[str]) -> list[Row]:
    if not names:
        return []
    unique = list(dict.fromkeys(name.lower() for name in names))
    return await tx.fetch_all(_users_by_names(len(unique)), in_params(unique))


async def get_media_tx(tx: Executor, keys: Sequence[str]) -> list[Row]:
    if not keys:
        return []
    unique = list(dict.fromkeys(keys))
    return await tx.fetch_all(_media_by_keys(len(unique)), in_params(unique))


async def get_media_by_id_tx(tx: Executor, media_id: int) -> Row | None:
    return await tx.fetch_one(_media_by_id, {"id": media_id})


_follow_exists = select(follows.c.follower_id).where(
    follows.c.follower_id == bindparam("follower"), follows.c.followee_id == bindparam("followee")
)


async def follow_exists(tx: Executor, follower_id: int, followee_id: int) -> bool:
    return await tx.fetch_one(_follow_exists, {"follower": follower_id, "followee": followee_id}) is not None
