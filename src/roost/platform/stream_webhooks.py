"""Filtered-stream webhooks (`/2/tweets/search/webhooks*`): link the app's filtered stream to one of
its webhooks, list the links, unlink. Deliveries are made by the dispatcher (`events/stream_hooks.py`).
"""

from __future__ import annotations

from typing import Any

from roost.domain.packages import WITH_STREAM_WEBHOOKS
from roost.platform.operations import APP, Operation, RateLimit
from roost.platform.pipeline import Call
from roost.platform.webhooks import WEBHOOK_ID

LINKS = "/2/tweets/search/webhooks"
LINK_LIMIT = RateLimit(app=450)


async def create_link(call: Call) -> dict[str, Any]:
    # The pipeline has validated the field and expansion parameters (the operation returns posts);
    # they are kept as sent, and each delivery is rendered with them.
    await call.domain.stream_links.link(call.principal.app_id, call.params["webhook_id"], call.raw.items())
    return {"data": {"provisioned": True}}


async def list_links(call: Call) -> dict[str, Any]:
    # SPEC 2.167's shape (a list under `data`); none is an empty list, as for GET /2/webhooks.
    return {"data": await call.domain.stream_links.listing(call.principal.app_id)}


async def delete_link(call: Call) -> dict[str, Any]:
    await call.domain.stream_links.unlink(call.principal.app_id, call.params["webhook_id"])
    return {"data": {"deleted": True}}


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "createWebhooksStreamLink",
        "POST",
        LINKS + "/{webhook_id}",
        create_link,
        (APP,),
        params=(WEBHOOK_ID,),
        returns="tweet",  # accepts tweet.fields / expansions / … like the stream itself
        rate_limit=LINK_LIMIT,
        tag="Webhooks",
        packages=WITH_STREAM_WEBHOOKS,  # the seed: filtered stream webhooks are enterprise
        summary="Create stream link",
    ),
    Operation(
        "getWebhooksStreamLinks",
        "GET",
        LINKS,
        list_links,
        (APP,),
        rate_limit=LINK_LIMIT,
        tag="Webhooks",
        packages=WITH_STREAM_WEBHOOKS,  # the seed: filtered stream webhooks are enterprise
        summary="Get stream links",
    ),
    Operation(
        "deleteWebhooksStreamLink",
        "DELETE",
        LINKS + "/{webhook_id}",
        delete_link,
        (APP,),
        params=(WEBHOOK_ID,),
        rate_limit=LINK_LIMIT,
        tag="Webhooks",
        packages=WITH_STREAM_WEBHOOKS,  # the seed: filtered stream webhooks are enterprise
        summary="Delete stream link",
    ),
)
