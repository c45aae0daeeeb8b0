"""Posts: lookup, create (with replies, quotes, media, polls, edits), delete, user timelines."""

from __future__ import annotations

from roost.core.params import CsvOf, EnumSet, Param, Snowflake
from roost.platform.operations import ANY_AUTH, USER_AUTH, DailyCap, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.platform.timelines import TIMELINE_PARAMS, page_objects, window

_NONE: tuple[()] = ()


def _columns(call: Call) -> tuple[str, ...] | None:
    return call.selection.columns if call.selection is not None else None


async def get_tweets(call: Call) -> Objects:
    viewer = call.principal.user_id
    found, problems = await call.domain.lookup.posts(viewer, call.params["ids"], "ids", _columns(call))
    return Objects(found, errors=problems)


async def get_tweet(call: Call) -> Objects:
    viewer = call.principal.user_id
    columns = call.selection.columns if call.selection is not None else None  # inline: the hot path
    row, problems = await call.domain.lookup.post(viewer, call.params["id"], "id", columns)
    return Objects(_NONE if row is None else (row,), True, None, problems)  # single


async def create_tweet(call: Call) -> Objects:
    assert call.principal.user_id is not None
    row = await call.domain.posts.create(call.principal.user_id, call.body, call.principal.package)
    return Objects([row], single=True)  # the default fields: id, text, edit_history_tweet_ids


async def delete_tweet(call: Call) -> dict:
    assert call.principal.user_id is not None
    await call.domain.posts.delete(call.principal.user_id, call.params["id"])
    return {"data": {"deleted": True}}


async def user_tweets(call: Call) -> Objects:
    exclude = call.params.get("exclude", frozenset())
    page = await call.domain.timelines.user_posts(
        call.principal.user_id, call.params["id"], window(call), exclude
    )
    return page_objects(page)


async def user_mentions(call: Call) -> Objects:
    page = await call.domain.timelines.mentions(call.principal.user_id, call.params["id"], window(call))
    return page_objects(page)


WRITE_SCOPES = ("tweet.read", "tweet.write", "users.read")
READ_SCOPES = ("tweet.read", "users.read")

OPERATIONS = (
    Operation(
        "findTweetsById",
        "GET",
        "/2/tweets",
        get_tweets,
        ANY_AUTH,
        READ_SCOPES,
        params=(Param("ids", CsvOf(Snowflake(), 100), required=True),),
        returns="tweet",
        rate_limit=RateLimit(app=3500, user=5000),
        tag="Tweets",
        summary="Post lookup by Post IDs",
    ),
    Operation(
        "findTweetById",
        "GET",
        "/2/tweets/{id}",
        get_tweet,
        ANY_AUTH,
        READ_SCOPES,
        params=(Param("id", Snowflake(), required=True, in_path=True),),
        returns="tweet",
        rate_limit=RateLimit(app=450, user=900),
        tag="Tweets",
        summary="Post lookup by Post ID",
    ),
    Operation(
        "createTweet",
        "POST",
        "/2/tweets",
        create_tweet,
        USER_AUTH,
        WRITE_SCOPES,
        write=True,
        body=True,
        returns="tweet",
        selectable=False,
        rate_limit=RateLimit(user=100),
        daily_cap=DailyCap(app=10_000, user=2_400),
        status=201,
        tag="Tweets",
        summary="Creation of a Post",
    ),
    Operation(
        "deleteTweetById",
        "DELETE",
        "/2/tweets/{id}",
        delete_tweet,
        USER_AUTH,
        WRITE_SCOPES,
        write=True,
        params=(Param("id", Snowflake(), required=True, in_path=True),),
        rate_limit=RateLimit(user=50),
        tag="Tweets",
        summary="Post delete by Post ID",
    ),
    Operation(
        "usersIdTweets",
        "GET",
        "/2/users/{id}/tweets",
        user_tweets,
        ANY_AUTH,
        READ_SCOPES,
        params=(
            Param("id", Snowflake(), required=True, in_path=True),
            *TIMELINE_PARAMS,
            Param("exclude", EnumSet(("replies", "retweets"))),
        ),
        returns="tweet",
        rate_limit=RateLimit(app=10_000, user=900),
        tag="Tweets",
        summary="User Posts timeline by User ID",
    ),
    Operation(
        "usersIdMentions",
        "GET",
        "/2/users/{id}/mentions",
        user_mentions,
        ANY_AUTH,
        READ_SCOPES,
        params=(Param("id", Snowflake(), required=True, in_path=True), *TIMELINE_PARAMS),
        returns="tweet",
        rate_limit=RateLimit(app=450, user=300),
        tag="Tweets",
        summary="User mention timeline by User ID",
    ),
)
