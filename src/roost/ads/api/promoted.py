"""Promoted tweets, promoted accounts and scheduled promoted tweets: list, get, create, delete."""

from __future__ import annotations

from typing import Any

from roost.ads import entities, errors, promoted
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Long, LongList, Text, Time
from roost.storage.ads import EntityQuery

SORTS = ("created_at", "updated_at", "deleted")
# Promoted tweets and accounts also sort by `paused` (derived from entity_status, see entities).
PAUSABLE_SORTS = (*SORTS, "paused")
WITH_DELETED = AdsParam("with_deleted", Bool(), default=False)
LINE_ITEM_ID = AdsParam("line_item_id", Text(max_length=64), required=True)

# kind -> (collection path, id filter name)
KINDS = {
    "promoted_tweet": ("promoted_tweets", "promoted_tweet_ids"),
    "promoted_account": ("promoted_accounts", "promoted_account_ids"),
    "scheduled_promoted_tweet": ("scheduled_promoted_tweets", "scheduled_promoted_tweet_ids"),
}


def _lister(kind: str) -> Any:
    async def handler(call: AdsCall) -> AdsResult:
        params = call.params
        wanted = params.get("line_item_ids")
        if kind == "promoted_account" and wanted:
            await promoted.check_promoted_account_filter(call.services, call.account_id, wanted)
        parents = await promoted.live_parents(
            call.services, call.account_id, wanted, bool(params.get("with_deleted"))
        )
        if parents is not None and not parents:
            return AdsResult([], paged=True, total_count=0 if params.get("with_total_count") else None)
        query = EntityQuery(kind, call.account_id, ids=params.get(KINDS[kind][1]), parent_ids=parents)
        page = await entities.list_page(call.services, query, params)
        page.data = [promoted.visible(body) for body in page.data]
        return page

    return handler


def _getter(kind: str) -> Any:
    async def handler(call: AdsCall) -> dict[str, Any]:
        with_deleted = bool(call.params.get("with_deleted"))
        row = await entities.load(
            call.services, kind, call.account_id, call.params[f"{kind}_id"], with_deleted=with_deleted
        )
        if not with_deleted:  # hidden with its deleted line item, as in lists
            parent = await call.services.ads.entity(row["parent_id"] or "")
            if parent is None or parent["deleted"]:
                raise errors.not_found(kind, row["id"], call.account_id)
        return promoted.visible(row["body"])

    return handler


def _deleter(kind: str) -> Any:
    async def handler(call: AdsCall) -> dict[str, Any]:
        ident = call.params[f"{kind}_id"]
        async with call.services.db.transaction() as tx:
            if kind == "scheduled_promoted_tweet":
                body = await promoted.unschedule_tweet(
                    call.services, tx, call.account_id, ident, now_ms=call.now_ms, user_id=call.user_id
                )
            else:
                row = await entities.load(call.services, kind, call.account_id, ident, reader=tx)
                body = await entities.delete(call.services, tx, row, now_ms=call.now_ms, user_id=call.user_id)
        return promoted.visible(body)

    return handler


async def create_promoted_tweets(call: AdsCall) -> AdsResult:
    async with call.services.db.transaction() as tx:
        bodies = await promoted.promote_tweets(
            call.services,
            tx,
            call.account_id,
            call.params["line_item_id"],
            call.params["tweet_ids"],
            now_ms=call.now_ms,
            user_id=call.user_id,
        )
    # The platform answers with the list of associations and their count.
    return AdsResult(bodies, total_count=len(bodies))


async def create_promoted_account(call: AdsCall) -> dict[str, Any]:
    async with call.services.db.transaction() as tx:
        return await promoted.promote_account(
            call.services,
            tx,
            call.account_id,
            call.params["line_item_id"],
            call.params["user_id"],
            now_ms=call.now_ms,
            user_id=call.user_id,
        )


async def create_scheduled_promoted_tweet(call: AdsCall) -> dict[str, Any]:
    async with call.services.db.transaction() as tx:
        body = await promoted.schedule_tweet(
            call.services,
            tx,
            call.account_id,
            call.params["line_item_id"],
            call.params["scheduled_tweet_id"],
            call.params.get("scheduled_at"),
            now_ms=call.now_ms,
            user_id=call.user_id,
        )
    return promoted.visible(body)


def _crud(kind: str, name: str, create: Any, create_params: tuple[AdsParam, ...]) -> list[AdsOperation]:
    collection, id_filter = KINDS[kind]
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
        (AdsParam("tweet_ids", LongList(max_items=promoted.MAX_TWEETS), required=True),),
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
        # `scheduled_at` (roost): when the scheduled post goes out, since roost holds no scheduled
        # posts; deleting the association is refused from then on. Default: a day after creation.
        (AdsParam("scheduled_tweet_id", Long(low=1), required=True), AdsParam("scheduled_at", Time())),
    ),
]
