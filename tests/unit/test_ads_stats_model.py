"""The analytics delivery model and report arithmetic: pure functions, no server."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from roost.ads.stats_jobs import CONCURRENT_JOBS, PROCESSING_MS, schedule, status_at
from roost.ads.stats_model import (
    HOUR_MS,
    INDEX,
    CampaignPlan,
    LineItemPlan,
    Version,
    active,
    creative_hours,
    intersect,
    live_intervals,
    placement_part,
    simulate,
    split,
    union,
)
from roost.ads.stats_report import bucket_edges, bucketed, id_data, metrics

LA = ZoneInfo("America/Los_Angeles")
T0 = int(dt.datetime(2026, 3, 2, 8, 0, tzinfo=dt.UTC).timestamp() * 1000)  # LA midnight
DAY = 24 * HOUR_MS
SPEND = INDEX["billed_charge_local_micro"]


def _line_item(ident: str = "li1", **body: object) -> dict[str, object]:
    return {
        "id": ident,
        "entity_status": "ACTIVE",
        "pay_by": "ENGAGEMENT",
        "bid_amount_local_micro": 100_000,
        "daily_budget_amount_local_micro": 12_000_000,
        "placements": ["ALL_ON_TWITTER"],
        **body,
    }


def _campaign(*line_items: LineItemPlan, **body: object) -> CampaignPlan:
    return CampaignPlan(
        "c1", [Version(T0, {"id": "c1", "entity_status": "ACTIVE", **body})], list(line_items)
    )


def _plan(timeline: list[Version], ident: str = "li1", creatives: int = 2) -> LineItemPlan:
    return LineItemPlan(
        ident,
        timeline,
        {f"{ident}-pt{i}": [(T0, T0 + 30 * DAY)] for i in range(creatives)},
        [(T0, T0 + 30 * DAY)],
        10_000_000,
    )


def test_intervals() -> None:
    assert union([(5, 7), (1, 3), (2, 4)]) == [(1, 4), (5, 7)]
    assert intersect([(0, 10), (20, 30)], [(5, 25)]) == [(5, 10), (20, 25)]
    timeline = [
        Version(0, {"entity_status": "ACTIVE"}),
        Version(10, {"entity_status": "PAUSED"}),
        Version(20, {"entity_status": "ACTIVE", "end_time": "1970-01-01T00:00:00.025Z"}),
    ]
    assert live_intervals(timeline, 100, active) == [(0, 10), (20, 100)]
    assert live_intervals(timeline, 100, active, flight=True) == [(0, 10), (20, 25)]


def test_daily_budget_is_never_exceeded_and_hours_sum_to_days() -> None:
    plan = _plan([Version(T0, _line_item())])
    delivery = simulate(_campaign(plan), T0 + 3 * DAY, LA)["li1"]
    assert len(delivery.hours) == 72
    edges = bucket_edges(T0, T0 + 3 * DAY, "DAY", LA)
    days = bucketed(delivery.hours, edges)
    assert all(day is not None and 0 < day[SPEND] <= 12_000_000 for day in days)
    total = bucketed(delivery.hours, [T0, T0 + 3 * DAY])[0]
    assert total is not None
    assert total[SPEND] == sum(day[SPEND] for day in days if day is not None)


def test_total_budget_caps_lifetime_spend() -> None:
    plan = _plan([Version(T0, _line_item(total_budget_amount_local_micro=5_000_000))])
    delivery = simulate(_campaign(plan), T0 + 5 * DAY, LA)["li1"]
    spent = sum(vector[SPEND] for vector in delivery.hours.values())
    assert 4_800_000 < spent <= 5_000_000


def test_campaign_daily_budget_bounds_its_line_items_together() -> None:
    first = _plan([Version(T0, _line_item("a", daily_budget_amount_local_micro=None))], "a")
    second = _plan([Version(T0, _line_item("b", daily_budget_amount_local_micro=None))], "b")
    campaign = _campaign(first, second, daily_budget_amount_local_micro=6_000_000)
    deliveries = simulate(campaign, T0 + DAY, LA)
    spent = sum(v[SPEND] for d in deliveries.values() for v in d.hours.values())
    assert 0 < spent <= 6_000_000


def test_nothing_while_paused_or_before_creation_or_without_creatives() -> None:
    timeline = [
        Version(T0 + HOUR_MS // 2, _line_item()),
        Version(T0 + 5 * HOUR_MS, _line_item(entity_status="PAUSED")),
        Version(T0 + 10 * HOUR_MS, _line_item()),
    ]
    delivery = simulate(_campaign(_plan(timeline)), T0 + 12 * HOUR_MS, LA)["li1"]
    hours = sorted((h - T0) // HOUR_MS for h in delivery.hours)
    assert hours == [0, 1, 2, 3, 4, 10, 11]
    half, full = delivery.hours[T0], delivery.hours[T0 + HOUR_MS]
    assert half[INDEX["impressions"]] < full[INDEX["impressions"]]  # half an hour served
    bare = simulate(_campaign(_plan([Version(T0, _line_item())], creatives=0)), T0 + DAY, LA)
    assert bare["li1"].hours == {}


def test_audience_caps_impressions() -> None:
    plan = LineItemPlan("li1", [Version(T0, _line_item())], {"pt": [(T0, T0 + DAY)]}, [(T0, T0 + DAY)], 1_000)
    delivery = simulate(_campaign(plan), T0 + DAY, LA)["li1"]
    assert all(v[INDEX["impressions"]] <= 20 for v in delivery.hours.values())


def test_split_keeps_totals_and_creatives_add_up() -> None:
    parts = split((10, 7, 0), {"a": 1.0, "b": 1.0, "c": 1.0})
    assert [sum(column) for column in zip(*parts.values(), strict=True)] == [10, 7, 0]
    plan = _plan([Version(T0, _line_item())], creatives=3)
    delivery = simulate(_campaign(plan), T0 + 6 * HOUR_MS, LA)["li1"]
    shares = creative_hours(plan, delivery)
    for hour, vector in delivery.hours.items():
        summed = [sum(s[hour][i] for s in shares.values() if hour in s) for i in range(len(vector))]
        assert summed == list(vector)


def test_placements() -> None:
    vector = (100, 10)
    assert placement_part(vector, ["ALL_ON_TWITTER"], "PUBLISHER_NETWORK") == (0, 0)
    both = ["ALL_ON_TWITTER", "PUBLISHER_NETWORK"]
    network = placement_part(vector, both, "PUBLISHER_NETWORK")
    timeline = placement_part(vector, both, "ALL_ON_TWITTER")
    assert network[0] > 0 and network[0] + timeline[0] == 100
    assert placement_part(vector, ["PUBLISHER_NETWORK"], "PUBLISHER_NETWORK") == vector
    assert placement_part(vector, both, "SPOTLIGHT") == (0, 0)


def test_report_shapes() -> None:
    plan = _plan([Version(T0, _line_item())])
    hours = simulate(_campaign(plan), T0 + 2 * HOUR_MS, LA)["li1"].hours
    edges = bucket_edges(T0, T0 + 4 * HOUR_MS, "HOUR", LA)
    shown = metrics(bucketed(hours, edges), ["ENGAGEMENT", "WEB_CONVERSION"], "LINE_ITEM")
    assert shown["impressions"] is not None and len(shown["impressions"]) == 4
    assert shown["impressions"][2:] == [0, 0]
    assert shown["carousel_swipes"] is None and shown["conversion_custom"] is None
    top = metrics(bucketed(hours, edges), ["ENGAGEMENT"], "ACCOUNT")
    assert set(top) == {"engagements", "impressions", "retweets", "replies", "likes", "follows"}
    segmented = id_data(hours, edges, ["ENGAGEMENT"], "LINE_ITEM", "AGE")
    assert len(segmented) == 5
    assert sum(sum(s["metrics"]["impressions"] or []) for s in segmented) == sum(shown["impressions"])
    assert len(bucket_edges(T0, T0 + 2 * DAY, "DAY", LA)) == 3


def test_jobs_queue_beyond_the_concurrency_limit() -> None:
    jobs = [{"id": str(i), "created_ms": 1_000} for i in range(CONCURRENT_JOBS + 1)]
    timings = schedule(jobs)
    assert status_at(timings["0"], 1_000) == "PROCESSING"
    last = timings[str(CONCURRENT_JOBS)]
    assert status_at(last, 1_000) == "QUEUED"
    assert last.start_ms == 1_000 + PROCESSING_MS
    assert status_at(last, 1_000 + 2 * PROCESSING_MS) == "SUCCESS"
    jobs[0]["cancelled_ms"] = 1_500
    timings = schedule(jobs)
    assert status_at(timings["0"], 2_000) == "CANCELLED"
    assert timings[str(CONCURRENT_JOBS)].start_ms == 1_500  # the cancelled job's slot
