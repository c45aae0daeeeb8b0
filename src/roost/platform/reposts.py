"""Reposts, quote posts, hidden replies and the home timeline: the v2 operations."""

from __future__ import annotations

from typing import Any

from roost.core.params import EnumSet, IntRange, Param, Snowflake, Timestamp, Token
from roost.domain.social import require_self
from roost.platform.operations import ANY_AUTH, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.platform.timelines import page_objects, window


def _me(call: Call) -> int:
    assert call.principal.user_id is not None  # USER_AUTH operations always have a user
    return call.principal.user_id


async def repost(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    repost_id = await call.domain.reposts.repost(_me(call), call.body)
    return {"data": {"retweeted": True, "rest_id": str(repost_id)}}


async def unrepost(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await call.domain.reposts.unrepost(_me(call), call.params["source_tweet_id"])
    return {"data": {"retweeted": False}}


async def hide_reply(call: Call) -> dict[str, Any]:
    hidden = await call.domain.reposts.hide_reply(_me(call), call.params["tweet_id"], call.body)
    return {"data": {"hidden": hidden}}


async def reposted_by(call: Call) -> Objects:
    params = call.params
    page = await call.domain.reposts.reposted_by(
        call.principal.user_id, params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def reposts(call: Call) -> Objects:
    params = call.params
    page = await call.domain.reposts.reposts(
        call.principal.user_id, params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def quote_posts(call: Call) -> Objects:
    params = call.params
    page = await call.domain.reposts.quotes(
        call.principal.user_id,
        params["id"],
        params["max_results"],
        params.get("pagination_token"),
        params.get("exclude", frozenset()),
    )
    return page_objects(page)


async def reposts_of_me(call: Call) -> Objects:
    params = call.params
    page = await call.domain.reposts.reposts_of_me(
        _me(call), params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def home_timeline(call: Call) -> Objects:
    params = call.params
    require_self(call.principal.user_id, params["id"])
    columns = call.selection.columns if call.selection is not None else None
    page = await call.domain.timelines.home(
        _me(call), window(call), params.get("exclude", frozenset()), columns
    )
    return page_objects(page)


# ---- the operation table ------------------------------------------------------------------------

WRITE_SCOPES = ("tweet.read", "tweet.write", "users.read")
READ_SCOPES = ("tweet.read", "users.read")
USER_ID = Param("id", Snowflake(), required=True, in_path=True)
POST_ID = Param("id", Snowflake(), required=True, in_path=True)
EXCLUDE = Param("exclude", EnumSet(("replies", "retweets")))


def _paged(low: int, high: int, default: int) -> tuple[Param, ...]:
    return (Param("max_results", IntRange(low, high), default=default), Param("pagination_token", Token()))


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "repostPost",
        "POST",
        "/2/users/{id}/retweets",
        repost,
        USER_AUTH,
        WRITE_SCOPES,
        write=True,
        body=True,
        params=(USER_ID,),
        rate_limit=RateLimit(user=50),
        tag="Posts",
        summary="Repost Post",
    ),
    Operation(
        "unrepostPost",
        "DELETE",
        "/2/users/{id}/retweets/{source_tweet_id}",
        unrepost,
        USER_AUTH,
        WRITE_SCOPES,
        write=True,
        params=(USER_ID, Param("source_tweet_id", Snowflake(), required=True, in_path=True)),
        rate_limit=RateLimit(user=50),
        tag="Posts",
        summary="Unrepost Post",
    ),
    Operation(
        "getPostsRepostedBy",
        "GET",
        "/2/tweets/{id}/retweeted_by",
        reposted_by,
        ANY_AUTH,
        READ_SCOPES,
        params=(POST_ID, *_paged(1, 100, 100)),
        returns="user",
        rate_limit=RateLimit(app=75, user=75),
        tag="Posts",
        summary="Get Reposted by",
    ),
    Operation(
        "getPostsReposts",
        "GET",
        "/2/tweets/{id}/retweets",
        reposts,
        ANY_AUTH,
        READ_SCOPES,
        params=(POST_ID, *_paged(1, 100, 100)),
        returns="tweet",
        rate_limit=RateLimit(app=75, user=75),
        tag="Posts",
        summary="Get Reposts",
    ),
    Operation(
        "getPostsQuotedPosts",
        "GET",
        "/2/tweets/{id}/quote_tweets",
        quote_posts,
        ANY_AUTH,
        READ_SCOPES,
        params=(POST_ID, *_paged(10, 100, 10), EXCLUDE),
        returns="tweet",
        rate_limit=RateLimit(app=75, user=75),
        tag="Posts",
        summary="Get Quoted Posts",
    ),
    Operation(
        "getUsersRepostsOfMe",
        "GET",
        "/2/users/reposts_of_me",
        reposts_of_me,
        USER_AUTH,
        ("timeline.read", "tweet.read"),
        params=_paged(1, 100, 100),
        returns="tweet",
        rate_limit=RateLimit(user=75),
        tag="Users",
        summary="Get Reposts of me",
    ),
    Operation(
        "hidePostsReply",
        "PUT",
        "/2/tweets/{tweet_id}/hidden",
        hide_reply,
        USER_AUTH,
        ("tweet.moderate.write", "tweet.read", "users.read"),
        write=True,
        body=True,
        params=(Param("tweet_id", Snowflake(), required=True, in_path=True),),
        rate_limit=RateLimit(user=50),
        tag="Posts",
        summary="Hide reply",
    ),
    Operation(
        "getUsersTimeline",
        "GET",
        "/2/users/{id}/timelines/reverse_chronological",
        home_timeline,
        USER_AUTH,
        READ_SCOPES,
        params=(
            USER_ID,
            Param("since_id", Snowflake()),
            Param("until_id", Snowflake()),
            # No default in the document; a call without one got up to 100 (CAS: 98 posts).
            Param("max_results", IntRange(1, 100), default=100),
            Param("pagination_token", Token()),
            Param("start_time", Timestamp()),
            Param("end_time", Timestamp()),
            EXCLUDE,
        ),
        returns="tweet",
        rate_limit=RateLimit(user=180),
        tag="Posts",
        summary="Get home timeline",
    ),
)
