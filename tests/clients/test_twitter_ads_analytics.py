"""The official python ads SDK's analytics against roost, on API versions 11 and 12: `all_stats`
and `stats` (synchronous), `queue_async_stats_job`, `async_stats_job_result` and
`async_stats_job_data` (the signed download and gunzip of the job's url), and `active_entities`.
The advertiser is a fresh production account (the sandbox never serves) whose line items have
served for a day of roost's clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from tests.api.ads.helpers import AdsClient, demo_ads_client
from tests.api.ads.stats_support import HOUR, Advertiser, advance, delivering_advertiser, floor_hour, stamp
from tests.clients.ads_stats_scenario import run
from tests.clients.ads_v12 import run_v12
from tests.support.server import LiveServer
from twitter_ads.client import Client
from twitter_ads.error import BadRequest
from twitter_ads.http import Request

pytestmark = pytest.mark.clients


@pytest.fixture()
def ads(server: LiveServer, credentials: dict[str, Any]) -> Iterator[AdsClient]:
    client = demo_ads_client(server.base_url, credentials)
    yield client
    client.close()


@pytest.fixture()
def advertiser(server: LiveServer, credentials: dict[str, Any], ads: AdsClient) -> Advertiser:
    made = delivering_advertiser(server, credentials, ads, line_items=2, posts=2)
    advance(server, 24 * 3600)
    return made


@pytest.fixture()
def production(server: LiveServer, credentials: dict[str, Any]) -> Iterator[Client]:
    saved = (Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN)
    Request._DEFAULT_DOMAIN = server.base_url
    Request._SANDBOX_DOMAIN = server.base_url + "/sandbox"
    try:
        yield Client(
            credentials["consumer_key"],
            credentials["consumer_secret"],
            credentials["access_token"],
            credentials["access_token_secret"],
        )
    finally:
        Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN = saved


def _window(advertiser: Advertiser) -> tuple[str, str]:
    start = floor_hour(advertiser.started) - HOUR
    return stamp(start), stamp(start + 48 * HOUR)


def _check(observed: dict[str, Any], advertiser: Advertiser) -> None:
    hourly = {item["id"]: item["id_data"][0]["metrics"] for item in observed["hourly"]}
    total = {item["id"]: item["id_data"][0]["metrics"] for item in observed["total"]}
    assert sorted(hourly) == sorted(advertiser.line_item_ids)
    for line_item in advertiser.line_item_ids:
        spend = hourly[line_item]["billed_charge_local_micro"]
        assert len(spend) == 48 and sum(spend) > 0
        assert total[line_item]["billed_charge_local_micro"] == [sum(spend)]
        assert total[line_item]["impressions"] == [sum(hourly[line_item]["impressions"])]
    first = advertiser.line_item_ids[0]
    assert observed["single"][0]["id_data"][0]["metrics"] == total[first]
    campaign = observed["campaign"][0]["id_data"][0]["metrics"]
    assert campaign["impressions"] == [sum(total[li]["impressions"][0] for li in advertiser.line_item_ids)]
    tweets = observed["tweets"]
    assert sorted(item["id"] for item in tweets) == sorted(advertiser.promoted_tweet_ids)
    assert (
        sum(item["id_data"][0]["metrics"]["impressions"][0] for item in tweets) == campaign["impressions"][0]
    )
    assert observed["queued"]["status"] == "PROCESSING" and observed["queued"]["url"] is None
    finished = observed["finished"]
    assert finished["id"] == observed["queued"]["id"] and finished["status"] == "SUCCESS"
    assert finished["url"].endswith(".json.gz")
    document = observed["document"]
    assert document["data_type"] == "stats" and document["time_series_length"] == 48
    filed = {item["id"]: item["id_data"][0]["metrics"] for item in document["data"]}
    assert sorted(filed) == sorted(advertiser.line_item_ids)
    settled = 21  # hours of the window (which starts an hour before the first) long over when the job ran
    for line_item in advertiser.line_item_ids:
        assert filed[line_item]["impressions"][:settled] == hourly[line_item]["impressions"][:settled]
    assert sorted(item["entity_id"] for item in observed["active"]) == sorted(advertiser.line_item_ids)
    assert all(item["placements"] == ["ALL_ON_TWITTER"] for item in observed["active"])


def test_analytics_on_version_11(server: LiveServer, production: Client, advertiser: Advertiser) -> None:
    start, end = _window(advertiser)
    observed = run(
        production,
        server.base_url,
        advertiser.account_id,
        advertiser.line_item_ids,
        advertiser.promoted_tweet_ids,
        start,
        end,
    )
    _check(observed, advertiser)


def test_analytics_on_version_12(
    server: LiveServer, credentials: dict[str, Any], advertiser: Advertiser
) -> None:
    start, end = _window(advertiser)
    observed = run_v12(
        server.base_url,
        credentials,
        f"""
        from tests.clients.ads_stats_scenario import run
        dump(run(client(sandbox=False), {server.base_url!r}, {advertiser.account_id!r},
                 {advertiser.line_item_ids!r}, {advertiser.promoted_tweet_ids!r}, {start!r}, {end!r}))
        """,
    )
    _check(observed, advertiser)


def test_day_granularity_sends_dates(production: Client, advertiser: Advertiser) -> None:
    from twitter_ads.campaign import LineItem
    from twitter_ads.enum import GRANULARITY, METRIC_GROUP

    account = production.accounts(advertiser.account_id)
    day = advertiser.started.date()
    stats = LineItem.all_stats(
        account,
        advertiser.line_item_ids,
        [METRIC_GROUP.BILLING],
        granularity=GRANULARITY.DAY,
        start_time=dt.datetime.combine(day - dt.timedelta(days=1), dt.time()),
        end_time=dt.datetime.combine(day + dt.timedelta(days=2), dt.time()),
    )
    for item in stats:
        spend = item["id_data"][0]["metrics"]["billed_charge_local_micro"]
        assert len(spend) == 3 and sum(spend) > 0


def test_total_with_minutes_is_refused(production: Client, advertiser: Advertiser) -> None:
    from twitter_ads.campaign import LineItem
    from twitter_ads.enum import GRANULARITY, METRIC_GROUP

    account = production.accounts(advertiser.account_id)
    with pytest.raises(BadRequest) as raised:
        # The SDK's default window ends at the present, minutes and all, for TOTAL.
        LineItem.all_stats(
            account,
            advertiser.line_item_ids,
            [METRIC_GROUP.ENGAGEMENT],
            granularity=GRANULARITY.TOTAL,
            end_time=dt.datetime(2026, 1, 1, 10, 30),
        )
    assert raised.value.details[0]["code"] == "INVALID_TIME_WINDOW"
