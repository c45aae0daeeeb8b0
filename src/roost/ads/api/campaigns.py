"""Campaign operations: list, get, create, update, delete."""

from __future__ import annotations

from typing import Any

from roost.ads import campaigns, entities
from roost.ads.api.lookup import requested
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Long, Text
from roost.ads.params import Enum as EnumKind
from roost.storage.ads import EntityQuery

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
    params = call.params
    query = EntityQuery(
        "campaign",
        call.account_id,
        ids=params.get("campaign_ids"),
        funding_instrument_ids=params.get("funding_instrument_ids"),
        name_prefix=params.get("q"),
        with_draft=bool(params.get("with_draft")),
    )
    page = await entities.list_page(call.services, query, params)
    page.data = await campaigns.presented(call.services, call.account_id, page.data)
    return page


async def get_campaign(call: AdsCall) -> dict[str, Any]:
    row = await requested(call, "campaign", "campaign_id")
    return (await campaigns.presented(call.services, call.account_id, [row["body"]]))[0]


async def create_campaign(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    async with call.services.db.transaction() as tx:
        body = await campaigns.create_campaign(
            call.services, tx, call.account, call.params, now_ms=call.now_ms, user_id=call.user_id
        )
    return campaigns.derive(body, has_line_items=False)


async def update_campaign(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    async with call.services.db.transaction() as tx:
        body = await campaigns.update_campaign(
            call.services,
            tx,
            call.account,
            call.params["campaign_id"],
            call.params,
            now_ms=call.now_ms,
            user_id=call.user_id,
        )
        return (await campaigns.presented(call.services, call.account_id, [body], tx))[0]


async def delete_campaign(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    async with call.services.db.transaction() as tx:
        body = await campaigns.delete_campaign(
            call.services,
            tx,
            call.account,
            call.params["campaign_id"],
            now_ms=call.now_ms,
            user_id=call.user_id,
        )
    return campaigns.derive(body, has_line_items=False)


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
