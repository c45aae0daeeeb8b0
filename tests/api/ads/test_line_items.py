"""Line items: create, read, list, update, delete and every rule the platform applies to them."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.api.ads.helpers import AdsClient, demo_ads_client, error_codes
from tests.support.server import LiveServer


def _path(account: dict[str, Any], suffix: str = "") -> str:
    return f"/accounts/{account['id']}/line_items{suffix}"


def campaign_of(sandbox: AdsClient, account: dict[str, Any], **params: Any) -> str:
    sent = {
        "funding_instrument_id": account["funding_instrument_id"],
        "name": "campaign",
        "daily_budget_amount_local_micro": 50_000_000,
        **params,
    }
    if params.get("budget_optimization") == "LINE_ITEM":
        sent.pop("daily_budget_amount_local_micro")
    response = sandbox.post(f"/accounts/{account['id']}/campaigns", sent)
    assert response.status_code == 200, response.text
    return response.json()["data"]["id"]


def post_line_item(sandbox: AdsClient, account: dict[str, Any], campaign_id: str, **params: Any) -> Any:
    sent = {
        "campaign_id": campaign_id,
        "objective": "ENGAGEMENTS",
        "product_type": "PROMOTED_TWEETS",
        "placements": "ALL_ON_TWITTER",
        **params,
    }
    return sandbox.post(_path(account), sent)


def make_line_item(
    sandbox: AdsClient, account: dict[str, Any], campaign_id: str, **params: Any
) -> dict[str, Any]:
    response = post_line_item(sandbox, account, campaign_id, **params)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def rejected(response: httpx.Response, code: str, parameter: str | None = None) -> dict[str, Any]:
    assert response.status_code == 400, response.text
    error = response.json()["errors"][0]
    assert error["code"] == code, error
    if parameter is not None:
        assert error.get("parameter") == parameter, error
    return error


@pytest.fixture()
def campaign(sandbox: AdsClient, account: dict[str, Any]) -> str:
    return campaign_of(sandbox, account)


def test_create_with_the_v12_shape_and_typed_echo(
    sandbox: AdsClient, account: dict[str, Any], campaign: str, credentials: dict[str, Any]
) -> None:
    response = post_line_item(
        sandbox,
        account,
        campaign,
        name="li-18",
        bid_amount_local_micro="320000",
        start_time="2026-12-01",
        entity_status="PAUSED",
        audience_expansion="EXPANDED",
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["request"]["params"] == {
        "account_id": account["id"],
        "campaign_id": campaign,
        "objective": "ENGAGEMENTS",
        "product_type": "PROMOTED_TWEETS",
        "placements": ["ALL_ON_TWITTER"],
        "name": "li-18",
        "bid_amount_local_micro": 320000,
        "start_time": "2026-12-01T00:00:00Z",
        "entity_status": "PAUSED",
        "audience_expansion": "EXPANDED",
    }
    item = body["data"]
    assert list(item)[:3] == ["id", "campaign_id", "funding_instrument_id"]
    assert item["funding_instrument_id"] == account["funding_instrument_id"]
    assert item["goal"] == "ENGAGEMENT" and item["pay_by"] == "ENGAGEMENT"
    assert item["bid_strategy"] == "MAX" and item["bid_amount_local_micro"] == 320000
    assert item["placements"] == ["ALL_ON_TWITTER"]
    assert item["start_time"] == "2026-12-01T00:00:00Z" and item["end_time"] is None
    assert item["entity_status"] == "PAUSED"
    assert item["advertiser_user_id"] == str(credentials["user_id"])
    assert item["creative_source"] == "MANUAL" and item["currency"] == "USD"
    assert item["categories"] == [] and item["target_cpa_local_micro"] is None
    assert item["standard_delivery"] is None  # campaign-level budgets
    assert item["deleted"] is False
    assert "account_id" not in item and "bid_type" not in item
    # A write parameter no v12 answer carries (the reference's examples).
    assert "audience_expansion" not in item
    assert "audience_expansion" not in sandbox.get(_path(account, f"/{item['id']}")).json()["data"]


def test_objective_defaults(sandbox: AdsClient, account: dict[str, Any]) -> None:
    expected = {
        "REACH": ("MAX_REACH", "IMPRESSION", "AUTO"),
        "FOLLOWERS": ("FOLLOWERS", "FOLLOW", "AUTO"),
        "WEBSITE_CLICKS": ("LINK_CLICKS", "IMPRESSION", "AUTO"),
        "VIDEO_VIEWS": ("VIDEO_VIEW", "VIEW", "AUTO"),
        "ENGAGEMENTS": ("ENGAGEMENT", "ENGAGEMENT", "AUTO"),
    }
    for objective, (goal, pay_by, strategy) in expected.items():
        item = make_line_item(sandbox, account, campaign_of(sandbox, account), objective=objective)
        assert (item["goal"], item["pay_by"], item["bid_strategy"]) == (goal, pay_by, strategy), objective
        assert item["name"] is None
    app = make_line_item(
        sandbox,
        account,
        campaign_of(sandbox, account),
        objective="APP_INSTALLS",
        ios_app_store_identifier="333903271",
    )
    assert (app["goal"], app["pay_by"], app["bid_strategy"]) == ("APP_INSTALLS", "IMPRESSION", "AUTO")


def test_required_parameters(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.post(_path(account), {})
    assert response.status_code == 400
    assert {e["parameter"] for e in response.json()["errors"]} == {
        "campaign_id",
        "objective",
        "product_type",
        "placements",
    }
    assert set(error_codes(response)) == {"MISSING_PARAMETER"}
    unknown = post_line_item(sandbox, account, "nope1")
    assert unknown.status_code == 404
    assert unknown.json()["errors"][0]["parameter"] == "campaign_id"


def test_same_objective_and_product_type_per_campaign(
    sandbox: AdsClient, account: dict[str, Any], campaign: str
) -> None:
    make_line_item(sandbox, account, campaign)
    rejected(post_line_item(sandbox, account, campaign, objective="REACH"), "INVALID_PARAMETER", "objective")
    rejected(
        post_line_item(sandbox, account, campaign, product_type="PROMOTED_ACCOUNT"),
        "INVALID_PARAMETER",
        "product_type",
    )


def test_bid_strategy_rules(sandbox: AdsClient, account: dict[str, Any]) -> None:
    c, reach = campaign_of(sandbox, account), campaign_of(sandbox, account)

    def post(campaign: str = c, **params: Any) -> httpx.Response:
        return post_line_item(sandbox, account, campaign, **params)

    rejected(post(bid_strategy="MAX"), "MISSING_PARAMETER", "bid_amount_local_micro")
    rejected(post(bid_strategy="MAX", bid_amount_local_micro=0), "INVALID_PARAMETER")
    rejected(post(bid_strategy="MAX", bid_amount_local_micro=150001), "INVALID_DENOMINATION")
    auto = make_line_item(sandbox, account, c, bid_strategy="AUTO", bid_amount_local_micro=500000)
    assert auto["bid_amount_local_micro"] is None  # ignored with AUTO
    million = {"bid_amount_local_micro": 10**6}
    rejected(
        post(reach, objective="REACH", bid_strategy="MAX", **million), "INVALID_PARAMETER", "bid_strategy"
    )
    target = post(reach, objective="REACH", bid_strategy="TARGET", **million)
    assert target.status_code == 200 and target.json()["data"]["bid_strategy"] == "TARGET"
    rejected(post(bid_strategy="TARGET", **million), "INVALID_PARAMETER", "bid_strategy")  # not ENGAGEMENTS


def test_goal_and_pay_by_compatibility(sandbox: AdsClient, account: dict[str, Any]) -> None:
    web, engagement, apps = (campaign_of(sandbox, account) for _ in range(3))

    def post(campaign: str = web, **params: Any) -> httpx.Response:
        return post_line_item(sandbox, account, campaign, **{"objective": "WEBSITE_CLICKS", **params})

    def made(campaign: str = web, **params: Any) -> dict[str, Any]:
        response = post(campaign, **params)
        assert response.status_code == 200, response.text
        return response.json()["data"]

    assert "APP_PURCHASES" in rejected(post(goal="APP_PURCHASES"), "INVALID_PARAMETER", "goal")["message"]
    assert made(goal="SITE_VISITS")["pay_by"] == "IMPRESSION"
    rejected(post(goal="SITE_VISITS", pay_by="LINK_CLICK"), "INVALID_PARAMETER", "pay_by")
    assert made(pay_by="LINK_CLICK")["pay_by"] == "LINK_CLICK"
    # Impression billing is not available with a TARGET bid.
    assert made(bid_strategy="TARGET", bid_amount_local_micro=10**6)["pay_by"] == "LINK_CLICK"
    rejected(post(engagement, objective="ENGAGEMENTS", goal="SITE_VISITS"), "INVALID_PARAMETER", "goal")
    app = {"objective": "APP_INSTALLS", "android_app_store_identifier": "com.example.app"}
    assert made(apps, goal="APP_PURCHASES", **app)["goal"] == "APP_PURCHASES"
    assert made(apps, pay_by="APP_CLICK", **app)["pay_by"] == "APP_CLICK"
    conversions = post(goal="WEBSITE_CONVERSIONS")
    assert conversions.status_code == 400
    assert conversions.json()["errors"][0] == {
        "code": "MISSING_PARAMETER",
        "message": '"primary_web_event_tag" is a required parameter',
        "parameter": "primary_web_event_tag",
    }
    tagged = made(goal="WEBSITE_CONVERSIONS", primary_web_event_tag="o5xyz")
    assert tagged["primary_web_event_tag"] == "o5xyz"


def test_app_objectives_need_an_app_and_target_its_platform(
    sandbox: AdsClient, account: dict[str, Any], server: LiveServer
) -> None:
    c = campaign_of(sandbox, account)
    rejected(
        post_line_item(sandbox, account, c, objective="APP_INSTALLS"),
        "INVALID_PARAMETER",
        "ios_app_store_identifier",
    )
    rejected(
        post_line_item(sandbox, account, c, objective="APP_INSTALLS", ios_app_store_identifier="abc"),
        "INVALID_PARAMETER",
        "ios_app_store_identifier",
    )
    item = make_line_item(
        sandbox,
        account,
        c,
        objective="APP_INSTALLS",
        ios_app_store_identifier="333903271",
        android_app_store_identifier="com.example.app",
    )
    assert item["ios_app_store_identifier"] == "333903271"
    assert _platform_criteria(server, account["id"], item["id"]) == [
        ("0", "iOS", "EQ"),
        ("1", "Android", "EQ"),
    ]
    # Setting the same id again on update adds nothing.
    assert (
        sandbox.put(_path(account, f"/{item['id']}"), {"ios_app_store_identifier": "333903271"}).status_code
        == 200
    )
    assert len(_platform_criteria(server, account["id"], item["id"])) == 2


def _platform_criteria(server: LiveServer, account_id: str, line_item_id: str) -> list[tuple[str, str, str]]:
    """The line item's PLATFORM criteria as stored (read directly from the server's store)."""
    from roost.storage.ads import EntityQuery

    assert server.app.state is not None
    store = server.app.server.stores.ads
    rows, _ = server.run(
        store.entities(EntityQuery("targeting_criterion", account_id, parent_ids=[line_item_id]))
    )
    assert all(row["body"]["line_item_id"] == line_item_id for row in rows)
    return sorted(
        (row["body"]["targeting_value"], row["body"]["name"], row["body"]["operator_type"])
        for row in rows
        if row["body"]["targeting_type"] == "PLATFORM"
    )


def test_publisher_network_needs_categories_and_domain(sandbox: AdsClient, account: dict[str, Any]) -> None:
    c = campaign_of(sandbox, account)
    error = rejected(
        post_line_item(sandbox, account, c, placements="ALL_ON_TWITTER,PUBLISHER_NETWORK"),
        "INVALID_PARAMETER",
        "categories",
    )
    assert error["message"] == "A minimum of 1 items must be provided for categories"
    missing = post_line_item(
        sandbox, account, c, placements="ALL_ON_TWITTER,PUBLISHER_NETWORK", categories="IAB1,IAB2-3"
    )
    assert missing.status_code == 400 and missing.json()["errors"][0]["parameter"] == "advertiser_domain"
    rejected(
        post_line_item(
            sandbox,
            account,
            c,
            placements="PUBLISHER_NETWORK",
            categories="IAB1",
            advertiser_domain="https://x.com",
        ),
        "INVALID_PARAMETER",
        "advertiser_domain",
    )
    item = make_line_item(
        sandbox,
        account,
        c,
        placements=["ALL_ON_TWITTER", "PUBLISHER_NETWORK"],
        categories="IAB1,IAB2-3",
        advertiser_domain="example.com",
    )
    assert item["placements"] == ["ALL_ON_TWITTER", "PUBLISHER_NETWORK"]
    assert item["categories"] == ["IAB1", "IAB2-3"]


def test_placements_are_validated_per_product_type(sandbox: AdsClient, account: dict[str, Any]) -> None:
    c = campaign_of(sandbox, account)
    rejected(
        post_line_item(sandbox, account, c, placements="TWITTER_PROFILE"),
        "INVALID_PLACEMENT_TYPE",
        "placements",
    )
    rejected(
        post_line_item(sandbox, account, c, placements="TWITTER_SEARCH,TWITTER_TIMELINE"),
        "INVALID_PLACEMENT_TYPE",
    )
    bad = post_line_item(sandbox, account, c, placements="EVERYWHERE")
    assert bad.status_code == 400 and bad.json()["errors"][0]["parameter"] == "placements"
    # Repeated keys and the brand-neutral spelling are both accepted.
    item = make_line_item(sandbox, account, c, placements="SERVICE_TIMELINE")
    assert item["placements"] == ["TWITTER_TIMELINE"]
    accounts = campaign_of(sandbox, account)
    rejected(
        post_line_item(
            sandbox, account, accounts, product_type="PROMOTED_ACCOUNT", placements="TWITTER_SEARCH"
        ),
        "INVALID_PLACEMENT_TYPE",
    )
    response = sandbox.post(
        _path(account),
        [
            ("campaign_id", accounts),
            ("objective", "FOLLOWERS"),
            ("product_type", "PROMOTED_ACCOUNT"),
            ("placements", "TWITTER_TIMELINE"),
        ],
    )
    assert response.status_code == 200, response.text
    reach = campaign_of(sandbox, account)
    rejected(
        post_line_item(sandbox, account, reach, objective="REACH", placements="TWITTER_SEARCH"),
        "INVALID_PLACEMENT_TYPE",
    )


def test_frequency_cap_rules(sandbox: AdsClient, account: dict[str, Any]) -> None:
    c = campaign_of(sandbox, account)
    item = make_line_item(sandbox, account, c, frequency_cap=3, duration_in_days=7)
    assert item["frequency_cap"] == 3 and item["duration_in_days"] == 7
    error = rejected(
        post_line_item(sandbox, account, c, frequency_cap=3, duration_in_days=5), "INVALID_PARAMETER"
    )
    assert error["message"] == 'Expected a value in 1, 7, 30, got "5" for duration_in_days'
    web = campaign_of(sandbox, account)
    rejected(
        post_line_item(
            sandbox, account, web, objective="WEBSITE_CLICKS", frequency_cap=3, duration_in_days=1
        ),
        "INVALID_PARAMETER",
        "frequency_cap",
    )


def test_line_item_budgets_only_under_line_item_optimization(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    c = campaign_of(sandbox, account)
    rejected(
        post_line_item(sandbox, account, c, total_budget_amount_local_micro=10**8),
        "INVALID_PARAMETER",
        "total_budget_amount_local_micro",
    )
    rejected(
        post_line_item(sandbox, account, c, standard_delivery="false"),
        "INVALID_PARAMETER",
        "standard_delivery",
    )
    li_opt = campaign_of(sandbox, account, budget_optimization="LINE_ITEM")
    item = make_line_item(
        sandbox,
        account,
        li_opt,
        daily_budget_amount_local_micro=10**7,
        total_budget_amount_local_micro=10**8,
        standard_delivery="false",
    )
    assert item["daily_budget_amount_local_micro"] == 10**7 and item["standard_delivery"] is False
    rejected(
        post_line_item(
            sandbox,
            account,
            li_opt,
            daily_budget_amount_local_micro=10**8,
            total_budget_amount_local_micro=10**7,
        ),
        "INVALID_PARAMETER",
        "daily_budget_amount_local_micro",
    )
    rejected(
        post_line_item(sandbox, account, li_opt, daily_budget_amount_local_micro=10**7 + 5),
        "INVALID_DENOMINATION",
    )


def test_name_status_and_times(sandbox: AdsClient, account: dict[str, Any], campaign: str) -> None:
    assert post_line_item(sandbox, account, campaign, name="").status_code == 400
    assert post_line_item(sandbox, account, campaign, name="n" * 256).status_code == 400
    rejected(
        post_line_item(sandbox, account, campaign, entity_status="RUNNING"),
        "INVALID_PARAMETER",
        "entity_status",
    )
    rejected(
        post_line_item(sandbox, account, campaign, start_time="2026-12-02", end_time="2026-12-01"),
        "INVALID_TIME_WINDOW",
        "end_time",
    )
    bad_time = post_line_item(sandbox, account, campaign, start_time="soon")
    assert bad_time.json()["errors"][0]["message"] == 'Expected time, got "soon" for start_time'


def test_advertiser_user_id_is_allow_listed(
    sandbox: AdsClient,
    account: dict[str, Any],
    campaign: str,
    server: LiveServer,
    credentials: dict[str, Any],
) -> None:
    error = rejected(
        post_line_item(sandbox, account, campaign, advertiser_user_id=credentials["user_id"]),
        "INVALID_PARAMETER",
        "advertiser_user_id",
    )
    assert error["message"] == "setting advertiser_user_id is not allowed"
    item = make_line_item(sandbox, account, campaign)
    refused = sandbox.put(_path(account, f"/{item['id']}"), {"advertiser_user_id": credentials["user_id"]})
    assert refused.status_code == 400
    httpx.put(
        f"{server.base_url}/_roost/ads/accounts/{account['id']}/allowlist",
        json={"programmes": ["ADVERTISER_USER_ID"]},
        timeout=30,
    ).raise_for_status()
    allowed = make_line_item(sandbox, account, campaign, advertiser_user_id="12345")
    assert allowed["advertiser_user_id"] == "12345"


def test_per_campaign_and_account_caps(
    sandbox: AdsClient, account: dict[str, Any], server: LiveServer
) -> None:
    httpx.put(
        f"{server.base_url}/_roost/ads/accounts/{account['id']}/limits",
        json={"active_line_items": 2},
        timeout=30,
    ).raise_for_status()
    c = campaign_of(sandbox, account)
    make_line_item(sandbox, account, c)
    make_line_item(sandbox, account, c, entity_status="PAUSED")
    rejected(post_line_item(sandbox, account, c), "TOO_MANY_LINE_ITEMS")
    draft = make_line_item(sandbox, account, c, entity_status="DRAFT")
    assert draft["entity_status"] == "DRAFT"
    rejected(
        sandbox.put(_path(account, f"/{draft['id']}"), {"entity_status": "ACTIVE"}), "TOO_MANY_LINE_ITEMS"
    )


def test_update_rules(sandbox: AdsClient, account: dict[str, Any], campaign: str) -> None:
    item = make_line_item(sandbox, account, campaign, bid_amount_local_micro=500000, name="before")
    path = _path(account, f"/{item['id']}")
    # Clients resend the whole object; create-only and read-only fields are ignored.
    response = sandbox.put(
        path,
        {
            "name": "after",
            "bid_amount_local_micro": 600000,
            "objective": "REACH",
            "placements": "TWITTER_SEARCH",
            "currency": "EUR",
            "end_time": "2027-01-01T00:00:00Z",
        },
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["name"] == "after" and data["bid_amount_local_micro"] == 600000
    assert data["objective"] == "ENGAGEMENTS" and data["placements"] == ["ALL_ON_TWITTER"]
    assert data["end_time"] == "2027-01-01T00:00:00Z"
    assert response.json()["request"]["params"] == {
        "account_id": account["id"],
        "line_item_id": item["id"],
        "name": "after",
        "bid_amount_local_micro": 600000,
        "end_time": "2027-01-01T00:00:00Z",
    }
    cleared = sandbox.put(path, {"end_time": ""})
    assert cleared.status_code == 200 and cleared.json()["data"]["end_time"] is None
    rejected(sandbox.put(path, {"entity_status": "DRAFT"}), "INVALID_PARAMETER", "entity_status")
    rejected(sandbox.put(path, {"pay_by": "IMPRESSION"}), "INVALID_PARAMETER", "pay_by")
    rejected(sandbox.put(path, {"bid_amount_local_micro": 0}), "INVALID_PARAMETER", "bid_amount_local_micro")
    auto = sandbox.put(path, {"bid_strategy": "AUTO"})
    assert auto.status_code == 200 and auto.json()["data"]["bid_amount_local_micro"] is None
    rejected(sandbox.put(path, {"bid_strategy": "MAX"}), "MISSING_PARAMETER")
    paused = sandbox.put(path, {"entity_status": "PAUSED", "frequency_cap": 2, "duration_in_days": 30})
    assert paused.status_code == 200 and paused.json()["data"]["entity_status"] == "PAUSED"


def test_delete_and_lists(sandbox: AdsClient, account: dict[str, Any]) -> None:
    first = campaign_of(sandbox, account)
    second = campaign_of(sandbox, account)
    a = make_line_item(sandbox, account, first, name="Apple", bid_amount_local_micro=300000)
    b = make_line_item(sandbox, account, first, name="apricot", bid_amount_local_micro=100000)
    c = make_line_item(sandbox, account, second, name="Cherry", bid_amount_local_micro=200000)
    d = make_line_item(sandbox, account, second, name="Draft", entity_status="DRAFT")

    def ids(params: dict[str, Any]) -> list[str]:
        response = sandbox.get(_path(account), params)
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["data"]]

    assert ids({}) == [a["id"], b["id"], c["id"]]
    assert ids({"with_draft": "true"}) == [a["id"], b["id"], c["id"], d["id"]]
    assert ids({"campaign_ids": second}) == [c["id"]]
    assert ids({"line_item_ids": [a["id"], c["id"]]}) == [a["id"], c["id"]]
    assert ids({"q": "ap"}) == [a["id"], b["id"]]
    assert ids({"funding_instrument_ids": account["funding_instrument_id"]}) == [a["id"], b["id"], c["id"]]
    assert ids({"sort_by": "bid_amount_local_micro-desc"}) == [a["id"], c["id"], b["id"]]
    pages = sandbox.get(_path(account), {"count": 2, "with_total_count": "true"}).json()
    assert pages["total_count"] == 3 and len(pages["data"]) == 2 and pages["next_cursor"]
    rest = sandbox.get(_path(account), {"count": 2, "cursor": pages["next_cursor"]}).json()
    assert [i["id"] for i in rest["data"]] == [c["id"]] and rest["next_cursor"] is None

    deleted = sandbox.delete(_path(account, f"/{a['id']}"))
    assert deleted.status_code == 200 and deleted.json()["data"]["deleted"] is True
    assert sandbox.delete(_path(account, f"/{a['id']}")).status_code == 404
    missing = sandbox.get(_path(account, f"/{a['id']}"))
    assert (
        missing.json()["errors"][0]["message"]
        == f"Line Item {a['id']} was not found for Account {account['id']}"
    )
    assert sandbox.get(_path(account, f"/{a['id']}"), {"with_deleted": "true"}).status_code == 200
    assert ids({}) == [b["id"], c["id"]]
    assert a["id"] in ids({"with_deleted": "true"})


def test_service_brand_placements(server: Any, credentials: dict[str, Any]) -> None:
    live = LiveServer(tag="brand", rate_limits=False, brand="service").start()
    try:
        creds = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
        client = demo_ads_client(live.base_url, creds, sandbox=True)
        made = client.post("/accounts").json()["data"][0]
        fi = client.get(f"/accounts/{made['id']}/funding_instruments").json()["data"][0]["id"]
        acct = {"id": made["id"], "funding_instrument_id": fi}
        c = campaign_of(client, acct)
        response = post_line_item(client, acct, c, placements="ALL_ON_TWITTER")
        assert response.status_code == 200, response.text
        assert response.json()["data"]["placements"] == ["ALL_ON_SERVICE"]
        assert response.json()["request"]["params"]["placements"] == ["ALL_ON_SERVICE"]
        listed = client.get(_path(acct)).json()["data"]
        assert listed[0]["placements"] == ["ALL_ON_SERVICE"]
        client.close()
    finally:
        live.stop()


def test_preroll_views_are_media_line_items_with_categories(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    c = campaign_of(sandbox, account)
    rejected(
        post_line_item(sandbox, account, c, objective="PREROLL_VIEWS", categories="IAB1"),
        "INVALID_PARAMETER",
        "product_type",
    )
    rejected(
        post_line_item(sandbox, account, c, objective="PREROLL_VIEWS", product_type="MEDIA"),
        "INVALID_PARAMETER",
        "categories",
    )
    item = make_line_item(
        sandbox, account, c, objective="PREROLL_VIEWS", product_type="MEDIA", categories="IAB1"
    )
    assert (item["goal"], item["pay_by"]) == ("PREROLL", "VIEW")


def test_preroll_categories_widen_to_whole_business_categories(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    c = campaign_of(sandbox, account)
    item = make_line_item(
        sandbox, account, c, objective="PREROLL_VIEWS", product_type="MEDIA", categories="IAB2-3"
    )
    automotive = next(
        group
        for group in sandbox.get("/advertiser_business_categories").json()["data"]
        if "IAB2-3" in group["iab_categories"]
    )
    assert item["categories"] == automotive["iab_categories"]


def test_unknown_iab_categories_are_refused(sandbox: AdsClient, account: dict[str, Any]) -> None:
    c = campaign_of(sandbox, account)
    response = post_line_item(
        sandbox, account, c, placements="ALL_ON_TWITTER,PUBLISHER_NETWORK", categories="IAB999",
        advertiser_domain="example.com",
    )  # fmt: skip
    assert response.status_code == 404
    assert response.json()["errors"][0]["code"] == "INVALID_IAB_CATEGORY"
