"""Spaces, their tickets and the posts that share them: the statements behind `/2/spaces*` and the
control plane's Space writes (the insert and the end of a live Space are in `storage/social`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import posts, spaces, users
from roost.storage.schema_spaces import space_tickets
from roost.storage.statements import binds, in_params, insert_all, sized

_space = select(spaces).where(spaces.c.id == bindparam("id"))
# Every column but the id, rewritten from the whole row (one statement, compiled once).
_update_space = (
    update(spaces)
    .where(spaces.c.id == bindparam("space_id"))
    .values({column.name: bindparam(column.name) for column in spaces.columns if column.name != "id"})
)
_insert_ticket = insert_all(space_tickets)
_ticket = select(space_tickets).where(
    space_tickets.c.space_id == bindparam("space_id"), space_tickets.c.user_id == bindparam("user_id")
)
_buyers = (
    select(users)
    .join(space_tickets, space_tickets.c.user_id == users.c.id)
    .where(space_tickets.c.space_id == bindparam("space_id"))
    .order_by(space_tickets.c.created_at, users.c.id)
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)
# Posts sharing a Space link to it (https://x.com/i/spaces/<id>); `search_urls` holds each post's
# URLs lowercased, one a line.
_space_posts = (
    select(posts)
    .where(posts.c.search_urls.like(bindparam("pattern")), posts.c.deleted_at.is_(None))
    .order_by(posts.c.id.desc())
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)
_all_spaces = select(spaces).order_by(spaces.c.created_at, spaces.c.id)
_all_tickets = select(space_tickets).order_by(space_tickets.c.space_id, space_tickets.c.created_at)


@sized
def _spaces_by_ids(count: int) -> Select[Any]:
    return select(spaces).where(spaces.c.id.in_(binds(count)))


@sized
def _spaces_by_creators(count: int) -> Select[Any]:
    return (
        select(spaces)
        .where(spaces.c.creator_id.in_(binds(count)), spaces.c.state != "ended")
        .order_by(spaces.c.created_at.desc(), spaces.c.id)
    )


@sized
def _spaces_in_states(count: int) -> Select[Any]:
    return (
        select(spaces)
        .where(spaces.c.state.in_(binds(count)))
        .order_by(spaces.c.created_at.desc(), spaces.c.id)
    )


# ---- writes (inside the caller's transaction) ---------------------------------------------------


async def get_space_tx(tx: Executor, space_id: str) -> Row | None:
    return await tx.fetch_one(_space, {"id": space_id})


async def update_space(tx: Executor, row: dict[str, Any]) -> None:
    """Write back a whole space row (read, changed, written in one transaction)."""
    values = {name: value for name, value in row.items() if name != "id"}
    await tx.execute(_update_space, {**values, "space_id": row["id"]})


async def get_ticket_tx(tx: Executor, space_id: str, user_id: int) -> Row | None:
    return await tx.fetch_one(_ticket, {"space_id": space_id, "user_id": user_id})


async def insert_ticket(tx: Executor, space_id: str, user_id: int, at_ms: int) -> None:
    await tx.execute(_insert_ticket, {"space_id": space_id, "user_id": user_id, "created_at": at_ms})


async def all_spaces_tx(tx: Executor) -> list[Row]:
    return await tx.fetch_all(_all_spaces)


async def all_tickets_tx(tx: Executor) -> list[Row]:
    return await tx.fetch_all(_all_tickets)


# ---- reads ----------------------------------------------------------------------------------------


class SpaceStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, space_id: str) -> Row | None:
        return await self._db.fetch_one(_space, {"id": space_id})

    async def get_many(self, space_ids: list[str]) -> list[Row]:
        unique = list(dict.fromkeys(space_ids))
        return await self._db.fetch_all(_spaces_by_ids(len(unique)), in_params(unique)) if unique else []

    async def by_creators(self, user_ids: list[int]) -> list[Row]:
        unique = list(dict.fromkeys(user_ids))
        return await self._db.fetch_all(_spaces_by_creators(len(unique)), in_params(unique)) if unique else []

    async def in_states(self, states: list[str]) -> list[Row]:
        return await self._db.fetch_all(_spaces_in_states(len(states)), in_params(states))

    async def buyers(self, space_id: str, limit: int, offset: int) -> list[Row]:
        return await self._db.fetch_all(_buyers, {"space_id": space_id, "limit": limit, "offset": offset})

    async def posts(self, space_id: str, limit: int, offset: int) -> list[Row]:
        pattern = f"%/i/spaces/{space_id.lower()}%"
        return await self._db.fetch_all(_space_posts, {"pattern": pattern, "limit": limit, "offset": offset})
