"""Recommendations (closed beta): one per funding instrument, a tree of suggested changes in the
batch endpoints' vocabulary, derived from the account's campaigns and line items."""

from __future__ import annotations

import hashlib
from typing import Any

from roost.ads import catalog, errors
from roost.ads.accounts import RECOMMENDATIONS
from roost.ads.ids import base36
from roost.ads.paging import AdsResult, page_of
from roost.core.records import Row
from roost.storage.ads import AdsStore, EntityQuery


def recommendation_id(funding_instrument_id: str) -> str:
    """One recommendation per funding instrument, so its id derives from the instrument's."""
    digest = int(hashlib.sha256(f"recommendation|{funding_instrument_id}".encode()).hexdigest()[:12], 16)
    return base36(36**4 + digest % (35 * 36**4))


def _summary(instrument: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": recommendation_id(instrument["id"]),
        "funding_instrument_id": instrument["id"],
        "created_at": instrument["created_at"],
    }


def _rounded(amount: float, rule: dict[str, Any]) -> int:
    step = int(rule["minimum_denomination"])
    value = max(int(amount) // step * step, int(rule["minimum_cpe_bid_local_micro"]))
    return min(value, int(rule["maximum_cpe_bid_local_micro"]))


def _require_recommendations(account: Row) -> None:
    if RECOMMENDATIONS not in (account["allowlist"] or []):
        raise errors.not_allowlisted(
            f"Account {account['id']} is not allowlisted for the recommendations closed beta"
        )


class Recommendations:
    def __init__(self, store: AdsStore) -> None:
        self._store = store

    async def page(self, account: Row, params: dict[str, Any]) -> AdsResult:
        _require_recommendations(account)
        instruments = await self._instruments(str(account["id"]))
        return page_of([_summary(fi) for fi in instruments], params)

    async def get(self, account: Row, ident: str) -> AdsResult:
        _require_recommendations(account)
        account_id = str(account["id"])
        for instrument in await self._instruments(account_id):
            if recommendation_id(instrument["id"]) == ident:
                body = {
                    **_summary(instrument),
                    "recommendations": await self._suggestions(account_id, instrument),
                }
                return AdsResult(body, extra={"data_type": "recommendation"})
        raise errors.not_found("recommendation", ident, account_id, "recommendation_id")

    async def _instruments(self, account_id: str) -> list[dict[str, Any]]:
        rows, _ = await self._store.entities(EntityQuery("funding_instrument", account_id))
        return [row["body"] for row in rows]

    async def _suggestions(self, account_id: str, instrument: dict[str, Any]) -> list[dict[str, Any]]:
        """A tree of changes in the batch endpoints' vocabulary: raise budgets and bids a little and
        add country targeting where a line item has none."""
        rule = catalog.bidding_rule(instrument.get("currency") or "USD") or catalog.bidding_rule("USD")
        assert rule is not None
        store = self._store
        campaigns, _ = await store.entities(
            EntityQuery("campaign", account_id, funding_instrument_ids=[instrument["id"]])
        )
        if not campaigns:
            return [
                {
                    "entity_type": "CAMPAIGN",
                    "operation_type": "Create",
                    "params": {
                        "funding_instrument_id": instrument["id"],
                        "name": "Recommended campaign",
                        "daily_budget_amount_local_micro": _rounded(
                            rule["minimum_cpe_bid_local_micro"] * 5000, rule
                        ),
                        "entity_status": "PAUSED",
                    },
                    "children": [],
                }
            ]
        country = catalog.locations(country_code="US", location_type="COUNTRIES")[0]
        tree = []
        for campaign in (row["body"] for row in campaigns):
            line_items, _ = await store.entities(
                EntityQuery("line_item", account_id, parent_ids=[campaign["id"]])
            )
            children = []
            for line_item in (row["body"] for row in line_items):
                criteria, _ = await store.entities(
                    EntityQuery("targeting_criterion", account_id, parent_ids=[line_item["id"]])
                )
                grandchildren = []
                if not any(row["body"].get("targeting_type") == "LOCATION" for row in criteria):
                    grandchildren.append(
                        {
                            "entity_type": "TARGETING_CRITERIA",
                            "operation_type": "Create",
                            "params": {
                                "line_item_id": line_item["id"],
                                "targeting_type": "LOCATION",
                                "targeting_value": country["targeting_value"],
                                "operator_type": "EQ",
                            },
                            "name": country["name"],
                        }
                    )
                bid = line_item.get("bid_amount_local_micro")
                params: dict[str, Any] = {"line_item_id": line_item["id"]}
                if bid:
                    params["bid_amount_local_micro"] = _rounded(bid * 1.1, rule)
                children.append(
                    {
                        "entity_type": "LINE_ITEM",
                        "entity_id": line_item["id"],
                        "operation_type": "Update",
                        "params": params,
                        "children": grandchildren,
                    }
                )
            budget = campaign.get("daily_budget_amount_local_micro")
            campaign_params: dict[str, Any] = {"campaign_id": campaign["id"]}
            if budget:
                campaign_params["daily_budget_amount_local_micro"] = _rounded(budget * 1.2, rule)
            tree.append(
                {
                    "entity_type": "CAMPAIGN",
                    "entity_id": campaign["id"],
                    "operation_type": "Update",
                    "params": campaign_params,
                    "children": children,
                }
            )
        return tree
