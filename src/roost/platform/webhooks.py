"""Webhook management (`/2/webhooks`) and account-activity subscriptions (`/2/account_activity/...`)."""

from __future__ import annotations

from typing import Any

from roost.core.operations import APP, USER_AUTH, Operation, RateLimit
from roost.core.params import EnumSet, Param, Snowflake
from roost.core.pipeline import Call
from roost.domain.webhooks import WEBHOOK_FIELDS, WebhookService

WEBHOOK_ID = Param("webhook_id", Snowflake(), required=True, in_path=True)
WEBHOOK_LIMIT = RateLimit(app=450)
# The official document's OAuth 2.0 scopes for subscribing and checking a subscription.
SUBSCRIPTION_SCOPES = ("tweet.read", "users.read", "dm.read", "dm.write")


# ---- webhooks -----------------------------------------------------------------------------------


async def create_webhook(call: Call) -> dict[str, Any]:
    return {"data": await WebhookService(call.services).create(call.principal, call.body)}


async def list_webhooks(call: Call) -> dict[str, Any]:
    data = await WebhookService(call.services).listing(
        call.principal.app_id, call.params.get("webhook_config.fields")
    )
    # Unlike other endpoints, no webhooks is an empty array rather than an omitted `data`.
    return {"data": data, "meta": {"result_count": len(data)}}


async def delete_webhook(call: Call) -> dict[str, Any]:
    await WebhookService(call.services).delete(call.principal.app_id, call.params["webhook_id"])
    return {"data": {"deleted": True}}


async def validate_webhook(call: Call) -> dict[str, Any]:
    valid = await WebhookService(call.services).revalidate(call.principal.app_id, call.params["webhook_id"])
    return {"data": {"valid": valid}}


# ---- account activity ---------------------------------------------------------------------------


async def subscribe(call: Call) -> dict[str, Any]:
    await WebhookService(call.services).subscribe(call.principal, call.params["webhook_id"])
    return {"data": {"subscribed": True}}


async def subscription_state(call: Call) -> dict[str, Any]:
    subscribed = await WebhookService(call.services).is_subscribed(call.principal, call.params["webhook_id"])
    return {"data": {"subscribed": subscribed}}


async def subscription_list(call: Call) -> dict[str, Any]:
    data = await WebhookService(call.services).subscription_list(
        call.principal.app_id, call.params["webhook_id"]
    )
    return {"data": data}


async def unsubscribe(call: Call) -> dict[str, Any]:
    await WebhookService(call.services).unsubscribe(
        call.principal.app_id, call.params["webhook_id"], call.params["user_id"]
    )
    return {"data": {"subscribed": False}}


async def subscription_count(call: Call) -> dict[str, Any]:
    return {"data": await WebhookService(call.services).count(call.principal.app_id)}


# ---- declarations -------------------------------------------------------------------------------


def _webhook_op(
    operation_id: str, method: str, path: str, handler: Any, summary: str, **extra: Any
) -> Operation:
    return Operation(
        operation_id,
        method,
        path,
        handler,
        (APP,),
        rate_limit=WEBHOOK_LIMIT,
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
    _webhook_op("createWebhooks", "POST", "/2/webhooks", create_webhook, "Create webhook", body=True),
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
        params=(WEBHOOK_ID,),
    ),
    _webhook_op(
        "validateWebhooks",
        "PUT",
        "/2/webhooks/{webhook_id}",
        validate_webhook,
        "Validate webhook",
        params=(WEBHOOK_ID,),
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
