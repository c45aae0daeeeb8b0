"""Users: lookup by ids, id, usernames, username, and the authenticated user."""

from __future__ import annotations

from roost.core.errors import resource_not_found_item
from roost.core.params import CsvOf, Param, Snowflake, Username
from roost.platform.operations import ANY_AUTH, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects

SCOPES = ("tweet.read", "users.read")


async def get_users(call: Call) -> Objects:
    ids: list[int] = call.params["ids"]
    rows = {row["id"]: row for row in await call.services.users.get_many(ids)}
    unique = list(dict.fromkeys(ids))
    return Objects(
        [rows[i] for i in unique if i in rows],
        errors=[resource_not_found_item("user", "ids", str(i)) for i in unique if i not in rows],
    )


async def get_user(call: Call) -> Objects:
    row = await call.services.users.get(call.params["id"])
    if row is None:
        return Objects(
            [], single=True, errors=[resource_not_found_item("user", "id", str(call.params["id"]))]
        )
    return Objects([row], single=True)


async def get_users_by_usernames(call: Call) -> Objects:
    names: list[str] = call.params["usernames"]
    rows = {row["username_lower"]: row for row in await call.services.users.get_many_by_username(names)}
    unique = list(dict.fromkeys(names))
    return Objects(
        [rows[n.lower()] for n in unique if n.lower() in rows],
        errors=[resource_not_found_item("user", "usernames", n) for n in unique if n.lower() not in rows],
    )


async def get_user_by_username(call: Call) -> Objects:
    name: str = call.params["username"]
    row = await call.services.users.get_by_username(name)
    if row is None:
        return Objects([], single=True, errors=[resource_not_found_item("user", "username", name)])
    return Objects([row], single=True)


async def get_me(call: Call) -> Objects:
    assert call.principal.user_id is not None
    row = await call.services.users.get(call.principal.user_id)
    return Objects([row] if row else [], single=True)


OPERATIONS = (
    Operation(
        "findUsersById",
        "GET",
        "/2/users",
        get_users,
        ANY_AUTH,
        SCOPES,
        params=(Param("ids", CsvOf(Snowflake(), 100), required=True),),
        returns="user",
        rate_limit=RateLimit(app=300, user=900),
        tag="Users",
        summary="User lookup by IDs",
    ),
    Operation(
        "findUserById",
        "GET",
        "/2/users/{id}",
        get_user,
        ANY_AUTH,
        SCOPES,
        params=(Param("id", Snowflake(), required=True, in_path=True),),
        returns="user",
        rate_limit=RateLimit(app=300, user=900),
        tag="Users",
        summary="User lookup by ID",
    ),
    Operation(
        "findUsersByUsername",
        "GET",
        "/2/users/by",
        get_users_by_usernames,
        ANY_AUTH,
        SCOPES,
        params=(Param("usernames", CsvOf(Username(), 100), required=True),),
        returns="user",
        rate_limit=RateLimit(app=300, user=900),
        tag="Users",
        summary="User lookup by usernames",
    ),
    Operation(
        "findUserByUsername",
        "GET",
        "/2/users/by/username/{username}",
        get_user_by_username,
        ANY_AUTH,
        SCOPES,
        params=(Param("username", Username(), required=True, in_path=True),),
        returns="user",
        rate_limit=RateLimit(app=300, user=900),
        tag="Users",
        summary="User lookup by username",
    ),
    Operation(
        "findMyUser",
        "GET",
        "/2/users/me",
        get_me,
        USER_AUTH,
        SCOPES,
        returns="user",
        rate_limit=RateLimit(user=75),
        tag="Users",
        summary="User lookup me",
    ),
)
