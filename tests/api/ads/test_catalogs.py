"""Reference data over HTTP: targeting catalogs, categories, bidding rules, placements,
curated categories and the recommendations closed beta."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.ads.helpers import AdsClient, demo_ads_client, error_codes

DEMO_ACCOUNT = "18ce54d4x5t"
US = "96683cc9126741d1"


def _ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    return response.json()


def test_locations_filter_and_echo(ads: AdsClient) -> None:
    body = _ok(ads.get("/targeting_criteria/locations", {"q": "united states", "location_type": "COUNTRIES"}))
    assert body["request"] == {"params": {"q": "united states", "location_type": "COUNTRIES"}}
    assert body["next_cursor"] is None
    assert body["data"] == [
        {
            "name": "United States",
            "country_code": "US",
            "location_type": "COUNTRIES",
            "targeting_value": US,
            "targeting_type": "LOCATION",
        }
    ]
    cities = _ok(ads.get("/targeting_criteria/locations", {"location_type": "CITIES", "country_code": "gb"}))
    assert cities["data"] and {item["country_code"] for item in cities["data"]} == {"GB"}


def test_locations_paginate_with_an_opaque_cursor(ads: AdsClient) -> None:
    seen: list[str] = []
    params: dict[str, Any] = {"location_type": "METROS", "count": 30}
    pages = 0
    while True:
        body = _ok(ads.get("/targeting_criteria/locations", params))
        pages += 1
        seen.extend(item["targeting_value"] for item in body["data"])
        if body["next_cursor"] is None:
            break
        assert len(body["data"]) == 30
        params = {**params, "cursor": body["next_cursor"]}
    assert pages >= 2
    assert len(seen) == len(set(seen)) >= 50
    assert "total_count" not in body


def test_catalog_parameters_are_validated(ads: AdsClient) -> None:
    too_many = ads.get("/targeting_criteria/locations", {"count": 1001})
    assert too_many.status_code == 400 and error_codes(too_many) == ["INVALID_PARAMETER"]
    bad_type = ads.get("/targeting_criteria/locations", {"location_type": "PLANETS"})
    assert bad_type.status_code == 400
    assert bad_type.json()["errors"][0]["parameter"] == "location_type"
    bad_country = ads.get("/targeting_criteria/locations", {"country_code": "1x"})
    assert bad_country.status_code == 400 and error_codes(bad_country) == ["INVALID_PARAMETER"]
    bad_cursor = ads.get("/targeting_criteria/languages", {"cursor": "made-up"})
    assert bad_cursor.status_code == 400


def test_languages_interests_and_conversations(ads: AdsClient) -> None:
    languages = _ok(ads.get("/targeting_criteria/languages", {"q": "english"}))
    assert languages["data"] == [{"name": "English", "targeting_type": "LANGUAGE", "targeting_value": "en"}]
    interests = _ok(ads.get("/targeting_criteria/interests", {"count": 5}))
    assert len(interests["data"]) == 5 and interests["next_cursor"]
    assert interests["data"][0]["targeting_value"] == "1001"
    conversations = _ok(ads.get("/targeting_criteria/conversations", {"conversation_type": "SPORTS_TEAMS"}))
    assert conversations["data"]
    assert {item["conversation_type"] for item in conversations["data"]} == {"SPORTS_TEAMS"}
    assert conversations["next_cursor"] is None


def test_non_paginated_catalogs_have_no_cursor(ads: AdsClient) -> None:
    platforms = _ok(ads.get("/targeting_criteria/platforms", {"lang": "es"}))
    assert "next_cursor" not in platforms
    assert [item["targeting_value"] for item in platforms["data"]] == ["0", "1", "2", "3", "4"]
    assert platforms["data"][4]["localized_name"] == "Computadoras de escritorio y portátiles"
    assert "localized_name" not in _ok(ads.get("/targeting_criteria/platforms"))["data"][0]
    versions = _ok(ads.get("/targeting_criteria/platform_versions", {"q": "jelly"}))
    assert "next_cursor" not in versions
    assert versions["data_type"] == "platform_version"
    assert versions["data"][0]["number"] == "4.1"
    devices = _ok(ads.get("/targeting_criteria/devices", {"q": "iphone", "count": 3}))
    assert len(devices["data"]) == 3 and "next_cursor" not in devices
    stores = _ok(ads.get("/targeting_criteria/app_store_categories", {"os_type": "ANDROID"}))
    assert stores["data"] and {item["os_type"] for item in stores["data"]} == {"ANDROID"}
    markets = _ok(ads.get("/targeting_criteria/tv_markets"))
    assert "next_cursor" not in markets
    assert {"name": "United States", "country_code": "US", "locale": "en-US"} in markets["data"]


def test_network_operators_default_to_the_united_states(ads: AdsClient) -> None:
    body = _ok(ads.get("/targeting_criteria/network_operators"))
    assert body["request"] == {"params": {}}  # defaults are not echoed
    assert body["data"] and {item["country_code"] for item in body["data"]} == {"US"}
    japan = _ok(ads.get("/targeting_criteria/network_operators", {"country_code": "JP"}))
    assert {item["country_code"] for item in japan["data"]} == {"JP"}


def test_events_need_types_and_honour_the_time_window(ads: AdsClient) -> None:
    missing = ads.get("/targeting_criteria/events")
    assert missing.status_code == 400 and error_codes(missing) == ["MISSING_PARAMETER"]
    body = _ok(
        ads.get(
            "/targeting_criteria/events",
            {"event_types": "HOLIDAY", "start_time": "2026-07-01", "end_time": "2026-07-31"},
        )
    )
    assert body["data_type"] == "events"
    assert body["request"]["params"]["event_types"] == ["HOLIDAY"]
    assert body["request"]["params"]["start_time"] == "2026-07-01T00:00:00Z"
    assert [item["name"] for item in body["data"]] == [
        "Canada Day 2026",
        "Independence Day 2026",
        "Bastille Day 2026",
    ]
    event = body["data"][0]
    assert event["start_time"] == "2026-07-01T00:00:00Z" and event["country_code"] == "CA"
    assert set(event["gender_breakdown_percentage"]) == {"male", "female"}
    british = _ok(
        ads.get(
            "/targeting_criteria/events",
            {"event_types": "SPORTS", "country_codes": "GB", "start_time": "2026-01-01"},
        )
    )
    assert all(item["country_code"] == "GB" or item["is_global"] for item in british["data"])
    backwards = ads.get(
        "/targeting_criteria/events",
        {"event_types": "SPORTS", "start_time": "2026-07-01", "end_time": "2026-06-01"},
    )
    assert backwards.status_code == 400 and error_codes(backwards) == ["INVALID_TIME_WINDOW"]


def test_tv_shows_need_a_market_locale(ads: AdsClient) -> None:
    missing = ads.get("/targeting_criteria/tv_shows")
    assert missing.status_code == 400 and error_codes(missing) == ["MISSING_PARAMETER"]
    unknown = ads.get("/targeting_criteria/tv_shows", {"locale": "xx-YY"})
    assert unknown.status_code == 400 and unknown.json()["errors"][0]["parameter"] == "locale"
    too_many = ads.get("/targeting_criteria/tv_shows", {"locale": "en-US", "count": 51})
    assert too_many.status_code == 400
    body = _ok(ads.get("/targeting_criteria/tv_shows", {"locale": "en-US", "count": 5}))
    assert body["request"]["params"] == {"locale": {"countryCode": "US", "languageCode": "en"}, "count": 5}
    assert len(body["data"]) == 5 and body["next_cursor"]
    show = body["data"][0]
    assert isinstance(show["targeting_value"], int)
    assert {"language": "en", "country": "US"} in show["locales"]
    small = _ok(ads.get("/targeting_criteria/tv_shows", {"locale": "en-US", "q": "late night local"}))
    assert small["data"][0]["estimated_users"] == 1000


def test_bidding_rules_report_a_total(ads: AdsClient) -> None:
    body = _ok(ads.get("/bidding_rules", {"currency": "USD"}))
    assert body["data_type"] == "bidding_rule"
    assert body["total_count"] == 1
    assert "next_cursor" not in body
    assert body["data"] == [
        {
            "currency": "USD",
            "minimum_cpe_bid_local_micro": 10000,
            "maximum_cpe_bid_local_micro": 1000000000,
            "minimum_denomination": 10000,
        }
    ]
    every = _ok(ads.get("/bidding_rules"))
    assert every["total_count"] == len(every["data"]) >= 9


def test_iab_categories_paginate_and_count_on_request(ads: AdsClient) -> None:
    first = _ok(ads.get("/iab_categories", {"count": 10, "with_total_count": "true"}))
    assert first["data"][0] == {"id": "IAB1", "parent_id": None, "name": "Arts & Entertainment"}
    assert first["total_count"] > 350 and first["next_cursor"]
    second = _ok(ads.get("/iab_categories", {"count": 10, "cursor": first["next_cursor"]}))
    assert second["data"][0]["id"] not in {item["id"] for item in first["data"]}
    assert "total_count" not in second
    both = ads.get("/iab_categories", {"with_total_count": "true", "cursor": first["next_cursor"]})
    assert both.status_code == 400 and error_codes(both) == ["EXCLUSIVE_PARAMETERS"]


def test_content_business_categories_and_publishers(ads: AdsClient) -> None:
    content = _ok(ads.get("/content_categories"))
    assert content["total_count"] == len(content["data"]) > 0
    assert all(item["iab_categories"] for item in content["data"])
    business = _ok(ads.get("/advertiser_business_categories"))
    assert business["data"] and set(business["data"][0]) == {"id", "name", "iab_categories"}
    assert "total_count" not in business
    publishers = _ok(ads.get("/publishers"))
    assert publishers["data"] and all(item["user_id"].isdigit() for item in publishers["data"])


def test_curated_categories_by_country(ads: AdsClient) -> None:
    path = f"/accounts/{DEMO_ACCOUNT}/curated_categories"
    missing = ads.get(path)
    assert missing.status_code == 400 and error_codes(missing) == ["MISSING_PARAMETER"]
    body = _ok(ads.get(path, {"country_codes": "IN,GB"}))
    assert body["request"]["params"] == {"account_id": DEMO_ACCOUNT, "country_codes": ["IN", "GB"]}
    assert body["next_cursor"] is None
    assert body["total_count"] == len(body["data"]) > 0
    assert all({"IN", "GB"} & set(item["country_codes"]) for item in body["data"])
    one_id = body["data"][0]["id"]
    one = _ok(ads.get(f"{path}/{one_id}"))
    assert one["data"] == body["data"][0]
    assert one["request"] == {"params": {"account_id": DEMO_ACCOUNT, "id": one_id}}
    absent = ads.get(f"{path}/aaaaaaaaaaaa")
    assert absent.status_code == 404 and error_codes(absent) == ["NOT_FOUND"]
    # An account that exists nowhere is 404 NOT_FOUND (403 is for someone else's existing account).
    unknown = ads.get("/accounts/nosuchacct/curated_categories", {"country_codes": "US"})
    assert unknown.status_code == 404 and error_codes(unknown) == ["NOT_FOUND"]


def test_line_item_placements(ads: AdsClient) -> None:
    account_only = _ok(ads.get("/line_items/placements", {"product_type": "PROMOTED_ACCOUNT"}))
    assert account_only["data"] == [
        {"product_type": "PROMOTED_ACCOUNT", "placements": [["ALL_ON_TWITTER"], ["TWITTER_TIMELINE"]]}
    ]
    every = _ok(ads.get("/line_items/placements"))
    assert [item["product_type"] for item in every["data"]] == [
        "PROMOTED_TWEETS",
        "PROMOTED_ACCOUNT",
        "MEDIA",
    ]
    bad = ads.get("/line_items/placements", {"product_type": "BANNERS"})
    assert bad.status_code == 400 and error_codes(bad) == ["INVALID_PARAMETER"]


def test_catalogs_answer_on_version_11(server: Any, credentials: dict[str, Any]) -> None:
    client = demo_ads_client(server.base_url, credentials, version="11")
    try:
        assert _ok(client.get("/targeting_criteria/languages", {"q": "fr"}))["data"]
    finally:
        client.close()


def _v5(server: Any, credentials: dict[str, Any]) -> AdsClient:
    return demo_ads_client(server.base_url, credentials, sandbox=True, version="5")


def test_recommendations_are_a_closed_beta(
    server: Any, credentials: dict[str, Any], account: dict[str, Any]
) -> None:
    client = _v5(server, credentials)
    try:
        path = f"/accounts/{account['id']}/recommendations"
        refused = client.get(path)
        assert refused.status_code == 403 and error_codes(refused) == ["ACTION_NOT_ALLOWED"]
        granted = httpx.put(
            f"{server.base_url}/_roost/ads/accounts/{account['id']}/allowlist",
            json={"programmes": ["RECOMMENDATIONS"]},
        )
        assert granted.status_code == 200, granted.text
        listed = _ok(client.get(path))
        assert listed["next_cursor"] is None
        assert [item["funding_instrument_id"] for item in listed["data"]] == [
            account["funding_instrument_id"]
        ]
        recommendation_id = listed["data"][0]["id"]
        one = _ok(client.get(f"{path}/{recommendation_id}"))
        assert one["data_type"] == "recommendation"
        assert one["data"]["id"] == recommendation_id
        tree = one["data"]["recommendations"]
        assert tree[0]["entity_type"] == "CAMPAIGN" and tree[0]["operation_type"] == "Create"
        assert tree[0]["params"]["funding_instrument_id"] == account["funding_instrument_id"]
        absent = client.get(f"{path}/zzzzz")
        assert absent.status_code == 404 and error_codes(absent) == ["NOT_FOUND"]
    finally:
        client.close()


def test_recommendations_live_only_under_version_5(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.get(f"/accounts/{account['id']}/recommendations")
    assert response.status_code == 404 and error_codes(response) == ["ROUTE_NOT_FOUND"]
