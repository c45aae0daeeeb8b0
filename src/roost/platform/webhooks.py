"""Webhook management (`/2/webhooks`) and account-activity subscriptions (`/2/account_activity/...`)."""

from __future__ import annotations

from typing import Any, ClassVar

from roost.core.params import EnumSet, Kind, Param, Snowflake
from roost.domain.webhooks import WEBHOOK_FIELDS
from roost.platform.operations import APP, OAUTH1, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call

WEBHOOK_ID = Param("webhook_id", Snowflake(), required=True, in_path=True)
WEBHOOK_LIMIT = RateLimit(app=450, per_app=True)
# Creating, validating and deleting a webhook also take OAuth 1.0a user context (the official
# document's `UserToken`); xdk signs them so when the client holds user credentials alone.
APP_OR_OAUTH1 = (APP, OAUTH1)
# The official document's OAuth 2.0 scopes for subscribing and checking a subscription.
SUBSCRIPTION_SCOPES = ("tweet.read", "users.read", "dm.read", "dm.write")


# ---- webhooks -----------------------------------------------------------------------------------


async def create_webhook(call: Call) -> dict[str, Any]:
    return {"data": await call.domain.webhooks.create(call.principal, call.body)}


async def list_webhooks(call: Call) -> dict[str, Any]:
    data = await call.domain.webhooks.listing(call.principal.app_id, call.params.get("webhook_config.fields"))
    # Unlike other endpoints, no webhooks is an empty array rather than an omitted `data`.
    return {"data": data, "meta": {"result_count": len(data)}}


async def delete_webhook(call: Call) -> dict[str, Any]:
    await call.domain.webhooks.delete(call.principal.app_id, call.params["webhook_id"])
    return {"data": {"deleted": True}}


async def validate_webhook(call: Call) -> dict[str, Any]:
    valid = await call.domain.webhooks.revalidate(call.principal.app_id, call.params["webhook_id"])
    return {"data": {"valid": valid}}


class ReplayDate(Kind):
    """A `yyyymmddhhmm` UTC date; checked by the replay rule itself (its own QueryParamInvalid reason)."""

    openapi: ClassVar[dict[str, Any]] = {"type": "string", "pattern": "^[0-9]{12}$"}


async def create_replay(call: Call) -> dict[str, Any]:
    # 2.167 and the docs wrap the job in `data` (2.159 puts it at the top level).
    return {"data": await call.domain.webhooks.replay_from_body(call.principal.app_id, call.body)}


async def create_replay_deprecated(call: Call) -> dict[str, Any]:
    """The account-activity replay (2.159 only; deprecated for `/2/webhooks/replay`): query dates with
    `to_date` exclusive, and the job at the top level as 2.159's ReplayJobCreateResponse has it."""
    return await call.domain.webhooks.replay(
        call.principal.app_id,
        call.params["webhook_id"],
        call.params["from_date"],
        call.params["to_date"],
        to_inclusive=False,
    )


# ---- account activity ---------------------------------------------------------------------------


async def subscribe(call: Call) -> dict[str, Any]:
    await call.domain.webhooks.subscribe(call.principal, call.params["webhook_id"])
    return {"data": {"subscribed": True}}


async def subscription_state(call: Call) -> dict[str, Any]:
    subscribed = await call.domain.webhooks.is_subscribed(call.principal, call.params["webhook_id"])
    return {"data": {"subscribed": subscribed}}


async def subscription_list(call: Call) -> dict[str, Any]:
    data = await call.domain.webhooks.subscription_list(call.principal.app_id, call.params["webhook_id"])
    return {"data": data}


async def unsubscribe(call: Call) -> dict[str, Any]:
    await call.domain.webhooks.unsubscribe(
        call.principal.app_id, call.params["webhook_id"], call.params["user_id"]
    )
    return {"data": {"subscribed": False}}


async def subscription_count(call: Call) -> dict[str, Any]:
    return {"data": await call.domain.webhooks.count(call.principal.app_id, call.principal.package)}


# ---- declarations -------------------------------------------------------------------------------


def _webhook_op(
    operation_id: str,
    method: str,
    path: str,
    handler: Any,
    summary: str,
    auth: tuple[str, ...] = (APP,),
    **extra: Any,
) -> Operation:
    extra.setdefault("rate_limit", WEBHOOK_LIMIT)
    return Operation(
        operation_id,
        method,
        path,
        handler,
        auth,
        tag="Webhooks",
        summary=summary,
        **extra,
    )


def _activity_op(
    operation_id: str, method: str, path: str, handler: Any, summary: str, **extra: Any
) -> Operation:
    return Operation(
        operation_id,
        method,
        path,
        handler,
        tag="Account Activity",
        summary=summary,
        **extra,
    )


AAA = "/2/account_activity/webhooks/{webhook_id}/subscriptions"

OPERATIONS = (
    _webhook_op(
        "createWebhooks", "POST", "/2/webhooks", create_webhook, "Create webhook", APP_OR_OAUTH1, body=True
    ),
    _webhook_op(
        "getWebhooks",
        "GET",
        "/2/webhooks",
        list_webhooks,
        "Get webhook",
        params=(Param("webhook_config.fields", EnumSet(WEBHOOK_FIELDS)),),
    ),
    _webhook_op(
        "deleteWebhooks",
        "DELETE",
        "/2/webhooks/{webhook_id}",
        delete_webhook,
        "Delete webhook",
        APP_OR_OAUTH1,
        params=(WEBHOOK_ID,),
    ),
    _webhook_op(
        "validateWebhooks",
        "PUT",
        "/2/webhooks/{webhook_id}",
        validate_webhook,
        "Validate webhook",
        APP_OR_OAUTH1,
        params=(WEBHOOK_ID,),
    ),
    _webhook_op(
        "createWebhookReplayJob",
        "POST",
        "/2/webhooks/replay",
        create_replay,
        "Create replay job for webhook",
        body=True,
        rate_limit=RateLimit(app=100),
    ),
    _activity_op(
        "createAccountActivityReplayJob",
        "POST",
        "/2/account_activity/replay/webhooks/{webhook_id}/subscriptions/all",
        create_replay_deprecated,
        "Create replay job",
        auth=(APP,),
        params=(
            WEBHOOK_ID,
            Param("from_date", ReplayDate(), required=True),
            Param("to_date", ReplayDate(), required=True),
        ),
        rate_limit=RateLimit(app=100),
    ),
    _activity_op(
        "createAccountActivitySubscription",
        "POST",
        AAA + "/all",
        subscribe,
        "Create subscription",
        auth=USER_AUTH,
        scopes=SUBSCRIPTION_SCOPES,
        params=(WEBHOOK_ID,),
        body=True,
        rate_limit=RateLimit(user=500),
    ),
    _activity_op(
        "validateAccountActivitySubscription",
        "GET",
        AAA + "/all",
        subscription_state,
        "Validate subscription",
        auth=USER_AUTH,
        scopes=SUBSCRIPTION_SCOPES,
        params=(WEBHOOK_ID,),
        rate_limit=RateLimit(user=500),
    ),
    _activity_op(
        "getAccountActivitySubscriptions",
        "GET",
        AAA + "/all/list",
        subscription_list,
        "Get subscriptions",
        auth=(APP,),
        params=(WEBHOOK_ID,),
        rate_limit=RateLimit(app=50),
    ),
    _activity_op(
        "deleteAccountActivitySubscription",
        "DELETE",
        "/2/account_activity/webhooks/{webhook_id}/subscriptions/{user_id}/all",
        unsubscribe,
        "Delete subscription",
        auth=(APP,),
        params=(WEBHOOK_ID, Param("user_id", Snowflake(), required=True, in_path=True)),
        rate_limit=RateLimit(app=500),
    ),
    _activity_op(
        "getAccountActivitySubscriptionCount",
        "GET",
        "/2/account_activity/subscriptions/count",
        subscription_count,
        "Get subscription count",
        auth=(APP,),
        rate_limit=RateLimit(app=500),
    ),
)
