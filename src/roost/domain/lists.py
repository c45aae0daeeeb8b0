"""Lists: creation, updates and deletion by their owner, members, followers and pins, and the reads
(a list, its members, followers and timeline, a user's owned, followed, member-of and pinned lists).

Rules kept here:
- a private list is seen by its owner only; to anyone else (and to app-only callers) it does not
  exist, in reads and writes alike;
- only the owner changes a list or its members; the platform's caps hold (lists per owner, members
  per list, pinned lists per user);
- `member_count`, `follower_count` and every member's `listed_count` (the public lists they are on)
  move with each change, in the change's transaction.

The platform has no list events (neither account activity nor activity events name one), so list
writes append none. Repeating a write already in effect succeeds and changes nothing.
"""

from __future__ import annotations

import bisect
from typing import Any

from roost.core import errors, jsonio, pagination
from roost.core.clock import Clock
from roost.core.errors import not_authorized_for_resource_item, resource_not_found_item
from roost.core.ids import MAX_SNOWFLAKE, SnowflakeGenerator
from roost.core.pagination import PageToken
from roost.core.records import Row
from roost.domain.lookup import Lookup, visible_post
from roost.domain.pages import Page, offset_of, offset_page
from roost.storage import lists as list_rows
from roost.storage import social as social_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor
from roost.storage.lists import ListStore
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

MAX_LISTS_PER_OWNER = 1000
MAX_MEMBERS_PER_LIST = 5000
MAX_PINNED_LISTS = 5
NAME_MAX = 25
DESCRIPTION_MAX = 100
NOT_PERMITTED = "You are not permitted to perform this action."
_LIST_KEYS = ("name", "description", "private")


# ---- bodies -------------------------------------------------------------------------------------


def _object(body: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    extra = sorted(set(body) - set(allowed))
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    return body


def _string(body: dict[str, Any], name: str, low: int, high: int) -> str | None:
    if name not in body:
        return None
    value = body[name]
    if not isinstance(value, str):
        raise errors.invalid_body(f"$.{name}: {jsonio.type_name(value)} found, string expected")
    if len(value) < low:
        raise errors.invalid_body(f"$.{name}: must be at least {low} characters long")
    if len(value) > high:
        raise errors.invalid_body(f"$.{name}: may only be {high} characters long")
    return value


def _boolean(body: dict[str, Any], name: str) -> bool | None:
    if name not in body:
        return None
    value = body[name]
    if not isinstance(value, bool):
        raise errors.invalid_body(f"$.{name}: {jsonio.type_name(value)} found, boolean expected")
    return value


def list_fields(body: Any, *, creating: bool) -> dict[str, Any]:
    """The name, description and privacy a create or update body gives (checked like the
    platform's schema: name 1-25 characters, description up to 100, private a boolean)."""
    body = _object(body, _LIST_KEYS)
    if creating and "name" not in body:
        raise errors.invalid_body("$.name: is missing but it is required")
    fields = {
        "name": _string(body, "name", 1, NAME_MAX),
        "description": _string(body, "description", 0, DESCRIPTION_MAX),
        "private": _boolean(body, "private"),
    }
    return {key: value for key, value in fields.items() if value is not None}


def body_id(body: Any, name: str) -> int:
    """The one id field of an add-member, follow or pin body."""
    body = _object(body, (name,))
    if name not in body:
        raise errors.invalid_body(f"$.{name}: is missing but it is required")
    value = body[name]
    if not isinstance(value, str):
        raise errors.invalid_body(f"$.{name}: {jsonio.type_name(value)} found, string expected")
    if not value.isascii() or not value.isdigit() or len(value) > 19:
        raise _bad(name, value, f"The `{name}` field value [{value}] does not match ^[0-9]{{1,19}}$")
    if int(value) > MAX_SNOWFLAKE:
        raise _bad(name, value, f"The `{name}` field value [{value}] is not valid")
    return int(value)


def _bad(name: str, value: str, message: str) -> errors.ApiError:
    return errors.invalid_request([errors.param_error(name, value, message)])


def list_not_found(parameter: str, list_id: int) -> errors.ApiError:
    """A write naming a list that does not exist, or that the caller may not see (someone else's
    private list): the platform's resource-not-found problem."""
    value = str(list_id)
    return errors.problem(
        "resource-not-found",
        "Not Found Error",
        f"Could not find list with {parameter}: [{value}].",
        404,
        value=value,
        resource_type="list",
        parameter=parameter,
        resource_id=value,
    )


def require_self(principal_user_id: int | None, path_user_id: int) -> None:
    if principal_user_id != path_user_id:
        raise errors.forbidden(NOT_PERMITTED)


def may_see(row: Row | None, viewer_id: int | None) -> bool:
    return row is not None and (not row["private"] or row["owner_id"] == viewer_id)


class ListService:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        lists: ListStore,
        users: UserStore,
        posts: PostStore,
        lookup: Lookup,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._lists = lists
        self._users = users
        self._posts = posts
        self._lookup = lookup

    # ---- writes ---------------------------------------------------------------------------------

    async def create(self, owner_id: int, body: Any) -> Row:
        fields = list_fields(body, creating=True)
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [owner_id])
            if await list_rows.owned_count(tx, owner_id) >= MAX_LISTS_PER_OWNER:
                raise errors.forbidden(f"You cannot own more than {MAX_LISTS_PER_OWNER} Lists.")
            row = {
                "id": self._ids.next_id(),
                "owner_id": owner_id,
                "name": fields["name"],
                "description": fields.get("description", ""),
                "private": int(fields.get("private", False)),
                "created_at": self._clock.now_ms(),
                "member_count": 0,
                "follower_count": 0,
            }
            await list_rows.insert_list(tx, row)
        return row

    async def _owned(self, tx: Executor, user_id: int, list_id: int, parameter: str = "id") -> Row:
        """The list for a write by its owner: missing or unseen → 404, someone else's → 403."""
        row = await list_rows.get_list_tx(tx, list_id)
        if not may_see(row, user_id):
            raise list_not_found(parameter, list_id)
        assert row is not None
        if row["owner_id"] != user_id:
            raise errors.forbidden(NOT_PERMITTED)
        return row

    async def update(self, user_id: int, list_id: int, body: Any) -> None:
        fields = list_fields(body, creating=False)
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            row = await self._owned(tx, user_id, list_id)
            was_private = bool(row["private"])
            private = fields.get("private", was_private)
            await list_rows.update_list(
                tx,
                list_id,
                str(fields.get("name", row["name"])),
                str(fields.get("description", row["description"])),
                private,
            )
            if private != was_private:
                # Members count the public lists they are on; a list turning private keeps no
                # follower or pin but its owner's.
                await list_rows.bump_members_listed(tx, list_id, -1 if private else 1)
                if private:
                    await list_rows.drop_foreign_followers(tx, list_id, user_id)

    async def delete(self, user_id: int, list_id: int) -> None:
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            row = await self._owned(tx, user_id, list_id)
            if not row["private"]:
                await list_rows.bump_members_listed(tx, list_id, -1)
            await list_rows.delete_list(tx, list_id)

    async def add_member(self, user_id: int, list_id: int, member_id: int) -> bool:
        """Add a member; False if they already were (nothing changes)."""
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            row = await self._owned(tx, user_id, list_id)
            if await user_rows.get_user_tx(tx, member_id) is None:
                value = str(member_id)
                raise _bad("user_id", value, f"Could not find user with user_id: [{value}].")
            if await list_rows.edge_exists(tx, "member", list_id, member_id):
                return False
            if await social_rows.edge_exists(tx, "block", member_id, user_id):
                raise errors.forbidden("You cannot add this user to the List: they have blocked you.")
            if row["member_count"] >= MAX_MEMBERS_PER_LIST:
                raise errors.forbidden(f"A List cannot have more than {MAX_MEMBERS_PER_LIST} members.")
            await list_rows.insert_edge(tx, "member", list_id, member_id, self._clock.now_ms())
            await list_rows.bump_counter(tx, list_id, "member_count", 1)
            if not row["private"]:
                await list_rows.bump_listed(tx, member_id, 1)
        return True

    async def remove_member(self, user_id: int, list_id: int, member_id: int) -> bool:
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            row = await self._owned(tx, user_id, list_id)
            if not await list_rows.delete_edge(tx, "member", list_id, member_id):
                return False
            await list_rows.bump_counter(tx, list_id, "member_count", -1)
            if not row["private"]:
                await list_rows.bump_listed(tx, member_id, -1)
        return True

    async def follow(self, user_id: int, list_id: int) -> bool:
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            row = await list_rows.get_list_tx(tx, list_id)
            if not may_see(row, user_id):
                raise list_not_found("list_id", list_id)
            assert row is not None
            if row["owner_id"] == user_id:
                raise errors.forbidden("You cannot follow a List you own.")
            if await social_rows.edge_exists(tx, "block", row["owner_id"], user_id):
                raise errors.forbidden("You cannot follow this List: its owner has blocked you.")
            if await list_rows.edge_exists(tx, "follower", list_id, user_id):
                return False
            await list_rows.insert_edge(tx, "follower", list_id, user_id, self._clock.now_ms())
            await list_rows.bump_counter(tx, list_id, "follower_count", 1)
        return True

    async def unfollow(self, user_id: int, list_id: int) -> bool:
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            if not await list_rows.delete_edge(tx, "follower", list_id, user_id):
                return False
            await list_rows.bump_counter(tx, list_id, "follower_count", -1)
        return True

    async def pin(self, user_id: int, list_id: int) -> bool:
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            row = await list_rows.get_list_tx(tx, list_id)
            if not may_see(row, user_id):
                raise list_not_found("list_id", list_id)
            if await list_rows.pin_exists(tx, user_id, list_id):
                return False
            if await list_rows.pin_count(tx, user_id) >= MAX_PINNED_LISTS:
                raise errors.forbidden(f"You cannot pin more than {MAX_PINNED_LISTS} Lists.")
            await list_rows.insert_pin(tx, user_id, list_id, self._clock.now_ms())
        return True

    async def unpin(self, user_id: int, list_id: int) -> bool:
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            return await list_rows.delete_pin(tx, user_id, list_id)

    # ---- reads ----------------------------------------------------------------------------------

    async def get(self, viewer_id: int | None, list_id: int) -> tuple[Row | None, list[dict[str, Any]]]:
        """A list by id, or the not-found item that stands in for a missing or unseen one."""
        row = await self._lists.get(list_id)
        if not may_see(row, viewer_id):
            return None, [resource_not_found_item("list", "id", str(list_id))]
        return row, []

    async def members(self, viewer_id: int | None, list_id: int, limit: int, token: PageToken | None) -> Page:
        return await self._users_page("members", viewer_id, list_id, limit, token)

    async def followers(
        self, viewer_id: int | None, list_id: int, limit: int, token: PageToken | None
    ) -> Page:
        return await self._users_page("followers", viewer_id, list_id, limit, token)

    async def _users_page(
        self, listing: str, viewer_id: int | None, list_id: int, limit: int, token: PageToken | None
    ) -> Page:
        row, problems = await self.get(viewer_id, list_id)
        if row is None:
            return Page([], errors=problems)
        scope = f"list_{listing}:{list_id}"
        offset = offset_of(token, scope)
        rows = await self._lists.users_page(listing, list_id, limit + 1, offset)
        return offset_page(rows, rows[:limit], offset, limit, scope)

    async def posts(
        self,
        viewer_id: int | None,
        list_id: int,
        limit: int,
        token: PageToken | None,
        columns: tuple[str, ...] | None = None,
    ) -> Page:
        """The members' posts, newest first, at most the 800 most recent (as the platform); posts of
        protected members the viewer does not follow are left out (the page may come up short, and
        next_token still follows it). `columns`: the post columns the selection reads."""
        row, problems = await self.get(viewer_id, list_id)
        if row is None:
            return Page([], errors=problems)
        scope = f"list_tweets:{list_id}"
        entries = await self._lists.timeline(list_id)
        start = 0
        if token is not None:
            until_id = token.following(scope)
            # Entries are newest first: start at the first one older than the cursor.
            start = bisect.bisect_right(entries, -until_id, key=lambda entry: -entry[0])
        page = entries[start : start + limit]
        hidden = await self._lookup.hidden_authors(viewer_id, (author for _, author in page))
        wanted = [post_id for post_id, author in page if author not in hidden]
        found = {post["id"]: post for post in await self._posts.get_many(wanted, columns)}
        shown = [found[post_id] for post_id in wanted if visible_post(found.get(post_id))]
        meta: dict[str, Any] = {"result_count": len(shown)}
        if start + limit < len(entries):
            meta["next_token"] = pagination.encode(page[-1][0], pagination.NEXT, scope)
        return Page(shown, meta)

    async def owned(self, viewer_id: int | None, user_id: int, limit: int, token: PageToken | None) -> Page:
        return await self._lists_page("owned", viewer_id, user_id, limit, token)

    async def memberships(
        self, viewer_id: int | None, user_id: int, limit: int, token: PageToken | None
    ) -> Page:
        return await self._lists_page("memberships", viewer_id, user_id, limit, token)

    async def followed(
        self, viewer_id: int | None, user_id: int, limit: int, token: PageToken | None
    ) -> Page:
        return await self._lists_page("followed", viewer_id, user_id, limit, token)

    async def _lists_page(
        self, listing: str, viewer_id: int | None, user_id: int, limit: int, token: PageToken | None
    ) -> Page:
        problem = await self._user_problem(viewer_id, user_id)
        if problem is not None:
            return problem
        scope = f"{listing}_lists:{user_id}"
        offset = offset_of(token, scope)
        rows = await self._lists.lists_page(listing, user_id, viewer_id, limit + 1, offset)
        return offset_page(rows, rows[:limit], offset, limit, scope)

    async def pinned(self, user_id: int) -> Page:
        rows = await self._lists.pinned(user_id)
        return Page(rows, {"result_count": len(rows)})

    async def _user_problem(self, viewer_id: int | None, user_id: int) -> Page | None:
        """The partial error for a missing user, or a protected one the viewer does not follow."""
        if await self._users.get(user_id) is None:
            return Page([], errors=[resource_not_found_item("user", "id", str(user_id))])
        if await self._lookup.hidden_authors(viewer_id, [user_id]):
            return Page([], errors=[not_authorized_for_resource_item("user", "id", str(user_id), "data")])
        return None
