"""Users search and an organisation's affiliates: the v2 operations."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from roost.core.errors import ParamError
from roost.core.params import IntRange, Kind, Param, Snowflake, Token
from roost.platform.operations import ANY_AUTH, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.platform.timelines import page_objects

QUERY_PATTERN = "^[A-Za-z0-9_' ]{1,50}$"
_QUERY = re.compile(QUERY_PATTERN)


class UserQuery(Kind):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "pattern": QUERY_PATTERN}

    def parse(self, name: str, raw: str) -> str:
        if _QUERY.fullmatch(raw) is None:
            raise ParamError(f"The `{name}` query parameter value [{raw}] does not match {QUERY_PATTERN}")
        return raw


async def search_users(call: Call) -> Objects:
    params = call.params
    page = await call.domain.user_search.search(
        params["query"], params["max_results"], params.get("next_token")
    )
    return page_objects(page)


async def affiliates(call: Call) -> Objects:
    params = call.params
    page = await call.domain.user_search.affiliates(
        params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "searchUsers",
        "GET",
        "/2/users/search",
        search_users,
        USER_AUTH,
        ("tweet.read", "users.read"),
        params=(
            Param("query", UserQuery(), required=True),
            Param("max_results", IntRange(1, 1000), default=100),
            Param("next_token", Token()),
        ),
        returns="user",
        rate_limit=RateLimit(app=300, user=900),
        tag="Users",
        summary="Search Users",
    ),
    Operation(
        "getUsersAffiliates",
        "GET",
        "/2/users/{id}/affiliates",
        affiliates,
        ANY_AUTH,
        ("tweet.read", "users.read"),
        params=(
            Param("id", Snowflake(), required=True, in_path=True),
            Param("max_results", IntRange(1, 1000), default=100),
            Param("pagination_token", Token()),
        ),
        returns="user",
        rate_limit=RateLimit(app=300, user=900),
        tag="Users",
        summary="Get Users Affiliates",
    ),
)
