"""Synchronous analytics over a delivering advertiser: the figures of the delivery model agree
across granularities, entities and placements, and follow the entities' status and budgets."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from tests.api.ads.helpers import AdsClient
from tests.api.ads.own_server import own_server_fixtures
from tests.api.ads.stats_support import (
    DAILY_BUDGET,
    HOUR,
    Advertiser,
    advance,
    delivering_advertiser,
    floor_hour,
    server_now,
    stamp,
)
from tests.support.server import LiveServer

# Moves the clock by hours: a server of its own (tests/api/ads/own_server.py).
server, credentials = own_server_fixtures("stats_delivery")

ALL_GROUPS = "ENGAGEMENT,BILLING,VIDEO,MEDIA"


@pytest.fixture()
def advertiser(server: LiveServer, credentials: dict[str, Any], ads: AdsClient) -> Advertiser:
    made = delivering_advertiser(server, credentials, ads)
    advance(server, 30 * 3600)  # thirty hours of delivery
    return made


def stats(ads: AdsClient, account_id: str, **params: Any) -> dict[str, Any]:
    sent = {"placement": "ALL_ON_TWITTER", "metric_groups": ALL_GROUPS, **params}
    response = ads.get(f"/stats/accounts/{account_id}", sent)
    assert response.status_code == 200, response.text
    return response.json()


def series(body: dict[str, Any], ident: str, metric: str) -> list[int] | None:
    for item in body["data"]:
        if item["id"] == ident:
            value: list[int] | None = item["id_data"][0]["metrics"][metric]
            return value
    raise AssertionError(f"{ident} not in {[item['id'] for item in body['data']]}")


def total(values: list[int] | None) -> int:
    return sum(values or [])


def window(advertiser: Advertiser) -> tuple[str, str]:
    start = floor_hour(advertiser.started)
    return stamp(start), stamp(start + 2 * dt.timedelta(days=1))


def test_hours_days_and_total_agree(ads: AdsClient, advertiser: Advertiser) -> None:
    line_item = advertiser.line_item_ids[0]
    start, end = window(advertiser)
    common = {"entity": "LINE_ITEM", "entity_ids": line_item, "start_time": start, "end_time": end}
    hourly = stats(ads, advertiser.account_id, granularity="HOUR", **common)
    overall = stats(ads, advertiser.account_id, granularity="TOTAL", **common)
    assert hourly["data_type"] == "stats" and hourly["time_series_length"] == 48
    assert overall["time_series_length"] == 1
    for metric in ("impressions", "engagements", "billed_charge_local_micro", "likes", "clicks"):
        hours = series(hourly, line_item, metric)
        assert hours is not None and len(hours) == 48
        assert series(overall, line_item, metric) == [sum(hours)], metric
    spend = series(hourly, line_item, "billed_charge_local_micro")
    assert spend is not None and total(spend) > 0
    # Nothing before the line item existed, nothing after the present (30 hours in).
    assert all(value == 0 for value in spend[31:])
    assert series(hourly, line_item, "video_total_views") is None  # no activity: null, not zeros


def test_day_buckets_follow_the_account_midnight(ads: AdsClient, advertiser: Advertiser) -> None:
    line_item = advertiser.line_item_ids[0]
    local = advertiser.started.astimezone(dt.timezone(dt.timedelta(hours=-8)))  # LA, give or take DST
    first_day = local.date() - dt.timedelta(days=1)
    days = [first_day + dt.timedelta(days=i) for i in range(4)]
    daily = stats(
        ads,
        advertiser.account_id,
        granularity="DAY",
        entity="LINE_ITEM",
        entity_ids=line_item,
        start_time=days[0].isoformat(),  # date-only: the account's midnight
        end_time=days[-1].isoformat(),
    )
    assert daily["time_series_length"] == 3
    echo = daily["request"]["params"]
    assert echo["start_time"][11:] in ("07:00:00Z", "08:00:00Z")  # Los Angeles midnight in UTC
    hourly = stats(
        ads,
        advertiser.account_id,
        granularity="HOUR",
        entity="LINE_ITEM",
        entity_ids=line_item,
        start_time=echo["start_time"],
        end_time=echo["end_time"],
    )
    spend_days = series(daily, line_item, "billed_charge_local_micro")
    assert spend_days is not None
    assert sum(spend_days) == total(series(hourly, line_item, "billed_charge_local_micro"))
    assert all(day <= DAILY_BUDGET for day in spend_days)  # never above the daily budget


def test_campaign_account_and_instrument_are_sums(ads: AdsClient, advertiser: Advertiser) -> None:
    start, end = window(advertiser)
    common = {"start_time": start, "end_time": end, "granularity": "TOTAL"}
    items = stats(
        ads,
        advertiser.account_id,
        entity="LINE_ITEM",
        entity_ids=",".join(advertiser.line_item_ids),
        **common,
    )
    campaign = stats(
        ads, advertiser.account_id, entity="CAMPAIGN", entity_ids=advertiser.campaign_id, **common
    )
    for metric in ("impressions", "billed_charge_local_micro", "engagements"):
        summed = sum(total(series(items, li, metric)) for li in advertiser.line_item_ids)
        assert series(campaign, advertiser.campaign_id, metric) == [summed]
    account = stats(
        ads,
        advertiser.account_id,
        entity="ACCOUNT",
        entity_ids=advertiser.account_id,
        metric_groups="ENGAGEMENT",
        **common,
    )
    metrics = account["data"][0]["id_data"][0]["metrics"]
    assert set(metrics) == {"engagements", "impressions", "retweets", "replies", "likes", "follows"}
    assert metrics["impressions"] == series(campaign, advertiser.campaign_id, "impressions")
    instrument = stats(
        ads,
        advertiser.account_id,
        entity="FUNDING_INSTRUMENT",
        entity_ids=advertiser.funding_instrument_id,
        metric_groups="ENGAGEMENT,BILLING",
        **common,
    )
    assert series(instrument, advertiser.funding_instrument_id, "billed_charge_local_micro") == series(
        campaign, advertiser.campaign_id, "billed_charge_local_micro"
    )


def test_promoted_tweets_split_their_line_item(ads: AdsClient, advertiser: Advertiser) -> None:
    start, end = window(advertiser)
    line_item = advertiser.line_item_ids[0]
    common = {"start_time": start, "end_time": end, "granularity": "HOUR"}
    parent = stats(ads, advertiser.account_id, entity="LINE_ITEM", entity_ids=line_item, **common)
    ours = advertiser.promoted_tweet_ids[:2]  # the first line item's two promoted posts
    tweets = stats(ads, advertiser.account_id, entity="PROMOTED_TWEET", entity_ids=",".join(ours), **common)
    for metric in ("impressions", "billed_charge_local_micro"):
        parts = [series(tweets, pt, metric) or [0] * 48 for pt in ours]
        assert [a + b for a, b in zip(*parts, strict=True)] == series(parent, line_item, metric)
        assert all(total(part) > 0 for part in parts)


def test_publisher_network_placement_has_nothing_for_timeline_line_items(
    ads: AdsClient, advertiser: Advertiser
) -> None:
    start, end = window(advertiser)
    body = stats(
        ads,
        advertiser.account_id,
        entity="LINE_ITEM",
        entity_ids=advertiser.line_item_ids[0],
        start_time=start,
        end_time=end,
        granularity="TOTAL",
        placement="PUBLISHER_NETWORK",
    )
    assert all(value is None for value in body["data"][0]["id_data"][0]["metrics"].values())


def test_pausing_stops_delivery_and_the_past_stays(
    server: LiveServer, ads: AdsClient, advertiser: Advertiser
) -> None:
    line_item = advertiser.line_item_ids[0]
    start, end = window(advertiser)
    common = {"entity": "LINE_ITEM", "entity_ids": line_item, "start_time": start, "end_time": end}
    before = stats(ads, advertiser.account_id, granularity="HOUR", **common)
    paused = ads.put(f"/accounts/{advertiser.account_id}/line_items/{line_item}", {"entity_status": "PAUSED"})
    assert paused.status_code == 200, paused.text
    paused_at = server_now(server)
    advance(server, 6 * 3600)
    after = stats(ads, advertiser.account_id, granularity="HOUR", **common)
    index = int((floor_hour(paused_at) - floor_hour(advertiser.started)) / HOUR)
    spend_before = series(before, line_item, "billed_charge_local_micro")
    spend_after = series(after, line_item, "billed_charge_local_micro")
    assert spend_before is not None and spend_after is not None
    assert spend_after[:index] == spend_before[:index]  # the past does not change
    assert all(value == 0 for value in spend_after[index + 1 :])  # nothing after the pause


def test_sandbox_accounts_never_serve(
    sandbox: AdsClient, account: dict[str, Any], server: LiveServer
) -> None:
    start = floor_hour(server_now(server))
    body = sandbox.get(
        f"/stats/accounts/{account['id']}",
        {
            "entity": "ACCOUNT",
            "entity_ids": account["id"],
            "start_time": stamp(start - 24 * HOUR),
            "end_time": stamp(start + HOUR),
            "granularity": "TOTAL",
            "metric_groups": "ENGAGEMENT",
            "placement": "ALL_ON_TWITTER",
        },
    )
    assert body.status_code == 200, body.text
    assert body.json()["data"] == [
        {
            "id": account["id"],
            "id_data": [
                {
                    "segment": None,
                    "metrics": dict.fromkeys(
                        ["engagements", "impressions", "retweets", "replies", "likes", "follows"]
                    ),
                }
            ],
        }
    ]
