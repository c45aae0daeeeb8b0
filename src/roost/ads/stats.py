"""Ads analytics: synchronous stats and active entities, from the delivery model run over the
account's entities as their change history says they were (see stats_model for the model,
stats_rules for the request rules, stats_report for the buckets and metric groups)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from roost.ads import errors
from roost.ads.paging import AdsResult
from roost.ads.params import format_time
from roost.ads.stats_memo import SimulationMemo
from roost.ads.stats_model import (
    CampaignPlan,
    Delivery,
    Interval,
    LineItemPlan,
    Vector,
    Version,
    active,
    add,
    creative_hours,
    intersect,
    live_intervals,
    parse_ms,
    placement_part,
)
from roost.ads.stats_report import activity, bucket_edges, id_data
from roost.ads.stats_rules import (
    ACTIVE_WINDOW_DAYS,
    SYNC_WINDOW_DAYS,
    account_zone,
    check_metric_groups,
    check_window,
    resolve_times,
)
from roost.ads.targeting import Resolved, Resolver
from roost.ads.targeting_estimate import POPULATION, estimate, has_primary
from roost.core.records import Row
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.ads_stats import AdsStatsStore

CREATIVE_KINDS = {
    "PROMOTED_TWEET": "promoted_tweet",
    "PROMOTED_ACCOUNT": "promoted_account",
    "MEDIA_CREATIVE": "media_creative",
}
HISTORY_TYPES = {
    "campaign": "CAMPAIGN",
    "line_item": "LINE_ITEM",
    "promoted_tweet": "PROMOTED_TWEET",
    "promoted_account": "PROMOTED_ACCOUNT",
}
REPORTED_PLACEMENTS = ("ALL_ON_TWITTER", "PUBLISHER_NETWORK")
# Stands for "no primary targeting": the whole population, narrowed by the other criteria.
_EVERYONE = Resolved("INTEREST", "*", "EQ", "everyone", entry={"size": POPULATION})
Hours = dict[int, Vector]


@dataclass
class AccountDelivery:
    """What an account's line items and their creatives served until one instant."""

    account_id: str
    line_items: dict[str, dict[str, Any]]  # current bodies
    creatives: dict[str, tuple[str, str]]  # creative id -> (kind, line item id)
    plans: dict[str, LineItemPlan]
    deliveries: dict[str, Delivery]
    campaigns: set[str] = field(default_factory=set)
    funding_instruments: set[str] = field(default_factory=set)
    _creative_hours: dict[str, dict[str, Hours]] = field(default_factory=dict)

    def _placements(self, line_item_id: str) -> list[str]:
        return list(self.line_items[line_item_id].get("placements") or [])

    def line_item_hours(self, line_item_id: str, placement: str | None) -> Hours:
        hours = self.deliveries[line_item_id].hours
        if placement is None:
            return dict(hours)
        placements = self._placements(line_item_id)
        return {hour: placement_part(vector, placements, placement) for hour, vector in hours.items()}

    def creative_hours(self, creative_id: str, placement: str | None) -> Hours:
        _, line_item_id = self.creatives[creative_id]
        if line_item_id not in self._creative_hours:
            self._creative_hours[line_item_id] = creative_hours(
                self.plans[line_item_id], self.deliveries[line_item_id]
            )
        hours = self._creative_hours[line_item_id].get(creative_id, {})
        if placement is None:
            return dict(hours)
        placements = self._placements(line_item_id)
        return {hour: placement_part(vector, placements, placement) for hour, vector in hours.items()}

    def line_items_of(self, entity: str, ident: str) -> list[str] | None:
        """The line items an ACCOUNT, CAMPAIGN, FUNDING_INSTRUMENT or LINE_ITEM id sums up, or None
        when the id names no such entity of the account."""
        if entity == "ACCOUNT":
            return sorted(self.line_items) if ident == self.account_id else None
        if entity == "LINE_ITEM":
            return [ident] if ident in self.line_items else None
        known = {"CAMPAIGN": self.campaigns, "FUNDING_INSTRUMENT": self.funding_instruments}.get(entity)
        if known is None or ident not in known:
            return None
        key = "campaign_id" if entity == "CAMPAIGN" else "funding_instrument_id"
        return sorted(li for li, body in self.line_items.items() if body.get(key) == ident)

    def hours(self, entity: str, ident: str, placement: str | None) -> Hours | None:
        """The entity's hourly delivery on a placement (all of them for None); None when the id
        does not name an entity of that type in the account."""
        if entity in CREATIVE_KINDS:
            known = self.creatives.get(ident)
            if known is None or known[0] != CREATIVE_KINDS[entity]:
                return None
            return self.creative_hours(ident, placement)
        line_items = self.line_items_of(entity, ident)
        if line_items is None:
            return None
        total: dict[int, Vector] = {}
        for line_item_id in line_items:
            for hour, vector in self.line_item_hours(line_item_id, placement).items():
                total[hour] = add(total.get(hour), vector)
        return total

    def serving(self, entity: str, ident: str) -> list[Interval]:
        if entity in CREATIVE_KINDS:
            _, line_item_id = self.creatives[ident]
            return self.deliveries[line_item_id].serving
        intervals: list[Interval] = []
        for line_item_id in self.line_items_of(entity, ident) or []:
            intervals.extend(self.deliveries[line_item_id].serving)
        return sorted(intervals)


class Stats:
    def __init__(self, store: AdsStore, history: AdsStatsStore, resolver: Resolver) -> None:
        self._store = store
        self._history = history
        self._resolver = resolver
        self._memo = SimulationMemo()  # the past whole hours of each campaign, simulated once

    # ---- the model's input ------------------------------------------------------------------

    async def _rows(self, kind: str, account_id: str) -> list[Row]:
        rows, _ = await self._store.entities(EntityQuery(kind, account_id, with_deleted=True))
        return rows

    async def delivery(
        self, account: Row, until_ms: int, wanted: tuple[str, list[str]] | None = None
    ) -> AccountDelivery:
        """Run the model over the account's campaigns as they were until `until_ms`: all of them, or
        those that `wanted` (an entity type and ids) needs."""
        account_id = str(account["id"])
        zone = account_zone(account)
        history: dict[tuple[str, str], list[Version]] = {}
        for row in await self._history.delivery_history(account_id, until_ms):
            data = row["body"].get("entity_data")
            if isinstance(data, dict):
                history.setdefault((row["entity_type"], row["entity_id"]), []).append(
                    Version(int(row["change_time"]), data)
                )
        rows = {
            kind: await self._rows(kind, account_id)
            for kind in ("campaign", "line_item", "funding_instrument")
        }
        creatives: dict[str, tuple[str, str]] = {}
        creative_intervals: dict[str, dict[str, list[Interval]]] = {}
        for kind in CREATIVE_KINDS.values():
            for row in await self._rows(kind, account_id):
                body, line_item_id = row["body"], str(row["body"].get("line_item_id") or "")
                if not line_item_id or int(row["created_at"]) >= until_ms:
                    continue
                creatives[body["id"]] = (kind, line_item_id)
                timeline = _timeline(kind, row, history, until_ms)
                creative_intervals.setdefault(line_item_id, {})[body["id"]] = live_intervals(
                    timeline, until_ms, active
                )
        funding = {row["body"]["id"]: _funding_intervals(row, until_ms) for row in rows["funding_instrument"]}
        audiences = await self._audiences(account_id)
        line_items: dict[str, dict[str, Any]] = {}
        plans: dict[str, LineItemPlan] = {}
        by_campaign: dict[str, list[LineItemPlan]] = {}
        for row in rows["line_item"]:
            if int(row["created_at"]) >= until_ms:
                continue
            body = row["body"]
            line_items[body["id"]] = body
            plan = LineItemPlan(
                body["id"],
                _timeline("line_item", row, history, until_ms),
                creative_intervals.get(body["id"], {}),
                funding.get(str(body.get("funding_instrument_id")), []),
                audiences.get(body["id"], POPULATION),
            )
            plans[body["id"]] = plan
            by_campaign.setdefault(str(body.get("campaign_id")), []).append(plan)
        needed = _campaigns_needed(wanted, line_items, creatives)
        deliveries: dict[str, Delivery] = {}
        for row in rows["campaign"]:
            members = by_campaign.get(row["body"]["id"])
            if not members or account["sandbox"]:  # the sandbox never serves
                continue
            if needed is not None and row["body"]["id"] not in needed:
                continue
            campaign = CampaignPlan(row["body"]["id"], _timeline("campaign", row, history, until_ms), members)
            deliveries.update(self._memo.simulate(campaign, until_ms, zone))
        for line_item_id in line_items:  # a line item whose campaign is gone served nothing
            deliveries.setdefault(line_item_id, Delivery())
        return AccountDelivery(
            account_id,
            line_items,
            creatives,
            plans,
            deliveries,
            campaigns={row["body"]["id"] for row in rows["campaign"] if int(row["created_at"]) < until_ms},
            funding_instruments={
                row["body"]["id"] for row in rows["funding_instrument"] if int(row["created_at"]) < until_ms
            },
        )

    async def _audiences(self, account_id: str) -> dict[str, int]:
        """Each line item's audience estimate, from its targeting criteria as they are now."""
        criteria: dict[str, list[Resolved]] = {}
        resolved_cache: dict[tuple[str, str, str], Resolved | None] = {}
        rows, _ = await self._store.entities(EntityQuery("targeting_criterion", account_id))
        for row in rows:
            body = row["body"]
            key = (
                str(body.get("targeting_type")),
                str(body.get("targeting_value")),
                str(body.get("operator_type")),
            )
            if key not in resolved_cache:
                try:
                    resolved_cache[key] = await self._resolver.resolve(account_id, *key)
                except errors.AdsError:  # a value gone stale (a deleted user): it reaches no one
                    resolved_cache[key] = None
            resolved = resolved_cache[key]
            if resolved is not None:
                criteria.setdefault(str(body.get("line_item_id")), []).append(resolved)
        return {
            line_item_id: estimate(found if has_primary(found) else [*found, _EVERYONE])["max"]
            for line_item_id, found in criteria.items()
        }

    # ---- reports ----------------------------------------------------------------------------

    async def report(
        self,
        account: Row,
        params: dict[str, Any],
        *,
        start: int,
        end: int,
        as_of: int,
        segmentation: str | None = None,
        delivery: AccountDelivery | None = None,
    ) -> dict[str, Any]:
        """The stats document (`data_type`, `time_series_length`, `data`, `request`) of a checked
        request: the synchronous answer and the asynchronous result file share it."""
        zone = account_zone(account)
        entity, placement, groups = params["entity"], params["placement"], params["metric_groups"]
        edges = bucket_edges(start, end, params["granularity"], zone)
        delivery = delivery or await self.delivery(account, as_of, (entity, list(params["entity_ids"])))
        data = []
        for ident in _unique(params["entity_ids"]):
            hours = delivery.hours(entity, ident, placement)
            if hours is not None:
                data.append({"id": ident, "id_data": id_data(hours, edges, groups, entity, segmentation)})
        return {
            "data_type": "stats",
            "time_series_length": len(edges) - 1,
            "data": data,
            "request": {"params": stats_echo(params, start, end)},
        }

    async def synchronous(
        self, account: Row, params: dict[str, Any], echo: dict[str, Any], now_ms: int
    ) -> AdsResult:
        zone = account_zone(account)
        start, end = resolve_times(params, echo, zone)
        check_window(start, end, params["granularity"], SYNC_WINDOW_DAYS, zone)
        check_metric_groups(params["entity"], params["metric_groups"])
        document = await self.report(account, params, start=start, end=end, as_of=now_ms)
        return AdsResult(
            document["data"],
            extra={"data_type": "stats", "time_series_length": document["time_series_length"]},
            request=document["request"],
        )

    async def active_entities(
        self, account: Row, params: dict[str, Any], echo: dict[str, Any], now_ms: int
    ) -> list[dict[str, Any]]:
        zone = account_zone(account)
        start, end = resolve_times(params, echo, zone)
        check_window(start, end, None, ACTIVE_WINDOW_DAYS, zone)
        filters = [
            name for name in ("campaign_ids", "funding_instrument_ids", "line_item_ids") if params.get(name)
        ]
        if len(filters) > 1:
            raise errors.exclusive(filters[0], filters[1])
        delivery = await self.delivery(account, now_ms)
        scope = _in_scope(delivery, filters[0] if filters else None, params)
        entity = params["entity"]
        out = []
        for ident in sorted(_entities_of(delivery, entity, scope)):
            hours = delivery.hours(entity, ident, None) or {}
            window = activity(hours, delivery.serving(entity, ident), start, end)
            if window is None:
                continue
            placements = [
                placement
                for placement in REPORTED_PLACEMENTS
                if any(
                    any(vector) and start <= hour < end
                    for hour, vector in (delivery.hours(entity, ident, placement) or {}).items()
                )
            ]
            out.append(
                {
                    "entity_id": ident,
                    "activity_start_time": window[0],
                    "activity_end_time": window[1],
                    "placements": placements,
                }
            )
        return out


def stats_echo(params: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    """`request.params` of a stats document, as the platform writes it (no account id; the
    segmentation companions always present)."""
    return {
        "start_time": format_time(start),
        "segmentation_type": params.get("segmentation_type"),
        "entity_ids": _unique(params["entity_ids"]),
        "end_time": format_time(end),
        "country": params.get("country"),
        "placement": params["placement"],
        "granularity": params["granularity"],
        "entity": params["entity"],
        "platform": params.get("platform"),
        "metric_groups": params["metric_groups"],
    }


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _timeline(
    kind: str, row: Row, history: dict[tuple[str, str], list[Version]], until_ms: int
) -> list[Version]:
    """The entity's states before `until_ms`: its recorded changes, else its current state from its
    creation; a later state not in the history (a direct change) counts from its update."""
    body = row["body"]
    versions = list(history.get((HISTORY_TYPES.get(kind, ""), body["id"]), []))
    if not versions:
        versions = [Version(int(row["created_at"]), body)]
    updated = int(row["updated_at"])
    if updated > versions[-1].at_ms and updated < until_ms and body != versions[-1].body:
        versions.append(Version(updated, body))
    return versions


def _funding_intervals(row: Row, until_ms: int) -> list[Interval]:
    body = row["body"]
    end = int(row["updated_at"]) if body.get("deleted") else until_ms
    start = int(row["created_at"])
    flight = (parse_ms(body.get("start_time")) or start, parse_ms(body.get("end_time")) or until_ms)
    if body.get("entity_status") not in (None, "ACTIVE"):
        return []
    return intersect([(start, min(end, until_ms))], [flight]) if start < min(end, until_ms) else []


def _campaigns_needed(
    wanted: tuple[str, list[str]] | None,
    line_items: dict[str, dict[str, Any]],
    creatives: dict[str, tuple[str, str]],
) -> set[str] | None:
    """The campaigns a report on `wanted` sums up (None: every campaign); line items of one campaign
    share its budgets, so a campaign is run whole."""
    if wanted is None or wanted[0] in ("ACCOUNT", "FUNDING_INSTRUMENT"):
        return None
    entity, ids = wanted
    if entity == "CAMPAIGN":
        return set(ids)
    if entity in CREATIVE_KINDS:
        ids = [creatives[ident][1] for ident in ids if ident in creatives]
    return {str(line_items[ident].get("campaign_id")) for ident in ids if ident in line_items}


def _in_scope(delivery: AccountDelivery, filter_name: str | None, params: dict[str, Any]) -> set[str]:
    """The line items an active-entities filter keeps."""
    if filter_name is None:
        return set(delivery.line_items)
    wanted = set(params[filter_name])
    key = {
        "campaign_ids": "campaign_id",
        "funding_instrument_ids": "funding_instrument_id",
        "line_item_ids": "id",
    }[filter_name]
    return {li for li, body in delivery.line_items.items() if str(body.get(key)) in wanted}


def _entities_of(delivery: AccountDelivery, entity: str, line_items: set[str]) -> set[str]:
    if entity in CREATIVE_KINDS:
        kind = CREATIVE_KINDS[entity]
        return {cid for cid, (k, li) in delivery.creatives.items() if k == kind and li in line_items}
    if entity == "LINE_ITEM":
        return set(line_items)
    key = "campaign_id" if entity == "CAMPAIGN" else "funding_instrument_id"
    return {str(delivery.line_items[li].get(key)) for li in line_items}
