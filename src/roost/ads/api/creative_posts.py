"""Draft posts, scheduled posts, previews and the posts of an ads account (issue 23)."""

from __future__ import annotations

from typing import Any

from roost.ads.call import AdsCall, AdsHandler
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Int, Long, LongList, Text, TextList, Time
from roost.ads.params import Enum as EnumKind
from roost.ads.planned_posts import DRAFT, SCHEDULED

TWEET_TYPES = ("DRAFT", "PUBLISHED", "SCHEDULED")
PAGE = (AdsParam("count", Int(1, 200), default=100), AdsParam("cursor", Text(max_length=512)))
# Shared by drafts, scheduled posts and POST tweet; on PUT an empty card_uri or media_keys unsets it.
CREATIVE = (
    AdsParam("text", Text(max_length=25_000)),
    AdsParam("card_uri", Text(max_length=64), nullable=True),
    AdsParam("media_keys", TextList(max_items=4), nullable=True),
    AdsParam("nullcast", Bool()),
    AdsParam("name", Text(max_length=80)),
)
AS_USER = AdsParam("as_user_id", Long(low=1), required=True)
COLLECTIONS = {DRAFT: "draft_tweets", SCHEDULED: "scheduled_tweets"}


def _lister(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> AdsResult:
        return await call.ads.planned_posts.page(kind, call.account_id, call.params)

    return handler


def _getter(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        return await call.ads.planned_posts.get(kind, call.account_id, call.params[f"{kind}_id"])

    return handler


def _creator(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        return await call.ads.planned_posts.create(kind, call.actor, call.params)

    return handler


def _updater(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        return await call.ads.planned_posts.update(kind, call.actor, call.params[f"{kind}_id"], call.params)

    return handler


def _deleter(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        return await call.ads.planned_posts.delete(kind, call.actor, call.params[f"{kind}_id"])

    return handler


async def preview_draft(call: AdsCall) -> AdsResult:
    message = await call.ads.planned_posts.preview_message(
        call.account_id, call.params["draft_tweet_id"], call.user_id
    )
    return AdsResult(None, extra={"message": message}, without_data=True)


async def tweet_previews(call: AdsCall) -> AdsResult:
    return await call.ads.ads_posts.previews(
        call.account_id, call.params["tweet_ids"], call.params["tweet_type"]
    )


async def list_tweets(call: AdsCall) -> AdsResult:
    return await call.ads.ads_posts.tweets(call.account_id, call.params)


async def create_tweet(call: AdsCall) -> dict[str, Any]:
    return await call.ads.ads_posts.tweet(call.actor, call.params)


def _crud(kind: str, name: str) -> list[AdsOperation]:
    base = f"/accounts/{{account_id}}/{COLLECTIONS[kind]}"
    ident = path_param(f"{kind}_id")
    scheduled = kind == SCHEDULED
    create_extra = (AdsParam("scheduled_at", Time(), required=True),) if scheduled else ()
    update_extra = (AdsParam("scheduled_at", Time()),) if scheduled else ()
    return [
        AdsOperation(
            f"list{name}s",
            "GET",
            base,
            _lister(kind),
            params=(ACCOUNT_ID, AdsParam("user_id", Long(low=1)), *PAGE),
            category=ENTITY_READ,
            paginated=True,
        ),
        AdsOperation(
            f"get{name}",
            "GET",
            f"{base}/{{{kind}_id}}",
            _getter(kind),
            params=(ACCOUNT_ID, ident),
            category=ENTITY_READ,
        ),
        AdsOperation(
            f"create{name}",
            "POST",
            base,
            _creator(kind),
            params=(ACCOUNT_ID, AS_USER, *CREATIVE, *create_extra),
            category=WRITE,
            write=True,
        ),
        AdsOperation(
            f"update{name}",
            "PUT",
            f"{base}/{{{kind}_id}}",
            _updater(kind),
            params=(ACCOUNT_ID, ident, *CREATIVE, *update_extra),
            category=WRITE,
            write=True,
        ),
        AdsOperation(
            f"delete{name}",
            "DELETE",
            f"{base}/{{{kind}_id}}",
            _deleter(kind),
            params=(ACCOUNT_ID, ident),
            category=WRITE,
            write=True,
        ),
    ]


OPERATIONS = [
    *_crud(DRAFT, "DraftTweet"),
    *_crud(SCHEDULED, "ScheduledTweet"),
    AdsOperation(
        "previewDraftTweet",
        "POST",
        "/accounts/{account_id}/draft_tweets/preview/{draft_tweet_id}",
        preview_draft,
        params=(ACCOUNT_ID, path_param("draft_tweet_id")),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "getTweetPreviews",
        "GET",
        "/accounts/{account_id}/tweet_previews",
        tweet_previews,
        params=(
            ACCOUNT_ID,
            AdsParam("tweet_ids", LongList(), required=True),
            AdsParam("tweet_type", EnumKind(TWEET_TYPES), required=True),
        ),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "listAccountTweets",
        "GET",
        "/accounts/{account_id}/tweets",
        list_tweets,
        params=(
            ACCOUNT_ID,
            AdsParam("tweet_type", EnumKind(TWEET_TYPES), required=True),
            AdsParam("count", Int(1, 1000), default=200),
            AdsParam("cursor", Text(max_length=512)),
            AdsParam("include_mentions_and_replies", Bool(), default=False),
            AdsParam("name", Text(max_length=80)),
            AdsParam("timeline_type", EnumKind(("ALL", "NULLCAST", "ORGANIC")), default="NULLCAST"),
            AdsParam("trim_user", Bool(), default=False),
            AdsParam("tweet_ids", LongList()),
            AdsParam("user_id", Long(low=1)),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "createAccountTweet",
        "POST",
        "/accounts/{account_id}/tweet",
        create_tweet,
        params=(
            ACCOUNT_ID,
            AS_USER,
            *CREATIVE,
            AdsParam("conversation_settings", EnumKind(("EVERYONE", "FOLLOWING", "MENTIONED_USERS"))),
            AdsParam("trim_user", Bool(), default=False),
            AdsParam("tweet_mode", EnumKind(("compat", "extended"))),
            AdsParam("video_cta", EnumKind(("VISIT_SITE", "WATCH_NOW"))),
            AdsParam("video_cta_value", Text(max_length=2048)),
            AdsParam("video_description", Text(max_length=200)),
            AdsParam("video_title", Text(max_length=70)),
        ),
        category=WRITE,
        write=True,
    ),
]
