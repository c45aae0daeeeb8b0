"""The delivery model behind ads analytics: what each line item would have served, hour by hour.

Pure functions over the entities' past states (their change history), so every report built on
them agrees with every other: an hour's figures never depend on the window asked for, and DAY and
TOTAL buckets are sums of hours. The rules (docs/ads.md, "Analytics"):

- a line item serves while it, its campaign and one of its promoted products are ACTIVE and not
  deleted, inside its flight (`start_time`..`end_time`) and its funding instrument's, and never
  after the present;
- it paces its spend evenly over the day (with a stable per-hour wobble) at its daily budget, else
  its share of the campaign's daily budget, else a seventh of its total budget, else a default;
  spend never passes the line item's or the campaign's daily budget in a day (the account's
  time zone) or their total budgets over their lifetime;
- spend buys billed units at the bid (an objective default under AUTO bidding); impressions follow
  from the units and fixed action rates, every other metric from impressions or engagements by
  fixed fractions; the audience estimate of the line item's targeting caps impressions per hour.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS

# The figures the model produces for an hour, in this order (a vector of ints per hour).
BASE_METRICS = (
    "billed_charge_local_micro",
    "billed_engagements",
    "impressions",
    "engagements",
    "clicks",
    "url_clicks",
    "app_clicks",
    "likes",
    "retweets",
    "replies",
    "follows",
    "card_engagements",
    "qualified_impressions",
    "carousel_swipes",
    "video_total_views",
    "video_views_25",
    "video_views_50",
    "video_views_75",
    "video_views_100",
    "video_cta_clicks",
    "video_content_starts",
    "video_3s100pct_views",
    "video_6s_views",
    "video_15s_views",
    "media_views",
    "media_engagements",
)
INDEX = {name: i for i, name in enumerate(BASE_METRICS)}
Vector = tuple[int, ...]
Interval = tuple[int, int]  # [start, end) in epoch milliseconds

# Without a budget of its own or its campaign's, a line item paces at this much a day.
DEFAULT_DAILY_MICRO = 50_000_000
# AUTO bidding pays this per billed unit (per thousand impressions for IMPRESSION).
DEFAULT_BIDS = {
    "IMPRESSION": 6_000_000,
    "ENGAGEMENT": 400_000,
    "LINK_CLICK": 900_000,
    "APP_CLICK": 1_200_000,
    "FOLLOW": 2_500_000,
    "VIEW": 60_000,
}
# Billed actions per impression, by pay_by.
ACTION_RATES = {"ENGAGEMENT": 0.025, "LINK_CLICK": 0.008, "APP_CLICK": 0.006, "FOLLOW": 0.002, "VIEW": 0.15}
# At most this share of the audience is reached in an hour.
HOURLY_REACH = 0.02
VIDEO_OBJECTIVES = ("VIDEO_VIEWS", "PREROLL_VIEWS")
APP_OBJECTIVES = ("APP_INSTALLS", "APP_ENGAGEMENTS")
# The share of a line item's delivery on the publisher network when it also runs on the platform.
PUBLISHER_SHARE = 0.15


@lru_cache(maxsize=1 << 16)  # every report asks again for the same hours' wobble
def seeded(low: float, high: float, *parts: object) -> float:
    """A stable value in [low, high) for an identity."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return low + (high - low) * (int.from_bytes(digest[:8], "big") / 2**64)


# ---- time ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Version:
    """One state of an entity, in force from `at_ms` until the next version."""

    at_ms: int
    body: dict[str, Any]


def body_at(timeline: Sequence[Version], at_ms: int) -> dict[str, Any] | None:
    """The state in force at `at_ms` (None before the entity existed)."""
    current = None
    for version in timeline:
        if version.at_ms > at_ms:
            break
        current = version.body
    return current


def parse_ms(text: Any) -> int | None:
    if not text:
        return None
    try:
        moment = dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return int(moment.timestamp() * 1000)


def live_intervals(
    timeline: Sequence[Version], until_ms: int, live: Callable[[dict[str, Any]], bool], flight: bool = False
) -> list[Interval]:
    """When the entity's state satisfied `live`; with `flight`, also inside each state's own
    `start_time`..`end_time`."""
    out: list[Interval] = []
    for i, version in enumerate(timeline):
        start = version.at_ms
        end = timeline[i + 1].at_ms if i + 1 < len(timeline) else until_ms
        if not live(version.body):
            continue
        if flight:
            start = max(start, parse_ms(version.body.get("start_time")) or start)
            end = min(end, parse_ms(version.body.get("end_time")) or end)
        if start < min(end, until_ms):
            out.append((start, min(end, until_ms)))
    return union(out)


def active(body: dict[str, Any]) -> bool:
    return body.get("entity_status") == "ACTIVE" and not body.get("deleted")


def union(intervals: Iterable[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for start, end in sorted(intervals):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def intersect(first: Sequence[Interval], second: Sequence[Interval]) -> list[Interval]:
    out: list[Interval] = []
    i = j = 0
    while i < len(first) and j < len(second):
        start, end = max(first[i][0], second[j][0]), min(first[i][1], second[j][1])
        if start < end:
            out.append((start, end))
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return out


def overlap(intervals: Sequence[Interval], start: int, end: int) -> int:
    """Milliseconds of [start, end) the intervals cover."""
    return sum(max(0, min(e, end) - max(s, start)) for s, e in intervals)


def hours_of(intervals: Sequence[Interval]) -> list[int]:
    """The whole hours (their starts) the intervals touch, ascending."""
    hours: set[int] = set()
    for start, end in intervals:
        hour = start - start % HOUR_MS
        while hour < end:
            hours.add(hour)
            hour += HOUR_MS
    return sorted(hours)


# ---- the plan and the simulation -------------------------------------------------------------


@dataclass(frozen=True)
class LineItemPlan:
    id: str
    timeline: list[Version]
    creatives: dict[str, list[Interval]]  # promoted product id -> when it was ACTIVE
    funding: list[Interval]  # when its funding instrument could fund
    audience: int  # the audience estimate of its targeting


@dataclass(frozen=True)
class CampaignPlan:
    id: str
    timeline: list[Version]
    line_items: list[LineItemPlan]


@dataclass
class Delivery:
    """What one line item served: a vector per hour (only hours with delivery) and the creatives'
    shares of each hour, in milliseconds served."""

    hours: dict[int, Vector] = field(default_factory=dict)
    serving: list[Interval] = field(default_factory=list)


def serving_intervals(campaign: CampaignPlan, line_item: LineItemPlan, until_ms: int) -> list[Interval]:
    own = live_intervals(line_item.timeline, until_ms, active, flight=True)
    parent = live_intervals(campaign.timeline, until_ms, active)
    creatives = union(i for intervals in line_item.creatives.values() for i in intervals)
    return intersect(intersect(intersect(own, parent), creatives), line_item.funding)


def _budget(body: dict[str, Any] | None, name: str) -> int | None:
    value = (body or {}).get(name)
    return int(value) if isinstance(value, int) and value > 0 else None


def _bid(line_item: dict[str, Any]) -> tuple[str, int]:
    pay_by = str(line_item.get("pay_by") or "IMPRESSION")
    if pay_by not in DEFAULT_BIDS:
        pay_by = "IMPRESSION"
    bid = line_item.get("bid_amount_local_micro")
    return pay_by, int(bid) if isinstance(bid, int) and bid > 0 else DEFAULT_BIDS[pay_by]


def local_day(hour_ms: int, zone: ZoneInfo) -> dt.date:
    return dt.datetime.fromtimestamp(hour_ms / 1000, zone).date()


@dataclass
class _Spend:
    day: dt.date | None = None
    today: int = 0
    total: int = 0
    carry: float = 0.0  # spend wanted but not yet bought (a unit costs more than an hour's share)

    def roll(self, day: dt.date) -> None:
        if day != self.day:
            self.day, self.today, self.carry = day, 0, 0.0


@dataclass
class Progress:
    """Where a simulation stands after some hours: what each line item served so far, and the
    spend counters the next hour starts from."""

    deliveries: dict[str, Delivery]
    spends: dict[str, _Spend]
    campaign_spend: _Spend = field(default_factory=_Spend)

    @classmethod
    def fresh(cls, campaign: CampaignPlan) -> Progress:
        return cls(
            {li.id: Delivery() for li in campaign.line_items}, {li.id: _Spend() for li in campaign.line_items}
        )

    def copy(self) -> Progress:
        return Progress(
            {key: Delivery(dict(d.hours), list(d.serving)) for key, d in self.deliveries.items()},
            {key: replace(spend) for key, spend in self.spends.items()},
            replace(self.campaign_spend),
        )


def simulate(
    campaign: CampaignPlan,
    until_ms: int,
    zone: ZoneInfo,
    progress: Progress | None = None,
    from_hour: int = 0,
) -> dict[str, Delivery]:
    """Every line item's hourly delivery until `until_ms`: from its first state, or carrying on
    from `progress` (the simulation of the hours before `from_hour`, which it advances)."""
    progress = progress or Progress.fresh(campaign)
    deliveries = progress.deliveries
    for li in campaign.line_items:
        deliveries[li.id].serving = serving_intervals(campaign, li, until_ms)
    hours = hours_of(union(i for d in deliveries.values() for i in d.serving))
    campaign_spend = progress.campaign_spend
    spends = progress.spends
    for hour in hours:
        if hour < from_hour:
            continue
        day = local_day(hour, zone)
        campaign_spend.roll(day)
        fractions = {
            li.id: overlap(deliveries[li.id].serving, hour, hour + HOUR_MS) / HOUR_MS
            for li in campaign.line_items
        }
        running = [li for li in campaign.line_items if fractions[li.id] > 0]
        parent = body_at(campaign.timeline, hour + HOUR_MS - 1) or {}
        for li in running:
            body = body_at(li.timeline, hour + HOUR_MS - 1) or {}
            spend = spends[li.id]
            spend.roll(day)
            vector = _hour(li, body, parent, len(running), fractions[li.id], hour, spend, campaign_spend)
            if vector is not None:
                deliveries[li.id].hours[hour] = vector
    return deliveries


def _hour(
    li: LineItemPlan,
    body: dict[str, Any],
    parent: dict[str, Any],
    siblings: int,
    fraction: float,
    hour: int,
    spend: _Spend,
    campaign_spend: _Spend,
) -> Vector | None:
    daily = _budget(body, "daily_budget_amount_local_micro")
    total = _budget(body, "total_budget_amount_local_micro")
    campaign_daily = _budget(parent, "daily_budget_amount_local_micro")
    campaign_total = _budget(parent, "total_budget_amount_local_micro")
    if daily is not None:
        pace = daily
    elif campaign_daily is not None:
        pace = campaign_daily // max(1, siblings)
    elif total is not None:
        pace = total // 7
    else:
        pace = DEFAULT_DAILY_MICRO
    wanted = spend.carry + pace * fraction / 24 * seeded(0.8, 1.0, li.id, hour)
    caps = [wanted]
    if daily is not None:
        caps.append(daily - spend.today)
    if total is not None:
        caps.append(total - spend.total)
    if campaign_daily is not None:
        caps.append(campaign_daily - campaign_spend.today)
    if campaign_total is not None:
        caps.append(campaign_total - campaign_spend.total)
    budget = max(0.0, min(caps))
    pay_by, bid = _bid(body)
    reach_cap = int(li.audience * HOURLY_REACH * fraction)
    if pay_by == "IMPRESSION":
        impressions = min(int(budget * 1000 // bid), reach_cap)
        cost = impressions * bid // 1000
        billed = 0
    else:
        rate = ACTION_RATES[pay_by]
        billed = min(int(budget // bid), int(reach_cap * rate))
        cost = billed * bid
        impressions = int(billed / rate)
    spend.carry = max(0.0, wanted - cost) if budget >= wanted else 0.0
    spend.today += cost
    spend.total += cost
    campaign_spend.today += cost
    campaign_spend.total += cost
    if impressions == 0 and cost == 0:
        return None
    return metrics_for(li.id, body, pay_by, billed, cost, impressions)


def metrics_for(
    line_item_id: str, body: dict[str, Any], pay_by: str, billed: int, cost: int, impressions: int
) -> Vector:
    """An hour's vector from what was bought: fixed fractions of impressions and engagements."""
    objective = body.get("objective")
    organic = int(impressions * seeded(0.015, 0.035, "engagement rate", line_item_id))
    engagements = billed if pay_by == "ENGAGEMENT" else organic
    if pay_by in ("LINK_CLICK", "APP_CLICK", "FOLLOW"):
        engagements += billed
    url_clicks = billed if pay_by == "LINK_CLICK" else int(organic * 0.12)
    app_clicks = (
        billed if pay_by == "APP_CLICK" else (int(organic * 0.1) if objective in APP_OBJECTIVES else 0)
    )
    follows = billed if pay_by == "FOLLOW" else int(organic * 0.01)
    views = (billed if pay_by == "VIEW" else int(impressions * 0.15)) if objective in VIDEO_OBJECTIVES else 0
    # In BASE_METRICS order.
    return (
        cost,
        billed,
        impressions,
        engagements,
        int(organic * 0.4) + url_clicks + app_clicks,  # clicks
        url_clicks,
        app_clicks,
        int(organic * 0.3),  # likes
        int(organic * 0.06),  # retweets
        int(organic * 0.02),  # replies
        follows,
        int(organic * 0.08),  # card_engagements
        int(impressions * 0.7),  # qualified_impressions
        0,  # carousel_swipes
        views,  # video_total_views
        int(views * 0.8),
        int(views * 0.6),
        int(views * 0.45),
        int(views * 0.3),
        int(views * 0.01),  # video_cta_clicks
        int(impressions * 0.3) if views else 0,  # video_content_starts
        int(views * 0.7),  # video_3s100pct_views
        int(views * 0.5),
        int(views * 0.25),
        int(impressions * 0.12),  # media_views
        int(organic * 0.1),  # media_engagements
    )


# ---- splitting and adding ----------------------------------------------------------------------


def add(first: Vector | None, second: Vector) -> Vector:
    return second if first is None else tuple(a + b for a, b in zip(first, second, strict=True))


def split(total: Vector, weights: dict[str, float]) -> dict[str, Vector]:
    """Divide each figure among the weights in whole numbers that add up to it (largest remainder,
    ties by key)."""
    keys = sorted(k for k, w in weights.items() if w > 0)
    if not keys:
        return {}
    whole = sum(weights[k] for k in keys)
    columns: dict[str, list[int]] = {k: [] for k in keys}
    for value in total:
        exact = {k: value * weights[k] / whole for k in keys}
        parts = {k: int(exact[k]) for k in keys}
        left = value - sum(parts.values())
        for k in sorted(keys, key=lambda k: (-(exact[k] - parts[k]), k))[:left]:
            parts[k] += 1
        for k in keys:
            columns[k].append(parts[k])
    return {k: tuple(v) for k, v in columns.items()}


def creative_hours(line_item: LineItemPlan, delivery: Delivery) -> dict[str, dict[int, Vector]]:
    """Each promoted product's share of its line item's hours: by the time it served in the hour,
    weighted by a stable per-creative appeal."""
    out: dict[str, dict[int, Vector]] = {cid: {} for cid in line_item.creatives}
    for hour, vector in delivery.hours.items():
        served = intersect(delivery.serving, [(hour, hour + HOUR_MS)])
        weights = {
            cid: overlap(intersect(served, intervals), hour, hour + HOUR_MS)
            * seeded(0.5, 1.5, "creative", cid)
            for cid, intervals in line_item.creatives.items()
        }
        for cid, part in split(vector, weights).items():
            if any(part):
                out[cid][hour] = part
    return out


def placement_part(vector: Vector, placements: Sequence[str], placement: str) -> Vector:
    """The part of an hour served on one placement: the publisher network takes a fixed share when
    the line item runs on both, all of it when it runs there alone."""
    on_network = "PUBLISHER_NETWORK" in placements
    if placement not in ("PUBLISHER_NETWORK", "ALL_ON_TWITTER"):
        return (0,) * len(vector)  # SPOTLIGHT, TREND: products roost does not sell
    if not on_network:  # most line items: everything on the platform, nothing on the network
        return vector if placement == "ALL_ON_TWITTER" else (0,) * len(vector)
    share = 1.0 if len(placements) == 1 else PUBLISHER_SHARE
    network = tuple(int(v * share) for v in vector)
    if placement == "PUBLISHER_NETWORK":
        return network
    return tuple(v - n for v, n in zip(vector, network, strict=True))
