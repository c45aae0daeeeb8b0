"""Line item lifecycle: creation, update and soft delete with every rule of the platform, the caps
per campaign and per account, the advertiser user and the PLATFORM criteria app ids imply. Used by
the single-item endpoints and by batch alike; none of this knows HTTP."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from roost.ads import entities, errors
from roost.ads import line_item_rules as rules
from roost.ads.campaigns import COUNTED_STATUSES, account_cap, check_budget_pair
from roost.ads.catalog.bidding import brand_placements
from roost.ads.operations import ADVERTISER_USER_ID
from roost.ads.params import format_time, parse_time
from roost.storage.ads import EntityQuery
from roost.storage.db import Executor, Row

if TYPE_CHECKING:
    from roost.services import Services

PER_CAMPAIGN = 100
DEFAULT_ACTIVE_LINE_ITEMS = 256
MAX_ACTIVE_LINE_ITEMS = 8_000
# Fields a request may set; campaign, objective, product type and placements only on create.
CREATE_ONLY = ("campaign_id", "objective", "product_type", "placements", "primary_web_event_tag")
EDITABLE = (
    "name",
    "goal",
    "pay_by",
    "bid_strategy",
    "bid_amount_local_micro",
    "daily_budget_amount_local_micro",
    "total_budget_amount_local_micro",
    "standard_delivery",
    "frequency_cap",
    "duration_in_days",
    "start_time",
    "end_time",
    "entity_status",
    "advertiser_user_id",
    "advertiser_domain",
    "categories",
    "android_app_store_identifier",
    "ios_app_store_identifier",
    "audience_expansion",
)
_BUDGETS = ("daily_budget_amount_local_micro", "total_budget_amount_local_micro", "standard_delivery")
PLATFORM_VALUES = {"ios_app_store_identifier": ("0", "iOS"), "android_app_store_identifier": ("1", "Android")}


def _blank() -> dict[str, Any]:
    """Every attribute of a line item, in the order the platform writes them."""
    return {
        "campaign_id": None,
        "funding_instrument_id": None,
        "name": None,
        "objective": None,
        "product_type": None,
        "placements": [],
        "goal": None,
        "pay_by": None,
        "bid_strategy": None,
        "bid_amount_local_micro": None,
        "target_cpa_local_micro": None,
        "daily_budget_amount_local_micro": None,
        "total_budget_amount_local_micro": None,
        "standard_delivery": None,
        "frequency_cap": None,
        "duration_in_days": None,
        "start_time": None,
        "end_time": None,
        "entity_status": "ACTIVE",
        "advertiser_user_id": None,
        "advertiser_domain": None,
        "primary_web_event_tag": None,
        "categories": [],
        "android_app_store_identifier": None,
        "ios_app_store_identifier": None,
        "audience_expansion": None,
        "automatic_tweet_promotion": None,
        "creative_source": "MANUAL",
        "currency": None,
    }


def presented(body: dict[str, Any], brand: str | None) -> dict[str, Any]:
    """The API object: placements in the brand's spelling (stored in the real one)."""
    out = dict(body)
    out["placements"] = brand_placements(body.get("placements") or [], brand)
    return out


async def full_promotable_user(services: Services, account_id: str, reader: Executor | None) -> str | None:
    rows, _ = await services.ads.entities(EntityQuery("promotable_user", account_id), reader)
    for row in rows:
        if row["body"].get("promotable_user_type") == "FULL":
            return str(row["body"]["user_id"])
    return None


def _check_advertiser_user(account: Row, given: dict[str, Any]) -> None:
    if "advertiser_user_id" in given and ADVERTISER_USER_ID not in (account.get("allowlist") or []):
        raise errors.invalid_parameter("advertiser_user_id", "setting advertiser_user_id is not allowed")


def _with_given(state: dict[str, Any], given: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        if name not in given:
            continue
        value = given[name]
        if name in ("start_time", "end_time"):
            value = format_time(value)
        elif name == "advertiser_user_id" and value is not None:
            value = str(value)
        elif name == "categories" and value is None:
            value = []
        state[name] = value


def _check_rules(
    state: dict[str, Any], campaign: dict[str, Any], given: dict[str, Any], creating: bool
) -> None:
    """Every rule that looks only at the line item and its campaign, in the platform's order."""
    currency = state["currency"] or "USD"
    rules.check_placements(state)
    rules.check_goal_and_pay_by(state, pay_by_given="pay_by" in given)
    rules.check_bid(state, currency)
    rules.check_frequency(state)
    rules.check_advertiser_domain(state.get("advertiser_domain"))
    rules.check_publisher_network(state)
    rules.check_preroll(state)
    rules.check_apps(state)
    if creating:
        rules.check_web_event_tag(state)
    rules.check_times(parse_time(state.get("start_time") or ""), parse_time(state.get("end_time") or ""))
    if campaign.get("budget_optimization") != "LINE_ITEM":
        for name in _BUDGETS:
            if given.get(name) is not None:
                raise errors.invalid_parameter(
                    name,
                    f"{name} can only be set on line items of a campaign with LINE_ITEM budget_optimization",
                )
        return
    daily, total = state.get("daily_budget_amount_local_micro"), state.get("total_budget_amount_local_micro")
    check_budget_pair(currency, daily, total)
    campaign_total = campaign.get("total_budget_amount_local_micro")
    if total is not None and campaign_total is not None and total > campaign_total:
        raise errors.invalid_parameter(
            "total_budget_amount_local_micro",
            "total_budget_amount_local_micro must not exceed the campaign's total_budget_amount_local_micro",
        )


async def _check_active_cap(services: Services, tx: Executor, account: Row) -> None:
    cap = account_cap(account, "active_line_items", DEFAULT_ACTIVE_LINE_ITEMS, MAX_ACTIVE_LINE_ITEMS)
    active = await services.ads.count(
        EntityQuery("line_item", str(account["id"])), statuses=COUNTED_STATUSES, reader=tx
    )
    if active >= cap:
        raise errors.bad_request(
            "TOO_MANY_LINE_ITEMS",
            f"Account {account['id']} has reached the maximum of {cap} active line items",
        )


async def _add_platform_criteria(
    services: Services,
    tx: Executor,
    account_id: str,
    body: dict[str, Any],
    names: list[str],
    *,
    now_ms: int,
    user_id: int,
) -> None:
    """Setting an app store id targets that app's platform (iOS "0", Android "1"), once."""
    existing, _ = await services.ads.entities(
        EntityQuery("targeting_criterion", account_id, parent_ids=[body["id"]]), tx
    )
    present = {
        row["body"].get("targeting_value")
        for row in existing
        if row["body"].get("targeting_type") == "PLATFORM"
    }
    for name in names:
        value, label = PLATFORM_VALUES[name]
        if not body.get(name) or value in present:
            continue
        await entities.create(
            services,
            tx,
            "targeting_criterion",
            account_id,
            {
                "line_item_id": body["id"],
                "name": label,
                "targeting_type": "PLATFORM",
                "targeting_value": value,
                "operator_type": "EQ",
            },
            now_ms=now_ms,
            user_id=user_id,
            parent_id=body["id"],
        )


async def create_line_item(
    services: Services, tx: Executor, account: Row, params: dict[str, Any], *, now_ms: int, user_id: int
) -> dict[str, Any]:
    account_id = str(account["id"])
    campaign = (
        await entities.load(
            services, "campaign", account_id, params["campaign_id"], parameter="campaign_id", reader=tx
        )
    )["body"]
    _check_advertiser_user(account, params)
    state = _blank()
    state.update(
        campaign_id=campaign["id"],
        funding_instrument_id=campaign.get("funding_instrument_id"),
        currency=campaign.get("currency") or "USD",
    )
    _with_given(state, params, (*CREATE_ONLY, *EDITABLE))
    state["entity_status"] = params.get("entity_status") or "ACTIVE"
    if campaign.get("budget_optimization") == "LINE_ITEM" and state["standard_delivery"] is None:
        state["standard_delivery"] = True
    siblings, _ = await services.ads.entities(
        EntityQuery("line_item", account_id, parent_ids=[campaign["id"]]), tx
    )
    for sibling in siblings:
        for name in ("product_type", "objective"):
            if sibling["body"].get(name) != state[name]:
                raise errors.invalid_parameter(
                    name,
                    f"All line items in Campaign {campaign['id']} must have the same {name} "
                    f"({sibling['body'].get(name)})",
                )
    if len(siblings) >= PER_CAMPAIGN:
        raise errors.bad_request(
            "TOO_MANY_LINE_ITEMS",
            f"Campaign {campaign['id']} has reached the maximum of {PER_CAMPAIGN} line items",
        )
    rules.fill_defaults(state, params)
    _check_rules(state, campaign, params, creating=True)
    if state["entity_status"] in COUNTED_STATUSES:
        await _check_active_cap(services, tx, account)
    if state["advertiser_user_id"] is None:
        state["advertiser_user_id"] = await full_promotable_user(services, account_id, tx)
    body = await entities.create(
        services,
        tx,
        "line_item",
        account_id,
        state,
        now_ms=now_ms,
        user_id=user_id,
        parent_id=campaign["id"],
        funding_instrument_id=campaign.get("funding_instrument_id"),
    )
    await _add_platform_criteria(
        services, tx, account_id, body, list(PLATFORM_VALUES), now_ms=now_ms, user_id=user_id
    )
    return body


async def update_line_item(
    services: Services,
    tx: Executor,
    account: Row,
    line_item_id: str,
    params: dict[str, Any],
    *,
    now_ms: int,
    user_id: int,
) -> dict[str, Any]:
    account_id = str(account["id"])
    row = await entities.load(services, "line_item", account_id, line_item_id, reader=tx)
    before = row["body"]
    campaign_row = await services.ads.entity(before["campaign_id"], tx)
    campaign = campaign_row["body"] if campaign_row else {}
    _check_advertiser_user(account, params)
    if (
        "pay_by" in params
        and params["pay_by"] != before.get("pay_by")
        and before.get("objective") != "APP_INSTALLS"
    ):
        raise errors.invalid_parameter("pay_by", "pay_by can only be changed on APP_INSTALLS line items")
    state = dict(before)
    _with_given(state, params, EDITABLE)
    _check_rules(state, campaign, params, creating=False)
    if before.get("entity_status") not in COUNTED_STATUSES and state["entity_status"] in COUNTED_STATUSES:
        await _check_active_cap(services, tx, account)
    changes = {name: state[name] for name in state if state[name] != before.get(name)}
    body = await entities.update(services, tx, row, changes, now_ms=now_ms, user_id=user_id)
    added = [name for name in PLATFORM_VALUES if name in changes]
    await _add_platform_criteria(services, tx, account_id, body, added, now_ms=now_ms, user_id=user_id)
    return body


async def delete_line_item(
    services: Services, tx: Executor, account: Row, line_item_id: str, *, now_ms: int, user_id: int
) -> dict[str, Any]:
    """Soft delete; promoted products and targeting stay as they are (no cascade)."""
    row = await entities.load(services, "line_item", str(account["id"]), line_item_id, reader=tx)
    return await entities.delete(services, tx, row, now_ms=now_ms, user_id=user_id)
