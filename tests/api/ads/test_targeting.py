"""Targeting criteria (create, read, list, delete and every targeting rule) and tracking tags."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from tests.api.ads.audience_support import make_app_list, make_audience, make_targetable_audience
from tests.api.ads.helpers import AdsClient, error_codes

from roost.ads import catalog

US = "96683cc9126741d1"  # the United States, as the platform's examples show it


def make_line_item(sandbox: AdsClient, account: dict[str, Any], **params: Any) -> dict[str, Any]:
    campaign = sandbox.post(
        f"/accounts/{account['id']}/campaigns",
        {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "targeting campaign",
            "daily_budget_amount_local_micro": 10_000_000,
        },
    )
    assert campaign.status_code == 200, campaign.text
    sent = {
        "campaign_id": campaign.json()["data"]["id"],
        "objective": "ENGAGEMENTS",
        "product_type": "PROMOTED_TWEETS",
        "placements": "ALL_ON_TWITTER",
        "bid_amount_local_micro": 500_000,
        **params,
    }
    response = sandbox.post(f"/accounts/{account['id']}/line_items", sent)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def post_criterion(
    sandbox: AdsClient,
    account: dict[str, Any],
    line_item: dict[str, Any],
    kind: str,
    value: Any,
    op: str = "EQ",
) -> httpx.Response:
    return sandbox.post(
        f"/accounts/{account['id']}/targeting_criteria",
        {
            "line_item_id": line_item["id"],
            "targeting_type": kind,
            "targeting_value": value,
            "operator_type": op,
        },
    )


def created(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def criteria_path(account: dict[str, Any], suffix: str = "") -> str:
    return f"/accounts/{account['id']}/targeting_criteria{suffix}"


# ---- create, read, list, delete ---------------------------------------------------------------


def test_create_location_returns_the_criterion_and_echo(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    response = post_criterion(sandbox, account, line_item, "LOCATION", US)
    body = created(response)
    assert list(body) == [
        "id",
        "line_item_id",
        "name",
        "location_type",
        "targeting_type",
        "targeting_value",
        "operator_type",
        "created_at",
        "updated_at",
        "deleted",
    ]
    assert body["line_item_id"] == line_item["id"]
    assert body["name"] == "United States"
    assert body["location_type"] == "COUNTRY"
    assert (body["targeting_type"], body["targeting_value"], body["operator_type"]) == ("LOCATION", US, "EQ")
    assert body["deleted"] is False
    assert response.json()["request"]["params"] == {
        "account_id": account["id"],
        "line_item_id": line_item["id"],
        "targeting_type": "LOCATION",
        "targeting_value": US,
        "operator_type": "EQ",
    }


def test_operator_type_is_required(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    response = sandbox.post(
        criteria_path(account),
        {"line_item_id": line_item["id"], "targeting_type": "LOCATION", "targeting_value": US},
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "MISSING_PARAMETER",
            "message": '"operator_type" is a required parameter',
            "parameter": "operator_type",
        }
    ]


def test_unknown_line_item_and_bad_enums(sandbox: AdsClient, account: dict[str, Any]) -> None:
    missing = sandbox.post(
        criteria_path(account),
        {"line_item_id": "zzzz1", "targeting_type": "LOCATION", "targeting_value": US, "operator_type": "EQ"},
    )
    assert missing.status_code == 404
    assert missing.json()["errors"][0] == {
        "code": "NOT_FOUND",
        "message": f"Line Item zzzz1 was not found for Account {account['id']}",
        "parameter": "line_item_id",
    }
    line_item = make_line_item(sandbox, account)
    bad_type = post_criterion(sandbox, account, line_item, "BEHAVIOR", "1")
    assert bad_type.status_code == 400 and error_codes(bad_type) == ["INVALID_PARAMETER"]
    assert bad_type.json()["errors"][0]["parameter"] == "targeting_type"
    bad_op = post_criterion(sandbox, account, line_item, "LOCATION", US, "IN")
    assert bad_op.status_code == 400 and bad_op.json()["errors"][0]["parameter"] == "operator_type"


def test_values_are_checked_against_the_catalogs(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    for kind, value in [
        ("LOCATION", "0000000000000000"),
        ("INTEREST", "99999"),
        ("LANGUAGE", "xx"),
        ("PLATFORM", "9"),
        ("DEVICE", "zzzz"),
        ("CONVERSATION", "zzzz"),
        ("EVENT", "zzzz"),
        ("TV_SHOW", "12"),
        ("APP_STORE_CATEGORY", "zzzz"),
        ("AGE", "AGE_1_TO_2"),
        ("GENDER", "3"),
        ("LIVE_TV_EVENT", "1"),
    ]:
        response = post_criterion(sandbox, account, line_item, kind, value)
        assert response.status_code == 400, (kind, response.text)
        assert error_codes(response) == ["INVALID_PARAMETER"], kind
        assert response.json()["errors"][0]["parameter"] == "targeting_value"
    iab = post_criterion(sandbox, account, line_item, "IAB_CATEGORY", "IAB99-1")
    assert iab.status_code == 404 and error_codes(iab) == ["INVALID_IAB_CATEGORY"]
    listed = sandbox.get(criteria_path(account), {"line_item_ids": line_item["id"]})
    assert listed.json()["data"] == []  # nothing was written


def test_names_are_human_labels(sandbox: AdsClient, account: dict[str, Any], make_user: Any) -> None:
    line_item = make_line_item(sandbox, account)
    interest = catalog.interests()[0]
    followed = make_user()
    cases = [
        ("GENDER", "1", "EQ", "Male"),
        ("AGE", "AGE_18_TO_34", "EQ", "AGE_18_TO_34"),
        ("BROAD_KEYWORD", "  coffee   beans ", "EQ", "coffee beans"),
        ("LANGUAGE", "en", "EQ", "English"),
        ("INTEREST", interest["targeting_value"], "EQ", interest["name"]),
        ("PLATFORM", "4", "EQ", "Desktop and laptop computers"),
        ("FOLLOWERS_OF_USER", followed["id"], "EQ", f"@{followed['username']}"),
        (
            "CUSTOM_AUDIENCE",
            make_targetable_audience(sandbox, account["id"])["id"],
            "EQ",
            "Custom audience targeting",
        ),
        ("NETWORK_ACTIVATION_DURATION", "3", "LT", "Less than 3 months"),
        ("WIFI_ONLY", "true", "EQ", "WiFi-Only"),
    ]
    for kind, value, op, name in cases:
        body = created(post_criterion(sandbox, account, line_item, kind, value, op))
        assert body["name"] == name, kind
        assert "location_type" not in body
    assert (
        created(post_criterion(sandbox, account, line_item, "BROAD_KEYWORD", "x"))["targeting_value"] == "x"
    )


def test_list_requires_line_item_ids_and_pages(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    other = make_line_item(sandbox, account)
    missing = sandbox.get(criteria_path(account))
    assert missing.status_code == 400 and error_codes(missing) == ["MISSING_PARAMETER"]
    for word in ("alpha", "beta", "gamma"):
        created(post_criterion(sandbox, account, line_item, "PHRASE_KEYWORD", word))
    created(post_criterion(sandbox, account, other, "PHRASE_KEYWORD", "delta"))
    first = sandbox.get(
        criteria_path(account), {"line_item_ids": line_item["id"], "count": 2, "with_total_count": True}
    )
    assert first.status_code == 200
    page = first.json()
    assert [c["targeting_value"] for c in page["data"]] == ["alpha", "beta"]
    assert page["total_count"] == 3 and page["next_cursor"]
    rest = sandbox.get(
        criteria_path(account), {"line_item_ids": line_item["id"], "count": 2, "cursor": page["next_cursor"]}
    ).json()
    assert [c["targeting_value"] for c in rest["data"]] == ["gamma"] and rest["next_cursor"] is None
    both = sandbox.get(criteria_path(account), {"line_item_ids": f"{line_item['id']},{other['id']}"}).json()
    assert len(both["data"]) == 4
    assert both["request"]["params"]["line_item_ids"] == [line_item["id"], other["id"]]
    newest = sandbox.get(
        criteria_path(account), {"line_item_ids": line_item["id"], "sort_by": "created_at-desc"}
    )
    assert newest.json()["data"][0]["targeting_value"] == "gamma"
    one_id = page["data"][1]["id"]
    by_id = sandbox.get(
        criteria_path(account), {"line_item_ids": line_item["id"], "targeting_criterion_ids": one_id}
    )
    assert [c["id"] for c in by_id.json()["data"]] == [one_id]


def test_lang_adds_localized_name(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    platform = created(post_criterion(sandbox, account, line_item, "PLATFORM", "4"))
    created(post_criterion(sandbox, account, line_item, "EXACT_KEYWORD", "café"))
    one = sandbox.get(criteria_path(account, f"/{platform['id']}"), {"lang": "es"}).json()["data"]
    assert one["localized_name"] == "Computadoras de escritorio y portátiles"
    assert one["name"] == "Desktop and laptop computers"
    listed = sandbox.get(criteria_path(account), {"line_item_ids": line_item["id"], "lang": "fr"}).json()[
        "data"
    ]
    assert [c["localized_name"] for c in listed] == ["Ordinateurs de bureau et portables", "café"]
    plain = sandbox.get(criteria_path(account, f"/{platform['id']}")).json()["data"]
    assert "localized_name" not in plain


def test_delete_is_soft(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    criterion = created(post_criterion(sandbox, account, line_item, "GENDER", "2"))
    deleted = sandbox.delete(criteria_path(account, f"/{criterion['id']}"))
    assert deleted.status_code == 200 and deleted.json()["data"]["deleted"] is True
    assert deleted.json()["data"]["name"] == "Female"
    gone = sandbox.get(criteria_path(account, f"/{criterion['id']}"))
    assert gone.status_code == 404 and gone.json()["errors"][0]["message"] == (
        f"Targeting Criterion {criterion['id']} was not found for Account {account['id']}"
    )
    kept = sandbox.get(criteria_path(account, f"/{criterion['id']}"), {"with_deleted": "true"})
    assert kept.status_code == 200 and kept.json()["data"]["deleted"] is True
    assert sandbox.get(criteria_path(account), {"line_item_ids": line_item["id"]}).json()["data"] == []
    with_deleted = sandbox.get(
        criteria_path(account), {"line_item_ids": line_item["id"], "with_deleted": "true"}
    )
    assert [c["id"] for c in with_deleted.json()["data"]] == [criterion["id"]]
    assert sandbox.delete(criteria_path(account, f"/{criterion['id']}")).status_code == 404
    again = created(post_criterion(sandbox, account, line_item, "GENDER", "2"))
    assert again["id"] != criterion["id"]  # a deleted criterion does not block a new one


def test_criteria_of_other_accounts_are_not_found(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    criterion = created(post_criterion(sandbox, account, line_item, "GENDER", "1"))
    other = sandbox.post("/accounts").json()["data"][0]
    assert sandbox.get(f"/accounts/{other['id']}/targeting_criteria/{criterion['id']}").status_code == 404
    foreign = sandbox.post(
        f"/accounts/{other['id']}/targeting_criteria",
        {
            "line_item_id": line_item["id"],
            "targeting_type": "GENDER",
            "targeting_value": "1",
            "operator_type": "EQ",
        },
    )
    assert foreign.status_code == 404 and error_codes(foreign) == ["NOT_FOUND"]


# ---- operator rules ---------------------------------------------------------------------------


def test_operators_per_targeting_type(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    excluded = created(post_criterion(sandbox, account, line_item, "BROAD_KEYWORD", "spam", "NE"))
    assert excluded["operator_type"] == "NE"
    app_list = make_app_list(sandbox, account["id"])["id"]
    assert (
        created(post_criterion(sandbox, account, line_item, "APP_LIST", app_list, "NE"))["operator_type"]
        == "NE"
    )
    refused = [
        ("APP_LIST", app_list, "EQ"),
        ("GENDER", "1", "NE"),
        ("LOCATION", US, "GTE"),
        ("NETWORK_ACTIVATION_DURATION", "6", "EQ"),
        ("INTEREST", catalog.interests()[0]["targeting_value"], "LT"),
    ]
    for kind, value, op in refused:
        response = post_criterion(sandbox, account, line_item, kind, value, op)
        assert response.status_code == 400, kind
        assert response.json()["errors"][0]["code"] == "INVALID_PARAMETER"
        assert response.json()["errors"][0]["parameter"] == "operator_type", kind
    duration = created(post_criterion(sandbox, account, line_item, "NETWORK_ACTIVATION_DURATION", "6", "GTE"))
    assert duration["name"] == "6 months or more"


def test_same_value_twice_returns_the_existing_criterion(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    first = created(post_criterion(sandbox, account, line_item, "BROAD_KEYWORD", "tea"))
    again = created(post_criterion(sandbox, account, line_item, "BROAD_KEYWORD", "tea"))
    assert again["id"] == first["id"]
    opposite = post_criterion(sandbox, account, line_item, "BROAD_KEYWORD", "tea", "NE")
    assert opposite.status_code == 400 and error_codes(opposite) == ["INVALID_PARAMETER"]


# ---- line item rules --------------------------------------------------------------------------


def test_one_age_bucket_and_one_event_per_line_item(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    created(post_criterion(sandbox, account, line_item, "AGE", "AGE_25_TO_49"))
    second = post_criterion(sandbox, account, line_item, "AGE", "AGE_OVER_50")
    assert second.status_code == 400 and error_codes(second) == ["INVALID_TARGETING_TYPE"]
    first_event, other_event = catalog.events(event_types=catalog.EVENT_TYPES)[:2]
    created(post_criterion(sandbox, account, line_item, "EVENT", first_event["targeting_value"]))
    refused = post_criterion(sandbox, account, line_item, "EVENT", other_event["targeting_value"])
    assert refused.status_code == 400 and error_codes(refused) == ["INVALID_TARGETING_TYPE"]


def test_concurrent_age_buckets_leave_one(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    buckets = ["AGE_OVER_18", "AGE_OVER_21", "AGE_OVER_25", "AGE_OVER_35", "AGE_OVER_50", "AGE_13_TO_24"]
    with ThreadPoolExecutor(max_workers=len(buckets)) as pool:
        responses = list(pool.map(lambda b: post_criterion(sandbox, account, line_item, "AGE", b), buckets))
    assert sorted(r.status_code for r in responses) == [200] + [400] * (len(buckets) - 1)
    listed = sandbox.get(criteria_path(account), {"line_item_ids": line_item["id"]}).json()["data"]
    assert [c["targeting_type"] for c in listed] == ["AGE"]


def test_custom_audiences_must_exist_and_be_targetable(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    unknown = post_criterion(sandbox, account, line_item, "CUSTOM_AUDIENCE", "abc123")
    assert unknown.status_code == 404 and error_codes(unknown) == ["TAILORED_AUDIENCE_NOT_FOUND"]
    too_small = make_audience(sandbox, account["id"])["id"]
    small = post_criterion(sandbox, account, line_item, "CUSTOM_AUDIENCE", too_small)
    assert small.status_code == 400 and "not targetable" in small.json()["errors"][0]["message"]
    ready = make_targetable_audience(sandbox, account["id"])["id"]
    excluded = created(post_criterion(sandbox, account, line_item, "CUSTOM_AUDIENCE", ready, "NE"))
    assert excluded["operator_type"] == "NE"
    expanded = post_criterion(sandbox, account, line_item, "CUSTOM_AUDIENCE_EXPANDED", ready, "NE")
    assert expanded.status_code == 400  # only plain custom audiences can be excluded


def test_tv_shows_need_locations_in_their_market(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    show = next(s for s in catalog.tv_shows("en-US") if s["name"] == "Saturday Night Live")
    value = str(show["targeting_value"])
    no_location = post_criterion(sandbox, account, line_item, "TV_SHOW", value)
    assert no_location.status_code == 400 and error_codes(no_location) == ["INVALID_TV_SHOW_LOCATIONS"]
    elsewhere = make_line_item(sandbox, account)
    japan = catalog.locations(country_code="JP", location_type="COUNTRIES")[0]["targeting_value"]
    created(post_criterion(sandbox, account, elsewhere, "LOCATION", japan))
    outside = post_criterion(sandbox, account, elsewhere, "TV_SHOW", value)
    assert outside.status_code == 400 and error_codes(outside) == ["TV_SHOW_OUTSIDE_MARKET"]
    created(post_criterion(sandbox, account, line_item, "LOCATION", US))
    tv = created(post_criterion(sandbox, account, line_item, "TV_SHOW", value))
    assert tv["name"] == "Saturday Night Live" and tv["targeting_value"] == value
    later = post_criterion(sandbox, account, line_item, "LOCATION", japan)
    assert later.status_code == 400 and error_codes(later) == ["TV_SHOW_OUTSIDE_MARKET"]
    city = catalog.locations(q="Chicago", country_code="US", location_type="CITIES")[0]
    assert (
        created(post_criterion(sandbox, account, line_item, "LOCATION", city["targeting_value"]))[
            "location_type"
        ]
        == "CITY"
    )


def test_content_categories_take_all_their_iab_categories(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    line_item = make_line_item(sandbox, account)
    comedy = created(post_criterion(sandbox, account, line_item, "IAB_CATEGORY", "iab1-4"))
    assert (comedy["targeting_value"], comedy["name"]) == ("IAB1-4", "Humor")
    partial = post_criterion(sandbox, account, line_item, "IAB_CATEGORY", "IAB1-5")
    assert partial.status_code == 400 and error_codes(partial) == ["INVALID_PARAMETER"]
    assert "IAB1-2" in partial.json()["errors"][0]["message"]
    content_id = post_criterion(sandbox, account, line_item, "IAB_CATEGORY", "s5")
    assert content_id.status_code == 404 and error_codes(content_id) == ["INVALID_IAB_CATEGORY"]
    listed = sandbox.get(criteria_path(account), {"line_item_ids": line_item["id"]}).json()["data"]
    assert [c["targeting_value"] for c in listed] == ["IAB1-4"]


def test_platforms_and_devices_must_not_overlap(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    created(post_criterion(sandbox, account, line_item, "PLATFORM", "0"))
    ipad = next(d for d in catalog.devices() if d["name"] == "iPad")
    overlap = post_criterion(sandbox, account, line_item, "DEVICE", ipad["targeting_value"])
    assert overlap.status_code == 400 and error_codes(overlap) == ["INVALID_TARGETING_TYPE"]
    android = next(d for d in catalog.devices() if d["os_type"] == "Android")
    created(post_criterion(sandbox, account, line_item, "DEVICE", android["targeting_value"]))
    reverse = post_criterion(sandbox, account, line_item, "PLATFORM", "1")
    assert reverse.status_code == 400 and error_codes(reverse) == ["INVALID_TARGETING_TYPE"]


def test_engagement_targeting(sandbox: AdsClient, account: dict[str, Any], make_user: Any) -> None:
    line_item = make_line_item(sandbox, account)
    lonely = post_criterion(sandbox, account, line_item, "ENGAGEMENT_TYPE", "ENGAGEMENT")
    assert lonely.status_code == 400 and error_codes(lonely) == ["INVALID_TARGETING_TYPE"]
    campaign_id = line_item["campaign_id"]
    engaged = created(post_criterion(sandbox, account, line_item, "CAMPAIGN_ENGAGEMENT", campaign_id))
    assert engaged["name"] == "targeting campaign"
    assert created(post_criterion(sandbox, account, line_item, "ENGAGEMENT_TYPE", "IMPRESSION"))["name"]
    unknown = post_criterion(sandbox, account, line_item, "CAMPAIGN_ENGAGEMENT", "zzzz9")
    assert unknown.status_code == 400
    promotable = sandbox.get(f"/accounts/{account['id']}/promotable_users").json()["data"][0]["user_id"]
    own = created(post_criterion(sandbox, account, line_item, "USER_ENGAGEMENT", promotable))
    assert own["name"].startswith("@") and own["targeting_value"] == promotable
    stranger = post_criterion(sandbox, account, line_item, "USER_ENGAGEMENT", make_user()["id"])
    assert stranger.status_code == 400 and error_codes(stranger) == ["INVALID_PARAMETER"]
    nobody = post_criterion(sandbox, account, line_item, "FOLLOWERS_OF_USER", "1")
    assert nobody.status_code == 400 and error_codes(nobody) == ["INVALID_USER_ID"]


def test_interest_limit_per_line_item(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    interests = catalog.interests()
    batch = [
        {
            "operation_type": "Create",
            "params": {
                "line_item_id": line_item["id"],
                "targeting_type": "INTEREST",
                "targeting_value": interest["targeting_value"],
                "operator_type": "EQ",
            },
        }
        for interest in interests[:100]
    ]
    response = sandbox.post(f"/batch/accounts/{account['id']}/targeting_criteria", json=batch)
    assert response.status_code == 200, response.text
    over = post_criterion(sandbox, account, line_item, "INTEREST", interests[100]["targeting_value"])
    assert over.status_code == 400 and error_codes(over) == ["INVALID_TARGETING_TYPE"]
    assert "100" in over.json()["errors"][0]["message"]


# ---- tracking tags ----------------------------------------------------------------------------


def test_tracking_tags(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    path = f"/accounts/{account['id']}/tracking_tags"
    url = "https://ad.doubleclick.net/ddm/trackimp/N1234.roost/B5678;ord=[timestamp]"
    response = sandbox.post(
        path,
        {"line_item_id": line_item["id"], "tracking_tag_type": "IMPRESSION_TAG", "tracking_tag_url": url},
    )
    tag = created(response)
    assert list(tag) == [
        "id",
        "line_item_id",
        "tracking_tag_type",
        "tracking_tag_url",
        "created_at",
        "updated_at",
        "deleted",
    ]
    assert (tag["line_item_id"], tag["tracking_tag_url"]) == (line_item["id"], url)
    listed = sandbox.get(path, {"line_item_ids": line_item["id"]}).json()
    assert [t["id"] for t in listed["data"]] == [tag["id"]] and listed["next_cursor"] is None
    assert sandbox.get(f"{path}/{tag['id']}").json()["data"] == tag
    bad_url = sandbox.post(
        path,
        {
            "line_item_id": line_item["id"],
            "tracking_tag_type": "IMPRESSION_TAG",
            "tracking_tag_url": "ftp://x",
        },
    )
    assert bad_url.status_code == 400 and bad_url.json()["errors"][0]["parameter"] == "tracking_tag_url"
    bad_type = sandbox.post(
        path, {"line_item_id": line_item["id"], "tracking_tag_type": "CLICK_TAG", "tracking_tag_url": url}
    )
    assert bad_type.status_code == 400 and error_codes(bad_type) == ["INVALID_PARAMETER"]
    missing = sandbox.post(path, {"line_item_id": line_item["id"], "tracking_tag_url": url})
    assert error_codes(missing) == ["MISSING_PARAMETER"]
    unknown = sandbox.post(
        path, {"line_item_id": "zzzz1", "tracking_tag_type": "IMPRESSION_TAG", "tracking_tag_url": url}
    )
    assert unknown.status_code == 404
    deleted = sandbox.delete(f"{path}/{tag['id']}")
    assert deleted.status_code == 200 and deleted.json()["data"]["deleted"] is True
    assert sandbox.get(path, {"line_item_ids": line_item["id"]}).json()["data"] == []
    assert sandbox.get(f"{path}/{tag['id']}", {"with_deleted": "true"}).status_code == 200
    assert sandbox.delete(f"{path}/{tag['id']}").status_code == 404


def test_hostile_values_are_client_errors(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    for kind, value in [
        ("BROAD_KEYWORD", "nul\x00byte"),
        ("CAMPAIGN_ENGAGEMENT", "a\x00b"),
        ("FOLLOWERS_OF_USER", "99999999999999999999"),
        ("FOLLOWERS_OF_USER", "9999999999999999999"),
        ("BROAD_KEYWORD", "k" * 300),
    ]:
        response = post_criterion(sandbox, account, line_item, kind, value)
        assert response.status_code == 400, (kind, response.text)
    nul_line_item = sandbox.post(
        criteria_path(account),
        {"line_item_id": "a\x00b", "targeting_type": "GENDER", "targeting_value": "1", "operator_type": "EQ"},
    )
    # NUL characters are refused as parameter values before any lookup.
    assert nul_line_item.status_code == 400
    assert sandbox.get(criteria_path(account, "/a%00b")).status_code == 400
    assert sandbox.delete(criteria_path(account, "/a%00b")).status_code == 400
    assert sandbox.delete(f"/accounts/{account['id']}/tracking_tags/a%00b").status_code == 400
    suggestion = sandbox.get(
        f"/accounts/{account['id']}/targeting_suggestions",
        {"suggestion_type": "USER_ID", "targeting_values": "99999999999999999999"},
    )
    assert suggestion.status_code == 400
    keyword = sandbox.get(
        f"/accounts/{account['id']}/targeting_suggestions",
        {"suggestion_type": "KEYWORD", "targeting_values": "a\x00b"},
    )
    assert keyword.status_code == 400
