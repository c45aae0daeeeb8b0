"""Lists, their members, followers and pins: the statements behind the list operations.

Visibility is part of the reads: a private list shows only to its owner, so each page of lists takes
the viewer (`-1` for an app-only caller, who sees no private list) and leaves out what they may not
see before counting the page, which keeps offset paging exact.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Select, bindparam, delete, func, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import posts, users
from roost.storage.schema_social import list_followers, list_members, lists, pinned_lists
from roost.storage.statements import insert_all

NOBODY = -1  # the viewer id of an app-only caller: owns no list

_by_id = select(lists).where(lists.c.id == bindparam("id"))
_insert = insert_all(lists)
_update = (
    update(lists)
    .where(lists.c.id == bindparam("id"))
    .values(name=bindparam("name"), description=bindparam("description"), private=bindparam("private"))
)
_delete = delete(lists).where(lists.c.id == bindparam("id"))
_owned_count = select(func.count()).select_from(lists).where(lists.c.owner_id == bindparam("owner"))
_bump_counter = {
    name: update(lists)
    .where(lists.c.id == bindparam("id"))
    .values({name: lists.c[name] + bindparam("delta")})
    for name in ("member_count", "follower_count")
}
# users.listed_count counts the public lists a user is a member of.
_bump_listed = (
    update(users)
    .where(users.c.id == bindparam("user"))
    .values(listed_count=users.c.listed_count + bindparam("delta"))
)
_bump_listed_members = (
    update(users)
    .where(users.c.id.in_(select(list_members.c.user_id).where(list_members.c.list_id == bindparam("id"))))
    .values(listed_count=users.c.listed_count + bindparam("delta"))
)
_insert_member = insert_all(list_members)
_insert_follower = insert_all(list_followers)
_insert_pin = insert_all(pinned_lists)
_EDGES = {"member": list_members, "follower": list_followers}
_edge_exists = {
    kind: select(table.c.list_id).where(
        table.c.list_id == bindparam("list"), table.c.user_id == bindparam("user")
    )
    for kind, table in _EDGES.items()
}
_delete_edge = {
    kind: delete(table).where(table.c.list_id == bindparam("list"), table.c.user_id == bindparam("user"))
    for kind, table in _EDGES.items()
}
_delete_all_edges = {
    kind: delete(table).where(table.c.list_id == bindparam("id")) for kind, table in _EDGES.items()
}
_pin_exists = select(pinned_lists.c.list_id).where(
    pinned_lists.c.user_id == bindparam("user"), pinned_lists.c.list_id == bindparam("list")
)
_pin_count = select(func.count()).select_from(pinned_lists).where(pinned_lists.c.user_id == bindparam("user"))
_delete_pin = delete(pinned_lists).where(
    pinned_lists.c.user_id == bindparam("user"), pinned_lists.c.list_id == bindparam("list")
)
_delete_pins_of_list = delete(pinned_lists).where(pinned_lists.c.list_id == bindparam("id"))
# Followers and pins of a list that turns private, other than its owner's, lose it.
_delete_foreign_followers = delete(list_followers).where(
    list_followers.c.list_id == bindparam("id"), list_followers.c.user_id != bindparam("owner")
)
_delete_foreign_pins = delete(pinned_lists).where(
    pinned_lists.c.list_id == bindparam("id"), pinned_lists.c.user_id != bindparam("owner")
)
_follower_count = (
    select(func.count()).select_from(list_followers).where(list_followers.c.list_id == bindparam("id"))
)
_set_follower_count = update(lists).where(lists.c.id == bindparam("id")).values(follower_count=bindparam("n"))

_visible = or_(lists.c.private == 0, lists.c.owner_id == bindparam("viewer"))


def _page(statement: Select) -> Select:
    return statement.limit(bindparam("limit")).offset(bindparam("offset"))


_owned = _page(
    select(lists).where(lists.c.owner_id == bindparam("user"), _visible).order_by(lists.c.id.desc())
)


def _lists_by_edge(table: Any) -> Select:
    """Lists a user is on the `table` side of (member, follower), newest edge first."""
    return _page(
        select(lists)
        .join(table, table.c.list_id == lists.c.id)
        .where(table.c.user_id == bindparam("user"), _visible)
        .order_by(table.c.created_at.desc(), lists.c.id.desc())
    )


_list_pages = {
    "owned": _owned,
    "memberships": _lists_by_edge(list_members),
    "followed": _lists_by_edge(list_followers),
}
_pinned = (
    select(lists)
    .join(pinned_lists, pinned_lists.c.list_id == lists.c.id)
    .where(pinned_lists.c.user_id == bindparam("user"), _visible)
    .order_by(pinned_lists.c.created_at.desc(), lists.c.id.desc())
)


def _users_by_edge(table: Any) -> Select:
    """Users on the list's `table` side (members, followers), newest edge first."""
    return _page(
        select(users)
        .join(table, table.c.user_id == users.c.id)
        .where(table.c.list_id == bindparam("list"))
        .order_by(table.c.created_at.desc(), users.c.id.desc())
    )


_user_pages = {"members": _users_by_edge(list_members), "followers": _users_by_edge(list_followers)}

# The list timeline: the ids (and authors) of the members' newest posts, at most TIMELINE_DEPTH of
# them (the platform serves a list's most recent 800 posts). Read through the (author_id, id) index
# of posts, one range per member, then sorted; kept in memory until the next commit (below).
TIMELINE_DEPTH = 800
_member_of_list = select(list_members.c.user_id).where(list_members.c.list_id == bindparam("list"))
_timeline = (
    select(posts.c.id, posts.c.author_id)
    .where(
        posts.c.author_id.in_(_member_of_list),
        posts.c.deleted_at.is_(None),
        posts.c.superseded_by.is_(None),
        posts.c.nullcast == 0,  # promoted-only posts stay out of list timelines
    )
    .order_by(posts.c.id.desc())
    .limit(TIMELINE_DEPTH)
)
_TIMELINE_TTL_S = 1.0  # a backstop for writers the database's generation does not report
_TIMELINE_CACHE_SIZE = 256
# Public lists a user is a member of (the `list:` operator of streams).
_public_lists_of = (
    select(list_members.c.list_id)
    .join(lists, lists.c.id == list_members.c.list_id)
    .where(list_members.c.user_id == bindparam("user"), lists.c.private == 0)
)


# ---- writes (inside the caller's transaction) ---------------------------------------------------


async def get_list_tx(tx: Executor, list_id: int) -> Row | None:
    return await tx.fetch_one(_by_id, {"id": list_id})


async def owned_count(tx: Executor, owner_id: int) -> int:
    return int(await tx.fetch_value(_owned_count, {"owner": owner_id}) or 0)


async def insert_list(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert, row)


async def update_list(tx: Executor, list_id: int, name: str, description: str, private: bool) -> None:
    await tx.execute(
        _update, {"id": list_id, "name": name, "description": description, "private": int(private)}
    )


async def bump_members_listed(tx: Executor, list_id: int, delta: int) -> None:
    """Move the listed_count of every member of a list (it turned private or public, or is deleted)."""
    await tx.execute(_bump_listed_members, {"id": list_id, "delta": delta})


async def bump_listed(tx: Executor, user_id: int, delta: int) -> None:
    await tx.execute(_bump_listed, {"user": user_id, "delta": delta})


async def bump_counter(tx: Executor, list_id: int, counter: str, delta: int) -> None:
    await tx.execute(_bump_counter[counter], {"id": list_id, "delta": delta})


async def delete_list(tx: Executor, list_id: int) -> None:
    """The list with its members, followers and pins (the caller adjusts listed counts first)."""
    for statement in _delete_all_edges.values():
        await tx.execute(statement, {"id": list_id})
    await tx.execute(_delete_pins_of_list, {"id": list_id})
    await tx.execute(_delete, {"id": list_id})


async def drop_foreign_followers(tx: Executor, list_id: int, owner_id: int) -> None:
    """A list that turned private keeps only its owner as follower and pinner."""
    await tx.execute(_delete_foreign_followers, {"id": list_id, "owner": owner_id})
    await tx.execute(_delete_foreign_pins, {"id": list_id, "owner": owner_id})
    count = int(await tx.fetch_value(_follower_count, {"id": list_id}) or 0)
    await tx.execute(_set_follower_count, {"id": list_id, "n": count})


async def edge_exists(tx: Executor, kind: str, list_id: int, user_id: int) -> bool:
    return await tx.fetch_one(_edge_exists[kind], {"list": list_id, "user": user_id}) is not None


async def insert_edge(tx: Executor, kind: str, list_id: int, user_id: int, at_ms: int) -> None:
    statement = _insert_member if kind == "member" else _insert_follower
    await tx.execute(statement, {"list_id": list_id, "user_id": user_id, "created_at": at_ms})


async def delete_edge(tx: Executor, kind: str, list_id: int, user_id: int) -> bool:
    return await tx.execute(_delete_edge[kind], {"list": list_id, "user": user_id}) > 0


async def pin_exists(tx: Executor, user_id: int, list_id: int) -> bool:
    return await tx.fetch_one(_pin_exists, {"user": user_id, "list": list_id}) is not None


async def pin_count(tx: Executor, user_id: int) -> int:
    return int(await tx.fetch_value(_pin_count, {"user": user_id}) or 0)


async def insert_pin(tx: Executor, user_id: int, list_id: int, at_ms: int) -> None:
    await tx.execute(_insert_pin, {"user_id": user_id, "list_id": list_id, "created_at": at_ms})


async def delete_pin(tx: Executor, user_id: int, list_id: int) -> bool:
    return await tx.execute(_delete_pin, {"user": user_id, "list": list_id}) > 0


# ---- reads --------------------------------------------------------------------------------------


def _viewer(viewer_id: int | None) -> int:
    return NOBODY if viewer_id is None else viewer_id


class ListStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        # list id -> (database generation, monotonic deadline, [(post id, author id)] newest first)
        self._timelines: dict[int, tuple[int, float, list[tuple[int, int]]]] = {}

    async def get(self, list_id: int) -> Row | None:
        return await self._db.fetch_one(_by_id, {"id": list_id})

    async def lists_page(
        self, listing: str, user_id: int, viewer_id: int | None, limit: int, offset: int
    ) -> list[Row]:
        """One page of a user's lists the viewer may see: owned, memberships or followed."""
        params = {"user": user_id, "viewer": _viewer(viewer_id), "limit": limit, "offset": offset}
        return await self._db.fetch_all(_list_pages[listing], params)

    async def pinned(self, user_id: int) -> list[Row]:
        return await self._db.fetch_all(_pinned, {"user": user_id, "viewer": user_id})

    async def users_page(self, listing: str, list_id: int, limit: int, offset: int) -> list[Row]:
        """One page of a list's members or followers."""
        return await self._db.fetch_all(
            _user_pages[listing], {"list": list_id, "limit": limit, "offset": offset}
        )

    async def timeline(self, list_id: int) -> list[tuple[int, int]]:
        """(post id, author id) of the members' newest posts, newest first (at most TIMELINE_DEPTH).

        Every page of a list timeline reads this, so it is kept until the next commit of this or
        another process (`Database.current_generation`), and at most a second: one read per list
        and write, however many pages are served in between."""
        generation = self._db.current_generation()
        hit = self._timelines.get(list_id)
        if hit is not None and hit[0] == generation and time.monotonic() < hit[1]:
            return hit[2]
        rows = await self._db.fetch_all(_timeline, {"list": list_id})
        entries = [(int(row["id"]), int(row["author_id"])) for row in rows]
        if len(self._timelines) >= _TIMELINE_CACHE_SIZE:
            self._timelines.clear()
        self._timelines[list_id] = (generation, time.monotonic() + _TIMELINE_TTL_S, entries)
        return entries

    async def public_lists_of(self, user_id: int) -> list[int]:
        return [int(row["list_id"]) for row in await self._db.fetch_all(_public_lists_of, {"user": user_id})]


# ---- export -------------------------------------------------------------------------------------

_all = {
    "lists": select(lists).order_by(lists.c.id),
    "list_members": select(list_members).order_by(list_members.c.list_id, list_members.c.created_at),
    "list_followers": select(list_followers).order_by(list_followers.c.list_id, list_followers.c.created_at),
    "pinned_lists": select(pinned_lists).order_by(pinned_lists.c.user_id, pinned_lists.c.created_at),
}


async def all_rows(db: Database, table: str) -> list[Row]:
    """Every row of one of the list tables (lists, list_members, list_followers, pinned_lists)."""
    return await db.fetch_all(_all[table])
