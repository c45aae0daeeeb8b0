"""Campaign rules: creation, update, soft delete, the active-campaign cap and the derived
servability fields. Used by the single-item endpoints and by batch alike; none of this knows HTTP."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.catalog.bidding import bidding_rule
from roost.ads.entities import Entities
from roost.ads.paging import AdsResult
from roost.core.records import Row
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database, Executor

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


# ---- caps and delivery -------------------------------------------------------------------------


def account_cap(account: Row, name: str, default: int, maximum: int) -> int:
    """The account's cap: the platform default, or what the account manager set (never above maximum)."""
    limits = account.get("limits") or {}
    value = limits.get(name)
    return min(int(value), maximum) if isinstance(value, int) else default


def _check_delivery(state: dict[str, Any], given: dict[str, Any]) -> None:
    if state["budget_optimization"] != "CAMPAIGN" and given.get("standard_delivery") is not None:
        raise errors.invalid_parameter(
            "standard_delivery", "standard_delivery can only be set with CAMPAIGN budget_optimization"
        )


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


# ---- the service -------------------------------------------------------------------------------


class Campaigns:
    """Campaign reads and writes. The single-item writes own their transaction; the `*_in` ones
    run inside a batch's."""

    def __init__(self, db: Database, store: AdsStore, entities: Entities) -> None:
        self._db = db
        self._store = store
        self._entities = entities

    # ---- reads ------------------------------------------------------------------------------

    async def page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        query = EntityQuery(
            "campaign",
            account_id,
            ids=params.get("campaign_ids"),
            funding_instrument_ids=params.get("funding_instrument_ids"),
            name_prefix=params.get("q"),
            with_draft=bool(params.get("with_draft")),
        )
        page = await self._entities.list_page(query, params)
        page.data = await self.presented(account_id, page.data)
        return page

    async def get(self, account_id: str, campaign_id: str, *, with_deleted: bool) -> dict[str, Any]:
        body = await self._entities.get("campaign", account_id, campaign_id, with_deleted=with_deleted)
        return (await self.presented(account_id, [body]))[0]

    async def presented(
        self, account_id: str, bodies: Sequence[dict[str, Any]], reader: Executor | None = None
    ) -> list[dict[str, Any]]:
        """Campaign objects as the API shows them, with the derived fields current (one query per page)."""
        if not bodies:
            return []
        rows, _ = await self._store.entities(
            EntityQuery("line_item", account_id, parent_ids=[b["id"] for b in bodies]), reader
        )
        parents = {row["parent_id"] for row in rows}
        return [derive(body, has_line_items=body["id"] in parents) for body in bodies]

    # ---- single-item writes -----------------------------------------------------------------

    async def create(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            body = await self.create_in(tx, actor, params)
        return derive(body, has_line_items=False)

    async def update(self, actor: Actor, campaign_id: str, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            body = await self.update_in(tx, actor, campaign_id, params)
            return (await self.presented(actor.account_id, [body], tx))[0]

    async def delete(self, actor: Actor, campaign_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            body = await self.delete_in(tx, actor, campaign_id)
        return derive(body, has_line_items=False)

    # ---- writes inside a transaction --------------------------------------------------------

    async def create_in(self, tx: Executor, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        account, account_id = actor.account, actor.account_id
        fi = await self._funding_instrument(tx, account_id, params["funding_instrument_id"])
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
            await self._check_cap(tx, account)
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
        return await self._entities.create(
            tx,
            "campaign",
            account_id,
            attributes,
            now_ms=actor.now_ms,
            user_id=actor.user_id,
            funding_instrument_id=fi["body"]["id"],
        )

    async def update_in(
        self, tx: Executor, actor: Actor, campaign_id: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        row = await self._entities.load("campaign", actor.account_id, campaign_id, reader=tx)
        before = row["body"]
        changes = {name: params[name] for name in FIELDS if name in params}
        state = {**before, **changes}
        _check_delivery(state, changes)
        if "budget_optimization" in changes and state["budget_optimization"] == "LINE_ITEM":
            changes["standard_delivery"] = state["standard_delivery"] = None
        elif state["budget_optimization"] == "CAMPAIGN" and state.get("standard_delivery") is None:
            changes["standard_delivery"] = state["standard_delivery"] = True
        fi = await self._store.entity(str(before.get("funding_instrument_id")), tx)
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
            await self._check_cap(tx, actor.account)
        return await self._entities.update(tx, row, changes, now_ms=actor.now_ms, user_id=actor.user_id)

    async def delete_in(self, tx: Executor, actor: Actor, campaign_id: str) -> dict[str, Any]:
        row = await self._entities.load("campaign", actor.account_id, campaign_id, reader=tx)
        return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)

    # ---- rules that read the store ----------------------------------------------------------

    async def _check_cap(self, tx: Executor, account: Row) -> None:
        cap = account_cap(account, "active_campaigns", DEFAULT_ACTIVE_CAMPAIGNS, MAX_ACTIVE_CAMPAIGNS)
        active = await self._store.count(
            EntityQuery("campaign", str(account["id"])), statuses=COUNTED_STATUSES, reader=tx
        )
        if active >= cap:
            raise errors.bad_request(
                "TOO_MANY_CAMPAIGNS",
                f"Account {account['id']} has reached the maximum of {cap} active campaigns",
            )

    async def _funding_instrument(self, tx: Executor, account_id: str, fi_id: str) -> Row:
        row = await self._entities.load(
            "funding_instrument", account_id, fi_id, parameter="funding_instrument_id", reader=tx
        )
        if not row["body"].get("able_to_fund", True) or row["body"].get("entity_status") != "ACTIVE":
            raise errors.bad_request(
                "INVALID_FUNDING_INSTRUMENT",
                f"Funding Instrument {fi_id} is not able to fund campaigns",
                "funding_instrument_id",
            )
        return row
