"""Campaign rules: creation, update, soft delete, the active-campaign cap and the derived
servability fields. Used by the single-item endpoints and by batch alike; none of this knows HTTP."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from roost.ads import entities, errors
from roost.ads.catalog.bidding import bidding_rule
from roost.storage.ads import EntityQuery
from roost.storage.db import Executor, Row

if TYPE_CHECKING:
    from roost.services import Services

DEFAULT_ACTIVE_CAMPAIGNS = 200
MAX_ACTIVE_CAMPAIGNS = 8_000
# A paused campaign still counts against the active cap; drafts do not.
COUNTED_STATUSES = ("ACTIVE", "PAUSED")
# Funding instruments whose spend is bounded by the instrument itself: a campaign under them may
# go without a daily budget. Every other type (cards and credit lines) needs one.
DAILY_BUDGET_OPTIONAL = ("INSERTION_ORDER", "PARTNER_MANAGED")
FIELDS = (
    "name",
    "budget_optimization",
    "daily_budget_amount_local_micro",
    "total_budget_amount_local_micro",
    "standard_delivery",
    "entity_status",
    "purchase_order_number",
)


# ---- money -------------------------------------------------------------------------------------


def check_amount(currency: str, name: str, value: int | None) -> None:
    """Bids and budgets are positive multiples of the currency's minimum denomination."""
    if value is None:
        return
    if value <= 0:
        raise errors.invalid_parameter(name, f'Expected a positive amount, got "{value}" for {name}')
    rule = bidding_rule(currency)
    step = int(rule["minimum_denomination"]) if rule else 10_000
    if value % step:
        raise errors.bad_request(
            "INVALID_DENOMINATION",
            f"{name} must be a multiple of {step} (the minimum denomination for {currency})",
            name,
        )


def check_budget_pair(currency: str, daily: int | None, total: int | None) -> None:
    check_amount(currency, "daily_budget_amount_local_micro", daily)
    check_amount(currency, "total_budget_amount_local_micro", total)
    if daily is not None and total is not None and daily > total:
        raise errors.invalid_parameter(
            "daily_budget_amount_local_micro",
            "daily_budget_amount_local_micro must be less than or equal to total_budget_amount_local_micro",
        )


# ---- caps --------------------------------------------------------------------------------------


def account_cap(account: Row, name: str, default: int, maximum: int) -> int:
    """The account's cap: the platform default, or what the account manager set (never above maximum)."""
    limits = account.get("limits") or {}
    value = limits.get(name)
    return min(int(value), maximum) if isinstance(value, int) else default


async def check_campaign_cap(services: Services, tx: Executor, account: Row) -> None:
    cap = account_cap(account, "active_campaigns", DEFAULT_ACTIVE_CAMPAIGNS, MAX_ACTIVE_CAMPAIGNS)
    active = await services.ads.count(
        EntityQuery("campaign", str(account["id"])), statuses=COUNTED_STATUSES, reader=tx
    )
    if active >= cap:
        raise errors.bad_request(
            "TOO_MANY_CAMPAIGNS",
            f"Account {account['id']} has reached the maximum of {cap} active campaigns",
        )


# ---- lifecycle ---------------------------------------------------------------------------------


async def _funding_instrument(services: Services, tx: Executor, account_id: str, fi_id: str) -> Row:
    row = await entities.load(
        services, "funding_instrument", account_id, fi_id, parameter="funding_instrument_id", reader=tx
    )
    if not row["body"].get("able_to_fund", True) or row["body"].get("entity_status") != "ACTIVE":
        raise errors.bad_request(
            "INVALID_FUNDING_INSTRUMENT",
            f"Funding Instrument {fi_id} is not able to fund campaigns",
            "funding_instrument_id",
        )
    return row


def _check_delivery(state: dict[str, Any], given: dict[str, Any]) -> None:
    if state["budget_optimization"] != "CAMPAIGN" and given.get("standard_delivery") is not None:
        raise errors.invalid_parameter(
            "standard_delivery", "standard_delivery can only be set with CAMPAIGN budget_optimization"
        )


async def create_campaign(
    services: Services, tx: Executor, account: Row, params: dict[str, Any], *, now_ms: int, user_id: int
) -> dict[str, Any]:
    account_id = str(account["id"])
    fi = await _funding_instrument(services, tx, account_id, params["funding_instrument_id"])
    currency = fi["body"].get("currency") or "USD"
    optimization = params.get("budget_optimization") or "CAMPAIGN"
    state: dict[str, Any] = {
        "name": params["name"],
        "budget_optimization": optimization,
        "funding_instrument_id": fi["body"]["id"],
        "daily_budget_amount_local_micro": params.get("daily_budget_amount_local_micro"),
        "total_budget_amount_local_micro": params.get("total_budget_amount_local_micro"),
        "standard_delivery": None,
        "entity_status": params.get("entity_status") or "ACTIVE",
    }
    _check_delivery(state, params)
    if optimization == "CAMPAIGN":
        given = params.get("standard_delivery")
        state["standard_delivery"] = True if given is None else given
        if (
            state["daily_budget_amount_local_micro"] is None
            and fi["body"]["type"] not in DAILY_BUDGET_OPTIONAL
        ):
            raise errors.missing_parameter("daily_budget_amount_local_micro")
    check_budget_pair(
        currency, state["daily_budget_amount_local_micro"], state["total_budget_amount_local_micro"]
    )
    if state["entity_status"] in COUNTED_STATUSES:
        await check_campaign_cap(services, tx, account)
    attributes = {
        **state,
        "effective_status": "UNKNOWN",
        "servable": False,
        "reasons_not_servable": [],
        "purchase_order_number": params.get("purchase_order_number"),
        "frequency_cap": None,
        "duration_in_days": None,
        "currency": currency,
    }
    attributes["reasons_not_servable"] = _reasons(attributes, has_line_items=False)
    return await entities.create(
        services,
        tx,
        "campaign",
        account_id,
        attributes,
        now_ms=now_ms,
        user_id=user_id,
        funding_instrument_id=fi["body"]["id"],
    )


async def update_campaign(
    services: Services,
    tx: Executor,
    account: Row,
    campaign_id: str,
    params: dict[str, Any],
    *,
    now_ms: int,
    user_id: int,
) -> dict[str, Any]:
    account_id = str(account["id"])
    row = await entities.load(services, "campaign", account_id, campaign_id, reader=tx)
    before = row["body"]
    changes = {name: params[name] for name in FIELDS if name in params}
    state = {**before, **changes}
    _check_delivery(state, changes)
    if "budget_optimization" in changes and state["budget_optimization"] == "LINE_ITEM":
        changes["standard_delivery"] = state["standard_delivery"] = None
    elif state["budget_optimization"] == "CAMPAIGN" and state.get("standard_delivery") is None:
        changes["standard_delivery"] = state["standard_delivery"] = True
    fi = await services.ads.entity(str(before.get("funding_instrument_id")), tx)
    if (
        state["budget_optimization"] == "CAMPAIGN"
        and state.get("daily_budget_amount_local_micro") is None
        and (fi is None or fi["body"].get("type") not in DAILY_BUDGET_OPTIONAL)
    ):
        raise errors.missing_parameter("daily_budget_amount_local_micro")
    check_budget_pair(
        before.get("currency") or "USD",
        state.get("daily_budget_amount_local_micro"),
        state.get("total_budget_amount_local_micro"),
    )
    if before.get("entity_status") not in COUNTED_STATUSES and state["entity_status"] in COUNTED_STATUSES:
        await check_campaign_cap(services, tx, account)
    return await entities.update(services, tx, row, changes, now_ms=now_ms, user_id=user_id)


async def delete_campaign(
    services: Services, tx: Executor, account: Row, campaign_id: str, *, now_ms: int, user_id: int
) -> dict[str, Any]:
    row = await entities.load(services, "campaign", str(account["id"]), campaign_id, reader=tx)
    return await entities.delete(services, tx, row, now_ms=now_ms, user_id=user_id)


# ---- derived fields ----------------------------------------------------------------------------


def _reasons(body: dict[str, Any], *, has_line_items: bool) -> list[str]:
    if body.get("deleted"):
        return ["DELETED"]
    reasons = []
    if body.get("entity_status") == "PAUSED":
        reasons.append("PAUSED_BY_ADVERTISER")
    if body.get("entity_status") == "DRAFT" or not has_line_items:
        reasons.append("INCOMPLETE")
    return reasons


def derive(body: dict[str, Any], *, has_line_items: bool) -> dict[str, Any]:
    """servable / reasons_not_servable / effective_status from the campaign's state: a campaign
    serves when it is ACTIVE, not deleted and has a line item; PAUSED reports PAUSED_BY_ADVERTISER,
    no line items (or DRAFT) INCOMPLETE. effective_status: RUNNING when servable, PAUSED when only
    paused, DELETED when deleted, UNKNOWN otherwise."""
    reasons = _reasons(body, has_line_items=has_line_items)
    if body.get("deleted"):
        effective = "DELETED"
    elif not reasons:
        effective = "RUNNING"
    elif reasons == ["PAUSED_BY_ADVERTISER"]:
        effective = "PAUSED"
    else:
        effective = "UNKNOWN"
    out = dict(body)
    out["effective_status"] = effective
    out["servable"] = not reasons
    out["reasons_not_servable"] = reasons
    return out


async def presented(
    services: Services, account_id: str, bodies: Sequence[dict[str, Any]], reader: Executor | None = None
) -> list[dict[str, Any]]:
    """Campaign objects as the API shows them, with the derived fields current (one query per page)."""
    if not bodies:
        return []
    rows, _ = await services.ads.entities(
        EntityQuery("line_item", account_id, parent_ids=[b["id"] for b in bodies]), reader
    )
    parents = {row["parent_id"] for row in rows}
    return [derive(body, has_line_items=body["id"] in parents) for body in bodies]
