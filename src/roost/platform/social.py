"""Likes, follows, blocks and mutes: the v2 write and read operations."""

from __future__ import annotations

from typing import Any, ClassVar

from roost.core import pagination
from roost.core.errors import (
    not_authorized_for_resource_item,
    resource_not_found_item,
)
from roost.core.params import IntRange, Param, Snowflake, Token
from roost.core.records import Row
from roost.domain.lookup import visible_post
from roost.domain.social import SocialService, body_id, require_self
from roost.platform.operations import ANY_AUTH, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.storage.social import SocialStore

# Page tokens carry an offset into the list, lifted so every token is at least the 16 characters
# the platform's tokens (and the official document) have.
_OFFSET_BASE = 1 << 50


class PageToken(Token):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "minLength": 16}


def _me(call: Call) -> int:
    assert call.principal.user_id is not None  # USER_AUTH operations always have a user
    return call.principal.user_id


# ---- writes -------------------------------------------------------------------------------------


async def like(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await SocialService(call.services).like(_me(call), body_id(call.body, "tweet_id"))
    return {"data": {"liked": True}}


async def unlike(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await SocialService(call.services).unlike(_me(call), call.params["tweet_id"])
    return {"data": {"liked": False}}


async def follow(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    state = await SocialService(call.services).follow(_me(call), body_id(call.body, "target_user_id"))
    return {"data": state}


async def unfollow(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["source_user_id"])
    await SocialService(call.services).unfollow(_me(call), call.params["target_user_id"])
    return {"data": {"following": False}}


async def mute(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["id"])
    await SocialService(call.services).mute(_me(call), body_id(call.body, "target_user_id"))
    return {"data": {"muting": True}}


async def unmute(call: Call) -> dict[str, Any]:
    require_self(call.principal.user_id, call.params["source_user_id"])
    await SocialService(call.services).unmute(_me(call), call.params["target_user_id"])
    return {"data": {"muting": False}}


# ---- reads --------------------------------------------------------------------------------------


def _offset(call: Call, scope: str) -> int:
    token = call.params.get("pagination_token")
    return 0 if token is None else token.offset(scope, _OFFSET_BASE)


def _page(rows: list[Row], shown: list[Row], offset: int, limit: int, scope: str) -> Objects:
    """Meta for an offset page: next_token when more rows follow, previous_token after the first page."""
    meta: dict[str, Any] = {"result_count": len(shown)}
    if len(rows) > limit:
        meta["next_token"] = pagination.encode(_OFFSET_BASE + offset + limit, pagination.NEXT, scope)
    if offset > 0:
        back = max(0, offset - limit)
        meta["previous_token"] = pagination.encode(_OFFSET_BASE + back, pagination.PREVIOUS, scope)
    return Objects(shown, meta=meta)


async def _user_list(call: Call, listing: str, owner_id: int) -> Objects:
    limit: int = call.params["max_results"]
    scope = f"{listing}:{owner_id}"
    offset = _offset(call, scope)
    rows = await SocialStore(call.services.db).users_page(listing, owner_id, limit + 1, offset)
    return _page(rows, rows[:limit], offset, limit, scope)


async def _protected_owner(call: Call, user_id: int) -> Objects | None:
    """The partial error for a missing user, or a protected one the caller does not follow."""
    if await call.services.users.get(user_id) is None:
        return Objects([], errors=[resource_not_found_item("user", "id", str(user_id))])
    if await call.domain.lookup.hidden_authors(call.principal.user_id, [user_id]):
        return Objects([], errors=[not_authorized_for_resource_item("user", "id", str(user_id), "data")])
    return None


async def following(call: Call) -> Objects:
    user_id: int = call.params["id"]
    return await _protected_owner(call, user_id) or await _user_list(call, "following", user_id)


async def followers(call: Call) -> Objects:
    user_id: int = call.params["id"]
    return await _protected_owner(call, user_id) or await _user_list(call, "followers", user_id)


async def blocking(call: Call) -> Objects:
    require_self(call.principal.user_id, call.params["id"])
    return await _user_list(call, "blocking", call.params["id"])


async def muting(call: Call) -> Objects:
    require_self(call.principal.user_id, call.params["id"])
    return await _user_list(call, "muting", call.params["id"])


async def liking_users(call: Call) -> Objects:
    post_id: int = call.params["id"]
    post = await call.services.posts.get(post_id)
    if post is None or not visible_post(post):
        return Objects([], errors=[resource_not_found_item("tweet", "id", str(post_id))])
    if await call.domain.lookup.hidden_authors(call.principal.user_id, [post["author_id"]]):
        return Objects([], errors=[not_authorized_for_resource_item("tweet", "id", str(post_id), "data")])
    return await _user_list(call, "liking_users", post_id)


async def liked_tweets(call: Call) -> Objects:
    user_id: int = call.params["id"]
    problem = await _protected_owner(call, user_id)
    if problem is not None:
        return problem
    limit: int = call.params["max_results"]
    scope = f"liked_tweets:{user_id}"
    offset = _offset(call, scope)
    rows = await SocialStore(call.services.db).liked_posts(user_id, limit + 1, offset)
    page = rows[:limit]
    # Posts of protected accounts the caller cannot see are left out (the page may come up short).
    hidden = await call.domain.lookup.hidden_authors(
        call.principal.user_id, (row["author_id"] for row in page)
    )
    return _page(rows, [row for row in page if row["author_id"] not in hidden], offset, limit, scope)


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
    )


OPERATIONS: tuple[Operation, ...] = (
    _write("likePost", "POST", "/2/users/{id}/likes", like, "like.write", (USER_ID,), "Likes", "Like Post"),
    _write(
        "unlikePost",
        "DELETE",
        "/2/users/{id}/likes/{tweet_id}",
        unlike,
        "like.write",
        (USER_ID, Param("tweet_id", Snowflake(), required=True, in_path=True)),
        "Likes",
        "Unlike Post",
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
