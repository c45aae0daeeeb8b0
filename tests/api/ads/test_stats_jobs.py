"""Active entities and asynchronous stats jobs: the rules, the job lifecycle on roost's clock
(PROCESSING, SUCCESS, CANCELLED), and the gzip result file the job's url serves."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from typing import Any

import httpx
import pytest
from tests.api.ads.helpers import AdsClient, error_codes
from tests.api.ads.own_server import own_server_fixtures
from tests.api.ads.stats_support import HOUR, Advertiser, advance, delivering_advertiser, floor_hour, stamp
from tests.support.server import LiveServer

# Moves the clock by hours: a server of its own (tests/api/ads/own_server.py).
server, credentials = own_server_fixtures("stats_jobs")


@pytest.fixture()
def advertiser(server: LiveServer, credentials: dict[str, Any], ads: AdsClient) -> Advertiser:
    made = delivering_advertiser(server, credentials, ads, line_items=2, posts=1)
    advance(server, 5 * 3600)
    return made


def _window(advertiser: Advertiser, days: int = 1) -> tuple[str, str]:
    start = floor_hour(advertiser.started) - HOUR
    return stamp(start), stamp(start + days * 24 * HOUR)


def test_active_entities_name_what_served(ads: AdsClient, advertiser: Advertiser) -> None:
    start, end = _window(advertiser)
    path = f"/stats/accounts/{advertiser.account_id}/active_entities"
    response = ads.get(path, {"entity": "LINE_ITEM", "start_time": start, "end_time": end})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["request"]["params"] == {
        "account_id": advertiser.account_id,
        "entity": "LINE_ITEM",
        "start_time": start,
        "end_time": end,
    }
    assert "next_cursor" not in body
    assert sorted(item["entity_id"] for item in body["data"]) == sorted(advertiser.line_item_ids)
    for item in body["data"]:
        assert set(item) == {"entity_id", "activity_start_time", "activity_end_time", "placements"}
        assert item["placements"] == ["ALL_ON_TWITTER"]
        assert start <= item["activity_start_time"] < item["activity_end_time"] < end
    tweets = ads.get(
        path,
        {
            "entity": "PROMOTED_TWEET",
            "start_time": start,
            "end_time": end,
            "line_item_ids": advertiser.line_item_ids[0],
        },
    )
    assert [item["entity_id"] for item in tweets.json()["data"]] == advertiser.promoted_tweet_ids[:1]
    campaigns = ads.get(path, {"entity": "CAMPAIGN", "start_time": start, "end_time": end})
    assert [item["entity_id"] for item in campaigns.json()["data"]] == [advertiser.campaign_id]
    earlier = ads.get(
        path,
        {
            "entity": "LINE_ITEM",
            "start_time": stamp(floor_hour(advertiser.started) - 48 * HOUR),
            "end_time": start,
        },
    )
    assert earlier.status_code == 200 and earlier.json()["data"] == []


def test_active_entities_rules(ads: AdsClient, advertiser: Advertiser) -> None:
    path = f"/stats/accounts/{advertiser.account_id}/active_entities"
    start, end = _window(advertiser)
    both = ads.get(
        path,
        {
            "entity": "LINE_ITEM",
            "start_time": start,
            "end_time": end,
            "campaign_ids": "a",
            "line_item_ids": "b",
        },
    )
    assert both.status_code == 400
    assert both.json()["errors"][0]["code"] == "EXCLUSIVE_PARAMETERS"
    begin = floor_hour(advertiser.started)
    too_long = ads.get(
        path, {"entity": "LINE_ITEM", "start_time": stamp(begin - 92 * 24 * HOUR), "end_time": stamp(begin)}
    )
    assert too_long.status_code == 400 and error_codes(too_long) == ["INVALID_TIME_WINDOW"]
    account_entity = ads.get(path, {"entity": "ACCOUNT", "start_time": start, "end_time": end})
    assert account_entity.status_code == 400 and error_codes(account_entity) == ["INVALID_PARAMETER"]


def _create_job(ads: AdsClient, advertiser: Advertiser, **extra: Any) -> httpx.Response:
    start, end = _window(advertiser, days=2)
    return ads.post(
        f"/stats/jobs/accounts/{advertiser.account_id}",
        {
            "entity": "LINE_ITEM",
            "entity_ids": ",".join(advertiser.line_item_ids),
            "start_time": start,
            "end_time": end,
            "granularity": "HOUR",
            "metric_groups": "ENGAGEMENT,BILLING",
            "placement": "ALL_ON_TWITTER",
            **extra,
        },
    )


def test_job_lifecycle_and_result_file(server: LiveServer, ads: AdsClient, advertiser: Advertiser) -> None:
    created = _create_job(ads, advertiser)
    assert created.status_code == 200, created.text
    job = created.json()["data"]
    assert list(job) == [
        "start_time",
        "segmentation_type",
        "url",
        "id_str",
        "entity_ids",
        "end_time",
        "country",
        "placement",
        "id",
        "expires_at",
        "account_id",
        "status",
        "granularity",
        "entity",
        "created_at",
        "platform",
        "updated_at",
        "metric_groups",
    ]
    assert job["status"] == "PROCESSING" and job["url"] is None and job["expires_at"] is None
    assert isinstance(job["id"], int) and job["id_str"] == str(job["id"])
    assert "account_id" not in created.json()["request"]["params"]
    path = f"/stats/jobs/accounts/{advertiser.account_id}"
    listed = ads.get(path, {"job_ids": job["id_str"]})
    assert listed.status_code == 200, listed.text
    assert listed.json()["request"]["params"] == {"job_ids": [job["id"]]}
    assert listed.json()["data"][0]["status"] == "PROCESSING"
    assert "next_cursor" in listed.json()
    advance(server, 5)
    done = ads.get(path, {"job_ids": job["id_str"]}).json()["data"][0]
    assert done["status"] == "SUCCESS"
    assert done["url"].startswith(server.base_url + "/advertiser-api-async-analytics/")
    assert done["url"].endswith(".json.gz")
    finished = dt.datetime.fromisoformat(done["updated_at"].replace("Z", "+00:00"))
    expires = dt.datetime.fromisoformat(done["expires_at"].replace("Z", "+00:00"))
    assert expires - finished == dt.timedelta(days=2)
    download = httpx.get(done["url"], timeout=30)
    assert download.status_code == 200
    assert download.headers["content-type"] == "application/gzip"
    document = json.loads(gzip.decompress(download.content))
    synchronous = ads.get(
        f"/stats/accounts/{advertiser.account_id}",
        {
            "entity": "LINE_ITEM",
            "entity_ids": ",".join(advertiser.line_item_ids),
            "start_time": done["start_time"],
            "end_time": done["end_time"],
            "granularity": "HOUR",
            "metric_groups": "ENGAGEMENT,BILLING",
            "placement": "ALL_ON_TWITTER",
        },
    ).json()
    assert document["data_type"] == "stats" and document["time_series_length"] == 48
    assert document["request"] == synchronous["request"]
    # The hours before the job finished are the same now: the file is the model as of then.
    start = dt.datetime.fromisoformat(done["start_time"].replace("Z", "+00:00"))
    settled = int((floor_hour(finished) - start) / HOUR)
    assert settled > 0
    for filed, live in zip(document["data"], synchronous["data"], strict=True):
        assert filed["id"] == live["id"]
        for name, values in filed["id_data"][0]["metrics"].items():
            now_values = live["id_data"][0]["metrics"][name]
            assert (values or [0] * 48)[:settled] == (now_values or [0] * 48)[:settled], name
    sandboxed = httpx.get(done["url"].replace("/advertiser-api", "/sandbox/advertiser-api"), timeout=30)
    assert sandboxed.content == download.content
    assert httpx.get(done["url"].replace(".json.gz", "x.json.gz"), timeout=30).status_code == 404


def test_cancelling_a_job(server: LiveServer, ads: AdsClient, advertiser: Advertiser) -> None:
    job = _create_job(ads, advertiser).json()["data"]
    path = f"/stats/jobs/accounts/{advertiser.account_id}/{job['id_str']}"
    cancelled = ads.delete(path)
    assert cancelled.status_code == 200, cancelled.text
    body = cancelled.json()
    assert body["data_type"] == "job"
    assert body["data"]["status"] == "CANCELLED" and body["data"]["url"] is None
    assert body["request"]["params"] == {"account_id": advertiser.account_id, "job_id": job["id"]}
    advance(server, 5)
    listed = ads.get(f"/stats/jobs/accounts/{advertiser.account_id}", {"job_ids": job["id_str"]})
    assert listed.json()["data"][0]["status"] == "CANCELLED"
    missing = ads.delete(f"/stats/jobs/accounts/{advertiser.account_id}/123")
    assert missing.status_code == 404 and error_codes(missing) == ["NOT_FOUND"]


def test_job_rules(ads: AdsClient, advertiser: Advertiser) -> None:
    begin = floor_hour(advertiser.started)
    longest = _create_job(ads, advertiser, start_time=stamp(begin - 90 * 24 * HOUR), end_time=stamp(begin))
    assert longest.status_code == 200, longest.text  # 90 days: beyond the synchronous seven
    too_long = _create_job(ads, advertiser, start_time=stamp(begin - 91 * 24 * HOUR), end_time=stamp(begin))
    assert too_long.status_code == 400 and error_codes(too_long) == ["INVALID_TIME_WINDOW"]
    segmented_long = _create_job(
        ads,
        advertiser,
        start_time=stamp(begin - 46 * 24 * HOUR),
        end_time=stamp(begin),
        segmentation_type="GENDER",
    )
    assert segmented_long.status_code == 400 and error_codes(segmented_long) == ["INVALID_TIME_WINDOW"]
    metros = _create_job(ads, advertiser, segmentation_type="METROS")
    assert metros.status_code == 400
    assert metros.json()["errors"][0] == {
        "code": "MISSING_PARAMETER",
        "message": '"country" is a required parameter',
        "parameter": "country",
    }
    keywords = _create_job(ads, advertiser, segmentation_type="KEYWORDS")
    assert keywords.status_code == 400 and error_codes(keywords) == ["INVALID_PARAMETER"]


def test_segmented_job_splits_by_gender(server: LiveServer, ads: AdsClient, advertiser: Advertiser) -> None:
    job = _create_job(ads, advertiser, segmentation_type="GENDER", granularity="TOTAL").json()["data"]
    assert job["segmentation_type"] == "GENDER"
    advance(server, 5)
    done = ads.get(f"/stats/jobs/accounts/{advertiser.account_id}", {"job_ids": job["id_str"]}).json()[
        "data"
    ][0]
    document = json.loads(gzip.decompress(httpx.get(done["url"], timeout=30).content))
    first = document["data"][0]
    segments = [item["segment"] for item in first["id_data"]]
    assert segments == [
        {"segment_name": "Male", "segment_value": "1"},
        {"segment_name": "Female", "segment_value": "2"},
    ]
    impressions = sum(item["metrics"]["impressions"][0] for item in first["id_data"])
    unsegmented = ads.get(
        f"/stats/accounts/{advertiser.account_id}",
        {
            "entity": "LINE_ITEM",
            "entity_ids": first["id"],
            "start_time": done["start_time"],
            "end_time": done["end_time"],
            "granularity": "TOTAL",
            "metric_groups": "ENGAGEMENT",
            "placement": "ALL_ON_TWITTER",
        },
    ).json()
    assert [impressions] == unsegmented["data"][0]["id_data"][0]["metrics"]["impressions"]
