"""Promoted tweets, promoted accounts and scheduled promoted tweets: list, get, create, delete."""

from __future__ import annotations

from typing import Any

from roost.ads.call import AdsCall, AdsHandler
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Long, LongList, Text
from roost.ads.promoted import ID_FILTERS, MAX_TWEETS

SORTS = ("created_at", "updated_at", "deleted")
# Promoted tweets and accounts also sort by `paused` (derived from entity_status, see entities).
PAUSABLE_SORTS = (*SORTS, "paused")
WITH_DELETED = AdsParam("with_deleted", Bool(), default=False)
LINE_ITEM_ID = AdsParam("line_item_id", Text(max_length=64), required=True)
COLLECTIONS = {
    "promoted_tweet": "promoted_tweets",
    "promoted_account": "promoted_accounts",
    "scheduled_promoted_tweet": "scheduled_promoted_tweets",
}


def _lister(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> AdsResult:
        return await call.ads.promoted.page(kind, call.account_id, call.params)

    return handler


def _getter(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        with_deleted = bool(call.params.get("with_deleted"))
        return await call.ads.promoted.get(
            kind, call.account_id, call.params[f"{kind}_id"], with_deleted=with_deleted
        )

    return handler


def _deleter(kind: str) -> AdsHandler:
    async def handler(call: AdsCall) -> dict[str, Any]:
        return await call.ads.promoted.delete(kind, call.actor, call.params[f"{kind}_id"])

    return handler


async def create_promoted_tweets(call: AdsCall) -> AdsResult:
    bodies = await call.ads.promoted.promote_tweets(
        call.actor, call.params["line_item_id"], call.params["tweet_ids"]
    )
    # The platform answers with the list of associations and their count.
    return AdsResult(bodies, total_count=len(bodies))


async def create_promoted_account(call: AdsCall) -> dict[str, Any]:
    return await call.ads.promoted.promote_account(
        call.actor, call.params["line_item_id"], call.params["user_id"]
    )


async def create_scheduled_promoted_tweet(call: AdsCall) -> dict[str, Any]:
    params = call.params
    return await call.ads.promoted.schedule_tweet(
        call.actor, params["line_item_id"], params["scheduled_tweet_id"]
    )


def _crud(
    kind: str, name: str, create: AdsHandler, create_params: tuple[AdsParam, ...]
) -> list[AdsOperation]:
    collection, id_filter = COLLECTIONS[kind], ID_FILTERS[kind]
    base = f"/accounts/{{account_id}}/{collection}"
    ident = path_param(f"{kind}_id")
    return [
        AdsOperation(
            f"list{name}s",
            "GET",
            base,
            _lister(kind),
            params=(
                ACCOUNT_ID,
                AdsParam("line_item_ids", Ids()),
                AdsParam(id_filter, Ids()),
                *list_params(sort=SORTS if kind == "scheduled_promoted_tweet" else PAUSABLE_SORTS),
            ),
            category=ENTITY_READ,
            paginated=True,
        ),
        AdsOperation(
            f"get{name}",
            "GET",
            f"{base}/{{{kind}_id}}",
            _getter(kind),
            params=(ACCOUNT_ID, ident, WITH_DELETED),
            category=ENTITY_READ,
        ),
        AdsOperation(
            f"create{name}",
            "POST",
            base,
            create,
            params=(ACCOUNT_ID, LINE_ITEM_ID, *create_params),
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
    *_crud(
        "promoted_tweet",
        "PromotedTweet",
        create_promoted_tweets,
        (AdsParam("tweet_ids", LongList(max_items=MAX_TWEETS), required=True),),
    ),
    *_crud(
        "promoted_account",
        "PromotedAccount",
        create_promoted_account,
        (AdsParam("user_id", Long(low=1), required=True),),
    ),
    *_crud(
        "scheduled_promoted_tweet",
        "ScheduledPromotedTweet",
        create_scheduled_promoted_tweet,
        # The scheduled post must be one of the account's (issue 23). The seed's `scheduled_at` is gone:
        # like any parameter the platform does not document here, it is ignored.
        (AdsParam("scheduled_tweet_id", Long(low=1), required=True),),
    ),
]
