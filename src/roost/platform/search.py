"""Search and counts: `GET /2/tweets/search/{recent,all}` and `GET /2/tweets/counts/{recent,all}`
(facts §4). The rules live in `roost.domain.search`; these handlers pass parameters through."""

from __future__ import annotations

from typing import Any

from roost.core.params import Enum, EnumSet, IntRange, Kind, Param, Snowflake, Timestamp, Token
from roost.domain.search import Product, SearchRequest
from roost.platform.operations import ANY_AUTH, APP, OAUTH2, Operation, RateLimit
from roost.platform.pipeline import Call, Objects


class QueryText(Kind):
    """The query itself: validated by the parser in the handler, with the platform's texts."""


def _common(product: Product, *, counts: bool) -> tuple[Param, ...]:
    params = [
        Param("query", QueryText(), required=True),
        Param("start_time", Timestamp()),
        Param("end_time", Timestamp()),
        Param("since_id", Snowflake()),
        Param("until_id", Snowflake()),
        Param("next_token", Token()),
        Param("pagination_token", Token()),
    ]
    if counts:
        params += [
            Param("granularity", Enum(("minute", "hour", "day")), default="hour"),
            Param("search_count.fields", EnumSet(("end", "start", "tweet_count", "post_count"))),
        ]
    else:
        params += [
            Param("max_results", IntRange(10, 100 if product == "recent" else 500), default=10),
            Param("sort_order", Enum(("recency", "relevancy"))),
        ]
    return tuple(params)


async def _search(call: Call, product: Product) -> Objects:
    request = SearchRequest.of(call.params, call.raw, call.principal.package)
    rows, meta = await call.domain.search.search(call.principal, product, request, call.now_ms)
    return Objects(rows, meta=meta)


async def search_recent(call: Call) -> Objects:
    return await _search(call, "recent")


async def search_all(call: Call) -> Objects:
    return await _search(call, "all")


async def counts_recent(call: Call) -> dict[str, Any]:
    request = SearchRequest.of(call.params, call.raw, call.principal.package)
    return await call.domain.search.counts("recent", request, call.now_ms)


async def counts_all(call: Call) -> dict[str, Any]:
    request = SearchRequest.of(call.params, call.raw, call.principal.package)
    return await call.domain.search.counts("all", request, call.now_ms)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "tweetsRecentSearch",
        "GET",
        "/2/tweets/search/recent",
        search_recent,
        ANY_AUTH,
        ("tweet.read", "users.read"),
        params=_common("recent", counts=False),
        returns="tweet",
        rate_limit=RateLimit(app=450, user=300),
        tag="Tweets",
        summary="Search recent Posts",
    ),
    Operation(
        "tweetsFullarchiveSearch",
        "GET",
        "/2/tweets/search/all",
        search_all,
        (APP,),
        params=_common("all", counts=False),
        returns="tweet",
        rate_limit=RateLimit(app=300),
        tag="Tweets",
        summary="Search all Posts",
    ),
    Operation(
        "tweetCountsRecentSearch",
        "GET",
        "/2/tweets/counts/recent",
        counts_recent,
        (APP, OAUTH2),
        params=_common("recent", counts=True),
        rate_limit=RateLimit(app=300, user=300),
        tag="Tweets",
        summary="Get count of recent Posts",
    ),
    Operation(
        "tweetCountsFullArchiveSearch",
        "GET",
        "/2/tweets/counts/all",
        counts_all,
        (APP,),
        params=_common("all", counts=True),
        rate_limit=RateLimit(app=300),
        tag="Tweets",
        summary="Get count of all Posts",
    ),
)
