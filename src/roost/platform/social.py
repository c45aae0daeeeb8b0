"""Likes, follows, blocks and mutes: the v2 write and read operations."""

from __future__ import annotations

from typing import Any, ClassVar

from roost.core.params import IntRange, Param, Snowflake, Token
from roost.domain.packages import EVERY_PACKAGE, WITH_LIKES_AND_FOLLOWS
from roost.domain.social import body_id, require_self
from roost.platform.operations import ANY_AUTH, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.platform.timelines import page_objects


class PageToken(Token):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "minLength": 16}


def _me(call: Call) -> int:
    assert call.principal.user_id is not None  # USER_AUTH operations always have a user
    return call.principal.user_id


# ---- writes -------------------------------------------------------------------------------------


async def like(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await call.domain.social.like(_me(call), body_id(call.body, "tweet_id"))
    return {"data": {"liked": True}}


async def unlike(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await call.domain.social.unlike(_me(call), call.params["tweet_id"])
    return {"data": {"liked": False}}


async def follow(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    state = await call.domain.social.follow(_me(call), body_id(call.body, "target_user_id"))
    return {"data": state}


async def unfollow(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["source_user_id"])
    await call.domain.social.unfollow(_me(call), call.params["target_user_id"])
    return {"data": {"following": False}}


async def mute(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await call.domain.social.mute(_me(call), body_id(call.body, "target_user_id"))
    return {"data": {"muting": True}}


async def unmute(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["source_user_id"])
    await call.domain.social.unmute(_me(call), call.params["target_user_id"])
    return {"data": {"muting": False}}


# ---- reads --------------------------------------------------------------------------------------


async def following(call: Call) -> Objects:
    params = call.params
    lists = call.domain.social_lists
    page = await lists.following(
        call.principal.user_id, params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def followers(call: Call) -> Objects:
    params = call.params
    lists = call.domain.social_lists
    page = await lists.followers(
        call.principal.user_id, params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def blocking(call: Call) -> Objects:
    params = call.params
    require_self(call.principal.user_id, params["id"])
    page = await call.domain.social_lists.blocking(
        params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def muting(call: Call) -> Objects:
    params = call.params
    require_self(call.principal.user_id, params["id"])
    page = await call.domain.social_lists.muting(
        params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def liking_users(call: Call) -> Objects:
    params = call.params
    page = await call.domain.social_lists.liking_users(
        call.principal.user_id, params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def liked_tweets(call: Call) -> Objects:
    params = call.params
    page = await call.domain.social_lists.liked_posts(
        call.principal.user_id, params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


# ---- the operation table ------------------------------------------------------------------------

WRITE_LIMIT = RateLimit(user=50)
USER_ID = Param("id", Snowflake(), required=True, in_path=True)
SOURCE_TARGET = (
    Param("source_user_id", Snowflake(), required=True, in_path=True),
    Param("target_user_id", Snowflake(), required=True, in_path=True),
)


def _list_params(low: int, high: int, token: Token) -> tuple[Param, ...]:
    return (USER_ID, Param("max_results", IntRange(low, high), default=100), Param("pagination_token", token))


def _write(
    operation_id: str,
    method: str,
    path: str,
    handler: Any,
    scope: str,
    params: tuple[Param, ...],
    tag: str,
    summary: str,
    packages: frozenset[str] = EVERY_PACKAGE,
) -> Operation:
    return Operation(
        operation_id,
        method,
        path,
        handler,
        USER_AUTH,
        (scope, "tweet.read", "users.read"),
        write=True,
        body=method == "POST",
        params=params,
        rate_limit=WRITE_LIMIT,
        tag=tag,
        summary=summary,
        packages=packages,
    )


OPERATIONS: tuple[Operation, ...] = (
    # Likes and follows: removed from the self-serve packages on 2026-04-20.
    _write(
        "likePost",
        "POST",
        "/2/users/{id}/likes",
        like,
        "like.write",
        (USER_ID,),
        "Likes",
        "Like Post",
        WITH_LIKES_AND_FOLLOWS,
    ),
    _write(
        "unlikePost",
        "DELETE",
        "/2/users/{id}/likes/{tweet_id}",
        unlike,
        "like.write",
        (USER_ID, Param("tweet_id", Snowflake(), required=True, in_path=True)),
        "Likes",
        "Unlike Post",
        WITH_LIKES_AND_FOLLOWS,
    ),
    _write(
        "followUser",
        "POST",
        "/2/users/{id}/following",
        follow,
        "follows.write",
        (USER_ID,),
        "Users",
        "Follow User",
        WITH_LIKES_AND_FOLLOWS,
    ),
    _write(
        "unfollowUser",
        "DELETE",
        "/2/users/{source_user_id}/following/{target_user_id}",
        unfollow,
        "follows.write",
        SOURCE_TARGET,
        "Users",
        "Unfollow User",
        WITH_LIKES_AND_FOLLOWS,
    ),
    _write("muteUser", "POST", "/2/users/{id}/muting", mute, "mute.write", (USER_ID,), "Users", "Mute User"),
    _write(
        "unmuteUser",
        "DELETE",
        "/2/users/{source_user_id}/muting/{target_user_id}",
        unmute,
        "mute.write",
        SOURCE_TARGET,
        "Mutes",
        "Unmute User",
    ),
    Operation(
        "getUsersLikedPosts",
        "GET",
        "/2/users/{id}/liked_tweets",
        liked_tweets,
        USER_AUTH,
        ("like.read", "tweet.read", "users.read"),
        params=_list_params(5, 100, Token()),
        returns="tweet",
        rate_limit=RateLimit(app=75, user=75),
        tag="Posts",
        summary="Get Users Liked Posts",
    ),
    Operation(
        "getPostsLikingUsers",
        "GET",
        "/2/tweets/{id}/liking_users",
        liking_users,
        USER_AUTH,
        ("like.read", "tweet.read", "users.read"),
        params=_list_params(1, 100, Token()),
        returns="user",
        rate_limit=RateLimit(app=75, user=75),
        tag="Likes",
        summary="Get Posts Liking Users",
    ),
    Operation(
        "getUsersFollowing",
        "GET",
        "/2/users/{id}/following",
        following,
        ANY_AUTH,
        ("follows.read", "tweet.read", "users.read"),
        params=_list_params(1, 1000, PageToken()),
        returns="user",
        rate_limit=RateLimit(app=300, user=300),
        tag="Users",
        summary="Get Users Following",
    ),
    Operation(
        "getUsersFollowers",
        "GET",
        "/2/users/{id}/followers",
        followers,
        ANY_AUTH,
        ("follows.read", "tweet.read", "users.read"),
        params=_list_params(1, 1000, PageToken()),
        returns="user",
        rate_limit=RateLimit(app=300, user=300),
        tag="Users",
        summary="Get Users Followers",
    ),
    Operation(
        "getUsersBlocking",
        "GET",
        "/2/users/{id}/blocking",
        blocking,
        USER_AUTH,
        ("block.read", "tweet.read", "users.read"),
        params=_list_params(1, 1000, PageToken()),
        returns="user",
        rate_limit=RateLimit(user=15),
        tag="Users",
        summary="Get Users Blocking",
    ),
    Operation(
        "getUsersMuting",
        "GET",
        "/2/users/{id}/muting",
        muting,
        USER_AUTH,
        ("mute.read", "tweet.read", "users.read"),
        params=_list_params(1, 1000, PageToken()),
        returns="user",
        rate_limit=RateLimit(user=15),
        tag="Users",
        summary="Get Users Muting",
    ),
)
