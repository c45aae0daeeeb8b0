"""Communities: lookup by id (any credentials) and search (user context)."""

from __future__ import annotations

from roost.core.params import BoundedText, IntRange, Param, Snowflake, Token
from roost.platform.operations import ANY_AUTH, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects


async def get_community(call: Call) -> Objects:
    page = await call.domain.communities.community(call.params["id"])
    return Objects(page.rows, single=True, errors=page.errors)


async def search_communities(call: Call) -> Objects:
    params = call.params
    token = params.get("next_token") or params.get("pagination_token")
    page = await call.domain.communities.search(params["query"], params["max_results"], token)
    return Objects(page.rows, meta=page.meta)


# No published figures: the lookups' 300 per 15 minutes.
LOOKUP_LIMIT = RateLimit(app=300, user=300)

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getCommunitiesById",
        "GET",
        "/2/communities/{id}",
        get_community,
        ANY_AUTH,
        ("list.read", "tweet.read", "users.read"),
        params=(Param("id", Snowflake(), required=True, in_path=True),),
        returns="community",
        rate_limit=LOOKUP_LIMIT,
        tag="Communities",
        summary="Communities lookup by Community ID",
    ),
    Operation(
        "searchCommunities",
        "GET",
        "/2/communities/search",
        search_communities,
        USER_AUTH,
        ("tweet.read", "users.read"),
        params=(
            Param("query", BoundedText(1, 4096), required=True),
            Param("max_results", IntRange(10, 100), default=10),
            Param("next_token", Token()),
            Param("pagination_token", Token()),
        ),
        returns="community",
        rate_limit=RateLimit(user=300),
        tag="Communities",
        summary="Search Communities",
    ),
)
