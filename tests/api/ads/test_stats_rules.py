"""The synchronous analytics request rules and their errors: required parameters, the id limit, whole
hours, the 7-day window, account-midnight days, metric groups by entity, unknown ids."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
from tests.api.ads.helpers import AdsClient, error_codes
from tests.api.ads.stats_support import HOUR, floor_hour, server_now, stamp
from tests.support.server import LiveServer

DEMO = "18ce54d4x5t"


def _params(server: LiveServer, **overrides: Any) -> dict[str, Any]:
    start = floor_hour(server_now(server)) - 24 * HOUR
    return {
        "entity": "ACCOUNT",
        "entity_ids": DEMO,
        "start_time": stamp(start),
        "end_time": stamp(start + 24 * HOUR),
        "granularity": "HOUR",
        "metric_groups": "ENGAGEMENT",
        "placement": "ALL_ON_TWITTER",
        **overrides,
    }


def test_every_parameter_is_required(ads: AdsClient) -> None:
    response = ads.get(f"/stats/accounts/{DEMO}")
    assert response.status_code == 400
    problems = {item["parameter"]: item["code"] for item in response.json()["errors"]}
    assert problems == dict.fromkeys(
        ["entity", "entity_ids", "start_time", "end_time", "granularity", "metric_groups", "placement"],
        "MISSING_PARAMETER",
    )


def test_answer_shape_and_echo(ads: AdsClient, server: LiveServer) -> None:
    sent = _params(server)
    response = ads.get(f"/stats/accounts/{DEMO}", sent)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data_type"] == "stats" and body["time_series_length"] == 24
    assert body["request"]["params"] == {
        "start_time": sent["start_time"],
        "segmentation_type": None,
        "entity_ids": [DEMO],
        "end_time": sent["end_time"],
        "country": None,
        "placement": "ALL_ON_TWITTER",
        "granularity": "HOUR",
        "entity": "ACCOUNT",
        "platform": None,
        "metric_groups": ["ENGAGEMENT"],
    }
    assert "next_cursor" not in body
    assert body["data"][0]["id"] == DEMO and body["data"][0]["id_data"][0]["segment"] is None


def test_at_most_twenty_entity_ids(ads: AdsClient, server: LiveServer) -> None:
    ids = ",".join(f"id{i}" for i in range(21))
    response = ads.get(f"/stats/accounts/{DEMO}", _params(server, entity="LINE_ITEM", entity_ids=ids))
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "INVALID_PARAMETER",
            "message": "A maximum of 20 items can be provided for entity_ids",
            "parameter": "entity_ids",
        }
    ]


def test_times_must_be_whole_hours(ads: AdsClient, server: LiveServer) -> None:
    sent = _params(server)
    sent["start_time"] = sent["start_time"][:14] + "30:00Z"
    response = ads.get(f"/stats/accounts/{DEMO}", sent)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"code": "INVALID_TIME_WINDOW", "message": "Time cannot be fractional hours", "parameter": ""}
    ]


def test_window_of_at_most_seven_days_and_an_hour(ads: AdsClient, server: LiveServer) -> None:
    start = floor_hour(server_now(server)) - 10 * 24 * HOUR
    longest = ads.get(
        f"/stats/accounts/{DEMO}",
        _params(server, start_time=stamp(start), end_time=stamp(start + 7 * 24 * HOUR + HOUR)),
    )
    assert longest.status_code == 200, longest.text
    assert longest.json()["time_series_length"] == 169
    too_long = ads.get(
        f"/stats/accounts/{DEMO}",
        _params(server, start_time=stamp(start), end_time=stamp(start + 7 * 24 * HOUR + 2 * HOUR)),
    )
    assert too_long.status_code == 400
    assert too_long.json()["errors"] == [
        {
            "code": "INVALID_TIME_WINDOW",
            "message": "The end_time can be a maximum of 7.days+1.hours after the start_time",
            "parameter": "",
        }
    ]
    backwards = ads.get(
        f"/stats/accounts/{DEMO}", _params(server, start_time=stamp(start + HOUR), end_time=stamp(start))
    )
    assert backwards.status_code == 400
    assert error_codes(backwards) == ["INVALID_TIME_WINDOW"]


def test_day_granularity_needs_the_account_midnight(ads: AdsClient, server: LiveServer) -> None:
    day = server_now(server).date() - dt.timedelta(days=3)
    utc_midnight = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
    response = ads.get(
        f"/stats/accounts/{DEMO}",
        _params(
            server,
            granularity="DAY",
            start_time=stamp(utc_midnight),
            end_time=stamp(utc_midnight + 48 * HOUR),
        ),
    )
    assert response.status_code == 400
    message = "Expect time to be midnight in the account's local timezone for day granularity"
    assert (
        response.json()["errors"]
        == [{"code": "INVALID_TIME_WINDOW", "message": message, "parameter": ""}] * 2
    )
    dates = ads.get(
        f"/stats/accounts/{DEMO}",
        _params(
            server,
            granularity="DAY",
            start_time=day.isoformat(),
            end_time=(day + dt.timedelta(days=2)).isoformat(),
        ),
    )
    assert dates.status_code == 200, dates.text
    assert dates.json()["time_series_length"] == 2
    assert dates.json()["request"]["params"]["start_time"][11:] in ("07:00:00Z", "08:00:00Z")


def test_metric_groups_by_entity(ads: AdsClient, server: LiveServer) -> None:
    account = ads.get(f"/stats/accounts/{DEMO}", _params(server, metric_groups="ENGAGEMENT,BILLING"))
    assert account.status_code == 400
    assert account.json()["errors"] == [
        {
            "code": "INVALID_PARAMETER",
            "message": 'Expected a value in ENGAGEMENT, got "BILLING" for metric_groups with entity ACCOUNT',
            "parameter": "metric_groups",
        }
    ]
    instrument = ads.get(
        f"/stats/accounts/{DEMO}",
        _params(server, entity="FUNDING_INSTRUMENT", entity_ids="abc", metric_groups="VIDEO"),
    )
    assert instrument.status_code == 400 and error_codes(instrument) == ["INVALID_PARAMETER"]
    mobile = ads.get(
        f"/stats/accounts/{DEMO}",
        _params(server, entity="LINE_ITEM", entity_ids="abc", metric_groups="MOBILE_CONVERSION,ENGAGEMENT"),
    )
    assert mobile.status_code == 400
    assert "separately" in mobile.json()["errors"][0]["message"]
    unknown = ads.get(f"/stats/accounts/{DEMO}", _params(server, metric_groups="CLICKS"))
    assert unknown.status_code == 400
    assert unknown.json()["errors"][0]["message"].startswith("Expected a value in BILLING, ENGAGEMENT")


def test_ids_of_another_type_are_left_out(ads: AdsClient, server: LiveServer) -> None:
    response = ads.get(f"/stats/accounts/{DEMO}", _params(server, entity="CAMPAIGN", entity_ids=DEMO))
    assert response.status_code == 200, response.text
    assert response.json()["data"] == []
    assert response.json()["time_series_length"] == 24


def test_conversion_groups_are_null_objects(ads: AdsClient, server: LiveServer) -> None:
    campaigns = ads.get(f"/accounts/{DEMO}/campaigns", {"with_deleted": "true"}).json()["data"]
    if not campaigns:
        made = ads.post(
            f"/accounts/{DEMO}/campaigns",
            {
                "funding_instrument_id": ads.get(f"/accounts/{DEMO}/funding_instruments").json()["data"][0][
                    "id"
                ],
                "name": "conversion groups",
                "daily_budget_amount_local_micro": 10**7,
            },
        )
        campaigns = [made.json()["data"]]
    response = ads.get(
        f"/stats/accounts/{DEMO}",
        _params(server, entity="CAMPAIGN", entity_ids=campaigns[0]["id"], metric_groups="WEB_CONVERSION"),
    )
    assert response.status_code == 200, response.text
    metrics = response.json()["data"][0]["id_data"][0]["metrics"]
    assert metrics == dict.fromkeys(
        [
            "conversion_purchases",
            "conversion_sign_ups",
            "conversion_site_visits",
            "conversion_downloads",
            "conversion_custom",
        ]
    )


def test_other_accounts_are_not_reachable(ads: AdsClient, server: LiveServer) -> None:
    response = ads.get("/stats/accounts/gq1844", _params(server))  # a sandbox account on production
    assert response.status_code == 404
    assert error_codes(response) == ["NOT_FOUND"]


def test_the_sandbox_and_version_11_serve_it_too(
    sandbox: AdsClient, server: LiveServer, credentials: dict[str, Any]
) -> None:
    response = sandbox.get("/stats/accounts/gq1844", _params(server, entity_ids="gq1844"))
    assert response.status_code == 200, response.text
    v11 = AdsClient(
        server.base_url,
        credentials["consumer_key"],
        credentials["consumer_secret"],
        credentials["access_token"],
        credentials["access_token_secret"],
        version="11",
    )
    try:
        assert v11.get(f"/stats/accounts/{DEMO}", _params(server)).status_code == 200
    finally:
        v11.close()
    assert httpx.get(server.base_url + f"/12/stats/accounts/{DEMO}", timeout=30).status_code == 401
