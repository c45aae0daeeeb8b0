"""Post analytics (`GET /2/tweets/analytics`): the caller's own posts' metrics over a window."""

from __future__ import annotations

from roost.core.params import CsvOf, Enum, Param, Snowflake, Timestamp
from roost.platform.operations import USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects


async def posts_analytics(call: Call) -> Objects:
    params = call.params
    assert call.principal.user_id is not None
    page = await call.domain.analytics.posts(
        call.principal.user_id, params["ids"], params["start_time"], params["end_time"], params["granularity"]
    )
    return Objects(page.rows, errors=page.errors)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getPostsAnalytics",
        "GET",
        "/2/tweets/analytics",
        posts_analytics,
        USER_AUTH,
        ("tweet.read", "users.read"),
        params=(
            Param("ids", CsvOf(Snowflake(), 100), required=True),
            Param("start_time", Timestamp(), required=True),
            Param("end_time", Timestamp(), required=True),
            Param("granularity", Enum(("hourly", "daily", "weekly", "total")), default="total"),
        ),
        returns="analytics",
        # No published figure: the post lookups' 900 per 15 minutes per user.
        rate_limit=RateLimit(user=900),
        tag="Tweets",
        summary="Get Post analytics",
    ),
)
