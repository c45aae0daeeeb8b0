"""Communities and their members: the statements behind `/2/communities*`, the community check of
`POST /2/tweets` and the control plane's community writes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, func, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema_community import communities, community_members
from roost.storage.statements import insert_all

_insert = insert_all(communities)
_insert_member = insert_all(community_members)
_community = select(communities).where(communities.c.id == bindparam("id"))
_member = select(community_members).where(
    community_members.c.community_id == bindparam("community_id"),
    community_members.c.user_id == bindparam("user_id"),
)
_bump_members = (
    update(communities)
    .where(communities.c.id == bindparam("id"))
    .values(member_count=communities.c.member_count + bindparam("delta"))
)
_pattern: Any = bindparam("pattern")
# Candidates for a search: the first word anywhere in the name or description (the domain checks
# the rest); the most members first.
_candidates = (
    select(communities)
    .where(
        or_(
            func.lower(communities.c.name).like(_pattern),
            func.lower(communities.c.description).like(_pattern),
        )
    )
    .order_by(communities.c.member_count.desc(), communities.c.id.desc())
)
_all = select(communities).order_by(communities.c.id)
_all_members = select(community_members).order_by(
    community_members.c.community_id, community_members.c.user_id
)


async def insert_community(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert, row)


async def community_tx(tx: Executor, community_id: int) -> Row | None:
    return await tx.fetch_one(_community, {"id": community_id})


async def member_tx(tx: Executor, community_id: int, user_id: int) -> Row | None:
    return await tx.fetch_one(_member, {"community_id": community_id, "user_id": user_id})


async def add_member(tx: Executor, row: dict[str, Any]) -> None:
    """A new member, counted on the community."""
    await insert_member(tx, row)
    await tx.execute(_bump_members, {"id": row["community_id"], "delta": 1})


async def insert_member(tx: Executor, row: dict[str, Any]) -> None:
    """A member row alone (imports, whose communities carry their count)."""
    await tx.execute(_insert_member, row)


async def all_communities(db: Executor | Database) -> list[Row]:
    return await db.fetch_all(_all)


async def all_members(db: Executor | Database) -> list[Row]:
    return await db.fetch_all(_all_members)


class CommunityStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, community_id: int) -> Row | None:
        return await self._db.fetch_one(_community, {"id": community_id})

    async def containing(self, word: str) -> list[Row]:
        """Communities whose name or description contains `word` (lower case), the most members first."""
        escaped = word.replace("\\", "").replace("%", "").replace("_", "")
        return await self._db.fetch_all(_candidates, {"pattern": f"%{escaped}%"})
