"""Articles: a draft, and its publication as a post (user context)."""

from __future__ import annotations

from typing import Any

from roost.core.params import Param, Snowflake
from roost.platform.operations import USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call


def _author(call: Call) -> int:
    assert call.principal.user_id is not None
    return call.principal.user_id


async def create_draft(call: Call) -> dict[str, Any]:
    return {"data": await call.domain.articles.draft(_author(call), call.body)}


async def publish(call: Call) -> dict[str, Any]:
    return {"data": await call.domain.articles.publish(_author(call), call.params["article_id"])}


# No published figures: the post creation's 100 per 15 minutes per user.
ARTICLE_LIMIT = RateLimit(user=100)

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "articleCreateDraft",
        "POST",
        "/2/articles/draft",
        create_draft,
        USER_AUTH,
        ("tweet.write",),
        write=True,
        body=True,
        rate_limit=ARTICLE_LIMIT,
        status=201,
        tag="Articles",
        summary="Create an Article draft",
    ),
    Operation(
        "articlePublish",
        "POST",
        "/2/articles/{article_id}/publish",
        publish,
        USER_AUTH,
        ("tweet.write",),
        write=True,
        params=(Param("article_id", Snowflake(), required=True, in_path=True),),
        rate_limit=ARTICLE_LIMIT,
        tag="Articles",
        summary="Publish an Article",
    ),
)
