"""Lists: create, look up, update and delete a list; its members, followers and posts; a user's
owned, followed, member-of and pinned lists (the rules are `domain/lists.py`)."""

from __future__ import annotations

from typing import Any

from roost.core.params import IntRange, Param, Snowflake, Token
from roost.domain.lists import body_id, require_self
from roost.platform.operations import ANY_AUTH, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects, Reply
from roost.platform.timelines import page_objects

# Where the platform's create answer points (recorded traffic: `location: https://api.twitter.com/2/lists/<id>`).
LOCATION_BASE = "https://api.twitter.com/2/lists/"


def _me(call: Call) -> int:
    assert call.principal.user_id is not None  # USER_AUTH operations always have a user
    return call.principal.user_id


def _paged(call: Call) -> tuple[int | None, int, int, Any]:
    params = call.params
    return call.principal.user_id, params["id"], params["max_results"], params.get("pagination_token")


# ---- a list -------------------------------------------------------------------------------------


async def create_list(call: Call) -> Reply:
    row = await call.domain.lists.create(_me(call), call.body)
    list_id = str(row["id"])
    return Reply(
        {"data": {"id": list_id, "name": row["name"]}},
        status=201,
        headers={"location": LOCATION_BASE + list_id},
    )


async def get_list(call: Call) -> Objects:
    row, problems = await call.domain.lists.get(call.principal.user_id, call.params["id"])
    return Objects([] if row is None else [row], single=True, errors=problems)


async def update_list(call: Call) -> dict[str, Any]:
    await call.domain.lists.update(_me(call), call.params["id"], call.body)
    return {"data": {"updated": True}}


async def delete_list(call: Call) -> dict[str, Any]:
    await call.domain.lists.delete(_me(call), call.params["id"])
    return {"data": {"deleted": True}}


# ---- members, followers, posts ------------------------------------------------------------------


async def add_member(call: Call) -> dict[str, Any]:
    await call.domain.lists.add_member(_me(call), call.params["id"], body_id(call.body, "user_id"))
    return {"data": {"is_member": True}}


async def remove_member(call: Call) -> dict[str, Any]:
    await call.domain.lists.remove_member(_me(call), call.params["id"], call.params["user_id"])
    return {"data": {"is_member": False}}


async def members(call: Call) -> Objects:
    return page_objects(await call.domain.lists.members(*_paged(call)))


async def followers(call: Call) -> Objects:
    return page_objects(await call.domain.lists.followers(*_paged(call)))


async def list_posts(call: Call) -> Objects:
    columns = call.selection.columns if call.selection is not None else None
    return page_objects(await call.domain.lists.posts(*_paged(call), columns))


# ---- a user's lists -----------------------------------------------------------------------------


async def owned_lists(call: Call) -> Objects:
    return page_objects(await call.domain.lists.owned(*_paged(call)))


async def followed_lists(call: Call) -> Objects:
    return page_objects(await call.domain.lists.followed(*_paged(call)))


async def list_memberships(call: Call) -> Objects:
    return page_objects(await call.domain.lists.memberships(*_paged(call)))


async def pinned_lists(call: Call) -> Objects:
    require_self(call.principal.user_id, call.params["id"])
    return page_objects(await call.domain.lists.pinned(_me(call)))


async def follow_list(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await call.domain.lists.follow(_me(call), body_id(call.body, "list_id"))
    return {"data": {"following": True}}


async def unfollow_list(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await call.domain.lists.unfollow(_me(call), call.params["list_id"])
    return {"data": {"following": False}}


async def pin_list(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await call.domain.lists.pin(_me(call), body_id(call.body, "list_id"))
    return {"data": {"pinned": True}}


async def unpin_list(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await call.domain.lists.unpin(_me(call), call.params["list_id"])
    return {"data": {"pinned": False}}


# ---- the operation table ------------------------------------------------------------------------

ID = Param("id", Snowflake(), required=True, in_path=True)
LIST_ID = Param("list_id", Snowflake(), required=True, in_path=True)
PAGED = (ID, Param("max_results", IntRange(1, 100), default=100), Param("pagination_token", Token()))
LIST_WRITE_LIMIT = RateLimit(user=300)
USER_LIST_WRITE_LIMIT = RateLimit(user=50)


def _write(
    operation_id: str,
    method: str,
    path: str,
    handler: Any,
    scopes: tuple[str, ...],
    params: tuple[Param, ...],
    limit: RateLimit,
    tag: str,
    summary: str,
    status: int = 200,
) -> Operation:
    return Operation(
        operation_id,
        method,
        path,
        handler,
        USER_AUTH,
        scopes,
        write=True,
        body=method in ("POST", "PUT"),
        params=params,
        rate_limit=limit,
        status=status,
        tag=tag,
        summary=summary,
    )


def _read(
    operation_id: str,
    path: str,
    handler: Any,
    scopes: tuple[str, ...],
    returns: str,
    limit: RateLimit,
    tag: str,
    summary: str,
    params: tuple[Param, ...] = PAGED,
    auth: tuple[str, ...] = ANY_AUTH,
) -> Operation:
    return Operation(
        operation_id,
        "GET",
        path,
        handler,
        auth,
        scopes,
        params=params,
        returns=returns,
        rate_limit=limit,
        tag=tag,
        summary=summary,
    )


OPERATIONS: tuple[Operation, ...] = (
    _write(
        "createLists",
        "POST",
        "/2/lists",
        create_list,
        ("list.read", "users.read", "tweet.read", "list.write"),
        (),
        LIST_WRITE_LIMIT,
        "Lists",
        "Create List",
        status=201,
    ),
    _read(
        "getListsById",
        "/2/lists/{id}",
        get_list,
        ("list.read", "tweet.read", "users.read"),
        "list",
        RateLimit(app=75, user=75),
        "Lists",
        "Get List by ID",
        params=(ID,),
    ),
    _write(
        "updateLists",
        "PUT",
        "/2/lists/{id}",
        update_list,
        ("list.write", "users.read", "tweet.read"),
        (ID,),
        LIST_WRITE_LIMIT,
        "Lists",
        "Update List",
    ),
    _write(
        "deleteLists",
        "DELETE",
        "/2/lists/{id}",
        delete_list,
        ("tweet.read", "list.write", "users.read"),
        (ID,),
        LIST_WRITE_LIMIT,
        "Lists",
        "Delete List",
    ),
    _read(
        "getListsMembers",
        "/2/lists/{id}/members",
        members,
        ("users.read", "list.read", "tweet.read"),
        "user",
        RateLimit(app=900, user=900),
        "Lists",
        "Get List members",
    ),
    _write(
        "addListsMember",
        "POST",
        "/2/lists/{id}/members",
        add_member,
        ("users.read", "list.write", "tweet.read"),
        (ID,),
        LIST_WRITE_LIMIT,
        "Lists",
        "Add List member",
    ),
    _write(
        "removeListsMemberByUserId",
        "DELETE",
        "/2/lists/{id}/members/{user_id}",
        remove_member,
        ("tweet.read", "users.read", "list.write"),
        (ID, Param("user_id", Snowflake(), required=True, in_path=True)),
        LIST_WRITE_LIMIT,
        "Lists",
        "Remove List member",
    ),
    _read(
        "getListsFollowers",
        "/2/lists/{id}/followers",
        followers,
        ("tweet.read", "users.read", "list.read"),
        "user",
        RateLimit(app=180, user=180),
        "Lists",
        "Get List followers",
    ),
    _read(
        "getListsPosts",
        "/2/lists/{id}/tweets",
        list_posts,
        ("users.read", "tweet.read", "list.read"),
        "tweet",
        RateLimit(app=900, user=900),
        "Lists",
        "Get List Posts",
    ),
    _read(
        "getUsersOwnedLists",
        "/2/users/{id}/owned_lists",
        owned_lists,
        ("list.read", "users.read", "tweet.read"),
        "list",
        RateLimit(app=15, user=15),
        "Users",
        "Get owned Lists",
    ),
    _read(
        "getUsersFollowedLists",
        "/2/users/{id}/followed_lists",
        followed_lists,
        ("list.read", "tweet.read", "users.read"),
        "list",
        RateLimit(app=15, user=15),
        "Users",
        "Get followed Lists",
    ),
    _write(
        "followList",
        "POST",
        "/2/users/{id}/followed_lists",
        follow_list,
        ("tweet.read", "users.read", "list.write"),
        (ID,),
        USER_LIST_WRITE_LIMIT,
        "Users",
        "Follow List",
    ),
    _write(
        "unfollowList",
        "DELETE",
        "/2/users/{id}/followed_lists/{list_id}",
        unfollow_list,
        ("tweet.read", "users.read", "list.write"),
        (ID, LIST_ID),
        USER_LIST_WRITE_LIMIT,
        "Lists",
        "Unfollow List",
    ),
    _read(
        "getUsersListMemberships",
        "/2/users/{id}/list_memberships",
        list_memberships,
        ("tweet.read", "users.read", "list.read"),
        "list",
        RateLimit(app=75, user=75),
        "Users",
        "Get List memberships",
    ),
    _read(
        "getUsersPinnedLists",
        "/2/users/{id}/pinned_lists",
        pinned_lists,
        ("tweet.read", "users.read", "list.read"),
        "list",
        RateLimit(user=15),
        "Users",
        "Get pinned Lists",
        params=(ID,),
        auth=USER_AUTH,
    ),
    _write(
        "pinList",
        "POST",
        "/2/users/{id}/pinned_lists",
        pin_list,
        ("tweet.read", "list.write", "users.read"),
        (ID,),
        USER_LIST_WRITE_LIMIT,
        "Lists",
        "Pin List",
    ),
    _write(
        "unpinList",
        "DELETE",
        "/2/users/{id}/pinned_lists/{list_id}",
        unpin_list,
        ("tweet.read", "users.read", "list.write"),
        (ID, LIST_ID),
        USER_LIST_WRITE_LIMIT,
        "Lists",
        "Unpin List",
    ),
)
