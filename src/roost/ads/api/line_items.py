"""Line item operations: list, get, create, update, delete."""

from __future__ import annotations

from typing import Any

from roost.ads import line_item_rules as rules
from roost.ads.call import AdsCall
from roost.ads.catalog.bidding import PLACEMENTS
from roost.ads.line_items import LineItems
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, EnumList, Ids, Int, Long, Text, TextList, Time
from roost.ads.params import Enum as EnumKind

LINE_ITEM_SORTS = ("created_at", "updated_at", "deleted", "name", "bid_amount_local_micro")
# Both spellings are accepted: ALL_ON_TWITTER and ALL_ON_SERVICE name the same placement.
PLACEMENT_ALIASES = tuple(
    (value.replace("TWITTER", "SERVICE"), value) for value in PLACEMENTS if "TWITTER" in value
)
WITH_DELETED = AdsParam("with_deleted", Bool(), default=False)
LINE_ITEM_ID = path_param("line_item_id")

_EDITABLE = (
    AdsParam("name", Text(max_length=255, min_length=1)),
    AdsParam("goal", EnumKind(rules.GOALS)),
    AdsParam("pay_by", EnumKind(rules.PAY_BY)),
    AdsParam("bid_strategy", EnumKind(rules.BID_STRATEGIES)),
    AdsParam("bid_amount_local_micro", Long(), nullable=True),
    AdsParam("daily_budget_amount_local_micro", Long(), nullable=True),
    AdsParam("total_budget_amount_local_micro", Long(), nullable=True),
    AdsParam("standard_delivery", Bool()),
    AdsParam("frequency_cap", Int(low=1), nullable=True),
    AdsParam("duration_in_days", Int(), nullable=True),
    AdsParam("start_time", Time(), nullable=True),
    AdsParam("end_time", Time(), nullable=True),
    AdsParam("advertiser_user_id", Long(low=1)),
    AdsParam("advertiser_domain", Text(max_length=255), nullable=True),
    AdsParam("categories", TextList(max_items=200), nullable=True),
    AdsParam("android_app_store_identifier", Text(max_length=255), nullable=True),
    AdsParam("ios_app_store_identifier", Text(max_length=64), nullable=True),
    AdsParam("audience_expansion", EnumKind(rules.AUDIENCE_EXPANSION), nullable=True),
)
CREATE_PARAMS = (
    ACCOUNT_ID,
    AdsParam("campaign_id", Text(max_length=64), required=True),
    AdsParam("objective", EnumKind(rules.OBJECTIVES), required=True),
    AdsParam("product_type", EnumKind(rules.PRODUCT_TYPES), required=True),
    AdsParam("placements", EnumList(PLACEMENTS, PLACEMENT_ALIASES), required=True),
    AdsParam("entity_status", EnumKind(("ACTIVE", "DRAFT", "PAUSED"))),
    AdsParam("primary_web_event_tag", Text(max_length=64)),
    *_EDITABLE,
)
# An update names its line item; batch items carry `line_item_id` in their params.
UPDATE_FIELDS = (AdsParam("entity_status", EnumKind(("ACTIVE", "PAUSED"))), *_EDITABLE)


def branded_echo(echo: dict[str, Any], line_items: LineItems) -> dict[str, Any]:
    """The echo shows placements in the brand's spelling, as the objects do."""
    if "placements" in echo:
        echo["placements"] = line_items.branded(echo["placements"])
    return echo


async def list_line_items(call: AdsCall) -> AdsResult:
    return await call.ads.line_items.page(call.account_id, call.params)


async def get_line_item(call: AdsCall) -> dict[str, Any]:
    return await call.ads.line_items.get(
        call.account_id, call.params["line_item_id"], with_deleted=bool(call.params.get("with_deleted"))
    )


async def create_line_item(call: AdsCall) -> dict[str, Any]:
    body = await call.ads.line_items.create(call.actor, call.params)
    branded_echo(call.echo, call.ads.line_items)
    return body


async def update_line_item(call: AdsCall) -> dict[str, Any]:
    return await call.ads.line_items.update(call.actor, call.params["line_item_id"], call.params)


async def delete_line_item(call: AdsCall) -> dict[str, Any]:
    return await call.ads.line_items.delete(call.actor, call.params["line_item_id"])


OPERATIONS = [
    AdsOperation(
        "listLineItems",
        "GET",
        "/accounts/{account_id}/line_items",
        list_line_items,
        params=(
            ACCOUNT_ID,
            AdsParam("campaign_ids", Ids()),
            AdsParam("funding_instrument_ids", Ids()),
            AdsParam("line_item_ids", Ids()),
            AdsParam("q", Text(max_length=255, min_length=1)),
            AdsParam("with_draft", Bool(), default=False),
            *list_params(sort=LINE_ITEM_SORTS),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getLineItem",
        "GET",
        "/accounts/{account_id}/line_items/{line_item_id}",
        get_line_item,
        params=(ACCOUNT_ID, LINE_ITEM_ID, WITH_DELETED),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "createLineItem",
        "POST",
        "/accounts/{account_id}/line_items",
        create_line_item,
        params=CREATE_PARAMS,
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "updateLineItem",
        "PUT",
        "/accounts/{account_id}/line_items/{line_item_id}",
        update_line_item,
        params=(ACCOUNT_ID, LINE_ITEM_ID, *UPDATE_FIELDS),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteLineItem",
        "DELETE",
        "/accounts/{account_id}/line_items/{line_item_id}",
        delete_line_item,
        params=(ACCOUNT_ID, LINE_ITEM_ID),
        category=WRITE,
        write=True,
    ),
]
