"""News stories: lookup by id and search (any credentials)."""

from __future__ import annotations

from roost.core.params import BoundedText, IntRange, Param, Snowflake
from roost.platform.operations import ANY_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects


async def get_news(call: Call) -> Objects:
    page = await call.domain.news.story(call.params["id"])
    return Objects(page.rows, single=True, errors=page.errors)


async def search_news(call: Call) -> Objects:
    params = call.params
    page = await call.domain.news.search(params["query"], params["max_results"], params["max_age_hours"])
    return Objects(page.rows, meta=page.meta)


SCOPES = ("tweet.read", "users.read")
# No published figure: the lookups' 300 per 15 minutes, per app and per user.
NEWS_LIMIT = RateLimit(app=300, user=300)

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getNews",
        "GET",
        "/2/news/{id}",
        get_news,
        ANY_AUTH,
        SCOPES,
        params=(Param("id", Snowflake(), required=True, in_path=True),),
        returns="news",
        rate_limit=NEWS_LIMIT,
        tag="News",
        summary="Get news stories by ID",
    ),
    Operation(
        "searchNews",
        "GET",
        "/2/news/search",
        search_news,
        ANY_AUTH,
        SCOPES,
        params=(
            Param("query", BoundedText(1, 2048), required=True),
            Param("max_results", IntRange(1, 100), default=10),
            Param("max_age_hours", IntRange(1, 720), default=168),
        ),
        returns="news",
        rate_limit=NEWS_LIMIT,
        tag="News",
        summary="Search News",
    ),
)
