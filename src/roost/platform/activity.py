"""Activity events (XAA): subscriptions and the persistent activity stream (its selector:
`events/selectors.ActivitySelector`, on the connection class every stream shares)."""

from __future__ import annotations

from typing import Any

from roost.core.params import CsvOf, IntRange, Param, Snowflake, Timestamp, Token
from roost.platform.operations import ANY_AUTH, APP, Operation, RateLimit
from roost.platform.pipeline import Call, Stream
from roost.platform.stream import opening

SUBSCRIPTION_LIMIT = RateLimit(app=500, user=500)
STREAM_LIMIT = RateLimit(app=450)
SUBSCRIPTION_ID = Param("subscription_id", Snowflake(), required=True, in_path=True)
BACKFILL_MAX_MINUTES = 5


async def create_subscription(call: Call) -> dict[str, Any]:
    return {"data": await call.domain.activity.create(call.principal, call.body)}


async def list_subscriptions(call: Call) -> dict[str, Any]:
    params = call.params
    return await call.domain.activity.listing(
        call.principal.app_id, params.get("max_results", 100), params.get("pagination_token")
    )


async def update_subscription(call: Call) -> dict[str, Any]:
    data = await call.domain.activity.update(call.principal.app_id, call.params["subscription_id"], call.body)
    return {"data": data}


async def delete_subscription(call: Call) -> dict[str, Any]:
    total = await call.domain.activity.delete(call.principal.app_id, call.params["subscription_id"])
    return {"data": {"deleted": True}, "meta": {"total_subscriptions": total}}


async def delete_subscriptions(call: Call) -> dict[str, Any]:
    return await call.domain.activity.delete_many(call.principal.app_id, call.params["ids"])


async def stream(call: Call) -> Stream:
    return await call.domain.streams.activity(opening(call))


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "createActivitySubscription",
        "POST",
        "/2/activity/subscriptions",
        create_subscription,
        ANY_AUTH,
        body=True,
        rate_limit=SUBSCRIPTION_LIMIT,
        tag="Activity",
        summary="Create X activity subscription",
    ),
    Operation(
        "getActivitySubscriptions",
        "GET",
        "/2/activity/subscriptions",
        list_subscriptions,
        ANY_AUTH,
        ("tweet.read", "like.read"),  # as the official document lists them
        params=(
            Param("max_results", IntRange(1, 1000), default=100),
            Param("pagination_token", Token()),
        ),
        rate_limit=SUBSCRIPTION_LIMIT,
        tag="Activity",
        summary="Get X activity subscriptions",
    ),
    Operation(
        "deleteActivitySubscriptionsByIds",
        "DELETE",
        "/2/activity/subscriptions",
        delete_subscriptions,
        (APP,),
        params=(Param("ids", CsvOf(Snowflake(), max_items=100), required=True),),
        rate_limit=SUBSCRIPTION_LIMIT,
        tag="Activity",
        summary="Delete X activity subscriptions by IDs",
    ),
    Operation(
        "updateActivitySubscription",
        "PUT",
        "/2/activity/subscriptions/{subscription_id}",
        update_subscription,
        (APP,),
        params=(SUBSCRIPTION_ID,),
        body=True,
        rate_limit=SUBSCRIPTION_LIMIT,
        tag="Activity",
        summary="Update X activity subscription",
    ),
    Operation(
        "deleteActivitySubscription",
        "DELETE",
        "/2/activity/subscriptions/{subscription_id}",
        delete_subscription,
        (APP,),
        params=(SUBSCRIPTION_ID,),
        rate_limit=SUBSCRIPTION_LIMIT,
        tag="Activity",
        summary="Deletes X activity subscription",
    ),
    Operation(
        "activityStream",
        "GET",
        "/2/activity/stream",
        stream,
        (APP,),
        params=(
            Param("backfill_minutes", IntRange(0, BACKFILL_MAX_MINUTES)),
            Param("start_time", Timestamp()),
            Param("end_time", Timestamp()),
        ),
        rate_limit=STREAM_LIMIT,
        tag="Stream",
        summary="Activity Stream",
    ),
)
