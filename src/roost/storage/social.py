"""Likes, follows, blocks, mutes, spaces and profile edits: the statements behind the social writes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, and_, bindparam, delete, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import blocks, follows, likes, mutes, posts, spaces, users
from roost.storage.statements import insert_all

# Edge tables keyed (source, target); likes are keyed (user, post).
_EDGES: dict[str, tuple[Table, str, str]] = {
    "like": (likes, "user_id", "post_id"),
    "follow": (follows, "follower_id", "followee_id"),
    "block": (blocks, "source_id", "target_id"),
    "mute": (mutes, "source_id", "target_id"),
}


def _edge_where(table: Table, source: str, target: str) -> Any:
    return and_(table.c[source] == bindparam("source"), table.c[target] == bindparam("target"))


_exists = {
    kind: select(table.c[source]).where(_edge_where(table, source, target))
    for kind, (table, source, target) in _EDGES.items()
}
_insert = {kind: insert_all(table) for kind, (table, _, _) in _EDGES.items()}
_delete = {
    kind: delete(table).where(_edge_where(table, source, target))
    for kind, (table, source, target) in _EDGES.items()
}

# Serialises writes of one user (PostgreSQL); SQLite's single writer already does, and its dialect
# drops FOR UPDATE.
_lock_user = select(users.c.id).where(users.c.id == bindparam("id")).with_for_update()

_profile_columns = (
    "username",
    "username_lower",
    "name",
    "description",
    "location",
    "url",
    "profile_image_url",
    "profile_banner_url",
    "verified",
    "affiliation",
    "entities",
)
_update_profile = (
    update(users)
    .where(users.c.id == bindparam("target"))
    .values({name: bindparam(name) for name in _profile_columns})
)

_insert_space = insert_all(spaces)
_space_by_id = select(spaces).where(spaces.c.id == bindparam("id"))
_end_space = (
    update(spaces)
    .where(spaces.c.id == bindparam("id"), spaces.c.state == "live")
    .values(state="ended", ended_at=bindparam("at"))
)


def _users_page(table: Table, match: str, other: str) -> Any:
    """Users on the `other` side of edges whose `match` side is :owner, newest edge first."""
    return (
        select(users)
        .join(table, table.c[other] == users.c.id)
        .where(table.c[match] == bindparam("owner"))
        .order_by(table.c.created_at.desc(), users.c.id.desc())
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
    )


_user_lists = {
    "following": _users_page(follows, "follower_id", "followee_id"),
    "followers": _users_page(follows, "followee_id", "follower_id"),
    "blocking": _users_page(blocks, "source_id", "target_id"),
    "muting": _users_page(mutes, "source_id", "target_id"),
    "liking_users": _users_page(likes, "post_id", "user_id"),
}
_liked_posts = (
    select(posts)
    .join(likes, likes.c.post_id == posts.c.id)
    .where(likes.c.user_id == bindparam("owner"), posts.c.deleted_at.is_(None))
    .order_by(likes.c.created_at.desc(), posts.c.id.desc())
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)


# ---- writes (inside the caller's transaction) ---------------------------------------------------


async def lock_users(tx: Executor, user_ids: list[int]) -> None:
    """Row-lock users in id order (a fixed order, so two writers never deadlock)."""
    for user_id in sorted(set(user_ids)):
        await tx.fetch_one(_lock_user, {"id": user_id})


async def edge_exists(tx: Executor, kind: str, source_id: int, target_id: int) -> bool:
    return await tx.fetch_one(_exists[kind], {"source": source_id, "target": target_id}) is not None


async def insert_edge(tx: Executor, kind: str, source_id: int, target_id: int, at_ms: int) -> None:
    _, source, target = _EDGES[kind]
    await tx.execute(_insert[kind], {source: source_id, target: target_id, "created_at": at_ms})


async def delete_edge(tx: Executor, kind: str, source_id: int, target_id: int) -> bool:
    """Remove one edge; True if it existed."""
    return await tx.execute(_delete[kind], {"source": source_id, "target": target_id}) > 0


async def update_profile(tx: Executor, user_id: int, values: dict[str, Any]) -> None:
    await tx.execute(
        _update_profile, {"target": user_id, **{name: values[name] for name in _profile_columns}}
    )


async def insert_space(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_space, row)


async def get_space_tx(tx: Executor, space_id: str) -> Row | None:
    return await tx.fetch_one(_space_by_id, {"id": space_id})


async def end_space(tx: Executor, space_id: str, at_ms: int) -> bool:
    """Mark a live space ended; False if it was not live."""
    return await tx.execute(_end_space, {"id": space_id, "at": at_ms}) > 0


# ---- reads --------------------------------------------------------------------------------------


class SocialStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def users_page(self, listing: str, owner_id: int, limit: int, offset: int) -> list[Row]:
        """One page of a user list: following, followers, blocking, muting or liking_users."""
        return await self._db.fetch_all(
            _user_lists[listing], {"owner": owner_id, "limit": limit, "offset": offset}
        )

    async def liked_posts(self, user_id: int, limit: int, offset: int) -> list[Row]:
        return await self._db.fetch_all(_liked_posts, {"owner": user_id, "limit": limit, "offset": offset})

    async def space(self, space_id: str) -> Row | None:
        return await self._db.fetch_one(_space_by_id, {"id": space_id})
