"""Campaign operations: list, get, create, update, delete."""

from __future__ import annotations

from typing import Any

from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Long, Text
from roost.ads.params import Enum as EnumKind

CAMPAIGN_SORTS = (
    "created_at",
    "updated_at",
    "deleted",
    "name",
    "daily_budget_amount_local_micro",
    "total_budget_amount_local_micro",
    "standard_delivery",
)
WITH_DELETED = AdsParam("with_deleted", Bool(), default=False)
_SHARED = (
    AdsParam("budget_optimization", EnumKind(("CAMPAIGN", "LINE_ITEM"))),
    AdsParam("standard_delivery", Bool()),
)
CREATE_PARAMS = (
    ACCOUNT_ID,
    AdsParam("funding_instrument_id", Text(max_length=64), required=True),
    AdsParam("name", Text(max_length=255, min_length=1), required=True),
    *_SHARED,
    AdsParam("daily_budget_amount_local_micro", Long()),
    AdsParam("total_budget_amount_local_micro", Long()),
    AdsParam("entity_status", EnumKind(("ACTIVE", "DRAFT", "PAUSED"))),
    AdsParam("purchase_order_number", Text(max_length=50)),
)
# An update names its campaign; batch items carry `campaign_id` in their params.
UPDATE_FIELDS = (
    AdsParam("name", Text(max_length=255, min_length=1)),
    *_SHARED,
    AdsParam("daily_budget_amount_local_micro", Long(), nullable=True),
    AdsParam("total_budget_amount_local_micro", Long(), nullable=True),
    AdsParam("entity_status", EnumKind(("ACTIVE", "PAUSED"))),
    AdsParam("purchase_order_number", Text(max_length=50), nullable=True),
)
CAMPAIGN_ID = path_param("campaign_id")


async def list_campaigns(call: AdsCall) -> AdsResult:
    return await call.ads.campaigns.page(call.account_id, call.params)


async def get_campaign(call: AdsCall) -> dict[str, Any]:
    return await call.ads.campaigns.get(
        call.account_id, call.params["campaign_id"], with_deleted=bool(call.params.get("with_deleted"))
    )


async def create_campaign(call: AdsCall) -> dict[str, Any]:
    return await call.ads.campaigns.create(call.actor, call.params)


async def update_campaign(call: AdsCall) -> dict[str, Any]:
    return await call.ads.campaigns.update(call.actor, call.params["campaign_id"], call.params)


async def delete_campaign(call: AdsCall) -> dict[str, Any]:
    return await call.ads.campaigns.delete(call.actor, call.params["campaign_id"])


OPERATIONS = [
    AdsOperation(
        "listCampaigns",
        "GET",
        "/accounts/{account_id}/campaigns",
        list_campaigns,
        params=(
            ACCOUNT_ID,
            AdsParam("campaign_ids", Ids()),
            AdsParam("funding_instrument_ids", Ids()),
            AdsParam("q", Text(max_length=255, min_length=1)),
            AdsParam("with_draft", Bool(), default=False),
            *list_params(sort=CAMPAIGN_SORTS),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getCampaign",
        "GET",
        "/accounts/{account_id}/campaigns/{campaign_id}",
        get_campaign,
        params=(ACCOUNT_ID, CAMPAIGN_ID, WITH_DELETED),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "createCampaign",
        "POST",
        "/accounts/{account_id}/campaigns",
        create_campaign,
        params=CREATE_PARAMS,
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "updateCampaign",
        "PUT",
        "/accounts/{account_id}/campaigns/{campaign_id}",
        update_campaign,
        params=(ACCOUNT_ID, CAMPAIGN_ID, *UPDATE_FIELDS),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteCampaign",
        "DELETE",
        "/accounts/{account_id}/campaigns/{campaign_id}",
        delete_campaign,
        params=(ACCOUNT_ID, CAMPAIGN_ID),
        category=WRITE,
        write=True,
    ),
]
