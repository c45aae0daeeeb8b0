"""Users: lookup by ids, id, usernames, username, and the authenticated user."""

from __future__ import annotations

from roost.core.params import CsvOf, Param, Snowflake, Username
from roost.platform.operations import ANY_AUTH, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects

SCOPES = ("tweet.read", "users.read")


async def get_users(call: Call) -> Objects:
    found, problems = await call.domain.lookup.users(call.params["ids"])
    return Objects(found, errors=problems)


async def get_user(call: Call) -> Objects:
    row, problems = await call.domain.lookup.user(call.params["id"])
    return Objects([] if row is None else [row], single=True, errors=problems)


async def get_users_by_usernames(call: Call) -> Objects:
    found, problems = await call.domain.lookup.users_by_name(call.params["usernames"])
    return Objects(found, errors=problems)


async def get_user_by_username(call: Call) -> Objects:
    row, problems = await call.domain.lookup.user_by_name(call.params["username"])
    return Objects([] if row is None else [row], single=True, errors=problems)


async def get_me(call: Call) -> Objects:
    assert call.principal.user_id is not None
    row, _ = await call.domain.lookup.user(call.principal.user_id)
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
