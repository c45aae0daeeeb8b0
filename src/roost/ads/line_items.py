"""Line item lifecycle: creation, update and soft delete with every rule of the platform, the caps
per campaign and per account, the advertiser user and the PLATFORM criteria app ids imply. Used by
the single-item endpoints and by batch alike; none of this knows HTTP."""

from __future__ import annotations

from typing import Any

from roost.ads import catalog, errors
from roost.ads import line_item_rules as rules
from roost.ads.accounts import ADVERTISER_USER_ID
from roost.ads.actor import Actor
from roost.ads.campaigns import COUNTED_STATUSES, account_cap, check_budget_pair
from roost.ads.catalog.bidding import brand_placements
from roost.ads.entities import Entities
from roost.ads.paging import AdsResult
from roost.ads.params import format_time, parse_time
from roost.core.records import Row
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database, Executor

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
    """The API object: placements in the brand's spelling (stored in the real one). The
    `audience_expansion` given is kept but not shown: it is a write parameter that no v12 answer
    of the platform carries (docs/decisions.md)."""
    out = dict(body)
    out.pop("audience_expansion", None)
    out["placements"] = brand_placements(body.get("placements") or [], brand)
    return out


async def full_promotable_user(store: AdsStore, account_id: str, reader: Executor | None) -> str | None:
    """The account's FULL promotable user (the advertiser), when it has one."""
    rows, _ = await store.entities(EntityQuery("promotable_user", account_id), reader)
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


class LineItems:
    """Line item reads and writes, with placements in the server's brand spelling. The single-item
    writes own their transaction; the `*_in` ones run inside a batch's."""

    def __init__(self, db: Database, store: AdsStore, entities: Entities, brand: str) -> None:
        self._db = db
        self._store = store
        self._entities = entities
        self.brand = brand  # how placements are spelled in objects and echoes

    # ---- reads ------------------------------------------------------------------------------

    async def page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        query = EntityQuery(
            "line_item",
            account_id,
            ids=params.get("line_item_ids"),
            parent_ids=params.get("campaign_ids"),
            funding_instrument_ids=params.get("funding_instrument_ids"),
            name_prefix=params.get("q"),
            with_draft=bool(params.get("with_draft")),
        )
        page = await self._entities.list_page(query, params)
        page.data = [presented(body, self.brand) for body in page.data]
        return page

    async def get(self, account_id: str, line_item_id: str, *, with_deleted: bool) -> dict[str, Any]:
        body = await self._entities.get("line_item", account_id, line_item_id, with_deleted=with_deleted)
        return presented(body, self.brand)

    def placements(self, product_type: str | None) -> list[dict[str, Any]]:
        """The placements each product type may use, in the brand's spelling."""
        return catalog.placements(product_type, brand=self.brand)

    def branded(self, placements: list[str]) -> list[str]:
        return brand_placements(placements, self.brand)

    # ---- single-item writes -----------------------------------------------------------------

    async def create(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            body = await self.create_in(tx, actor, params)
        return presented(body, self.brand)

    async def update(self, actor: Actor, line_item_id: str, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            body = await self.update_in(tx, actor, line_item_id, params)
        return presented(body, self.brand)

    async def delete(self, actor: Actor, line_item_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            body = await self.delete_in(tx, actor, line_item_id)
        return presented(body, self.brand)

    # ---- writes inside a transaction (they return the stored object, not yet branded) ---------

    async def create_in(self, tx: Executor, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        account, account_id = actor.account, actor.account_id
        campaign = (
            await self._entities.load(
                "campaign", account_id, params["campaign_id"], parameter="campaign_id", reader=tx
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
        siblings, _ = await self._store.entities(
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
            await self._check_active_cap(tx, account)
        if state["advertiser_user_id"] is None:
            state["advertiser_user_id"] = await full_promotable_user(self._store, account_id, tx)
        body = await self._entities.create(
            tx,
            "line_item",
            account_id,
            state,
            now_ms=actor.now_ms,
            user_id=actor.user_id,
            parent_id=campaign["id"],
            funding_instrument_id=campaign.get("funding_instrument_id"),
        )
        await self._add_platform_criteria(tx, actor, body, list(PLATFORM_VALUES))
        return body

    async def update_in(
        self, tx: Executor, actor: Actor, line_item_id: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        row = await self._entities.load("line_item", actor.account_id, line_item_id, reader=tx)
        before = row["body"]
        campaign_row = await self._store.entity(before["campaign_id"], tx)
        campaign = campaign_row["body"] if campaign_row else {}
        _check_advertiser_user(actor.account, params)
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
            await self._check_active_cap(tx, actor.account)
        changes = {name: state[name] for name in state if state[name] != before.get(name)}
        body = await self._entities.update(tx, row, changes, now_ms=actor.now_ms, user_id=actor.user_id)
        added = [name for name in PLATFORM_VALUES if name in changes]
        await self._add_platform_criteria(tx, actor, body, added)
        return body

    async def delete_in(self, tx: Executor, actor: Actor, line_item_id: str) -> dict[str, Any]:
        """Soft delete; promoted products and targeting stay as they are (no cascade)."""
        row = await self._entities.load("line_item", actor.account_id, line_item_id, reader=tx)
        return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)

    # ---- rules that read or write beside the line item --------------------------------------

    async def _check_active_cap(self, tx: Executor, account: Row) -> None:
        cap = account_cap(account, "active_line_items", DEFAULT_ACTIVE_LINE_ITEMS, MAX_ACTIVE_LINE_ITEMS)
        active = await self._store.count(
            EntityQuery("line_item", str(account["id"])), statuses=COUNTED_STATUSES, reader=tx
        )
        if active >= cap:
            raise errors.bad_request(
                "TOO_MANY_LINE_ITEMS",
                f"Account {account['id']} has reached the maximum of {cap} active line items",
            )

    async def _add_platform_criteria(
        self, tx: Executor, actor: Actor, body: dict[str, Any], names: list[str]
    ) -> None:
        """Setting an app store id targets that app's platform (iOS "0", Android "1"), once."""
        account_id = actor.account_id
        existing, _ = await self._store.entities(
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
            await self._entities.create(
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
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=body["id"],
            )
