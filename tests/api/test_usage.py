"""`GET /_roost/usage` and `POST /_roost/prices` (issue 17): requests counted per app, UTC day and
operation, priced at the platform's published pay-per-use prices, which can be changed at run time."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.control.price_list import PRICED, UNPRICED
from roost.platform.registry import all_operations

SEARCH = "/2/tweets/search/recent"


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    server = LiveServer(tag="usage").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def api(live: LiveServer) -> Iterator[Api]:
    creds = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
    client = Api(live.base_url, creds)
    yield client
    client.close()


@pytest.fixture(scope="module")
def other_app(api: Api) -> dict[str, Any]:
    created = api.http.post("/_roost/apps", json={"name": "usage-other"})
    assert created.status_code == 201, created.text
    return dict(created.json())


def usage(api: Api, **params: str) -> dict[str, Any]:
    response = api.http.get("/_roost/usage", params=params)
    assert response.status_code == 200, response.text
    return dict(response.json()["data"])


def set_prices(api: Api, prices: Any) -> httpx.Response:
    return api.http.post("/_roost/prices", json=prices)


def today() -> set[str]:
    """The UTC day now (and a second later: a test run may straddle midnight)."""
    return {time.strftime("%Y-%m-%d", time.gmtime(time.time() + delta)) for delta in (-1, 0, 1)}


def test_every_v2_operation_has_a_default_price_or_a_reason() -> None:
    ids = {op.operation_id for op in all_operations()}
    assert set(PRICED) | set(UNPRICED) == ids
    assert not set(PRICED) & set(UNPRICED)


def test_counts_and_cost_per_app_and_day(api: Api, other_app: dict[str, Any]) -> None:
    for _ in range(3):
        assert api.get(SEARCH, params={"query": "usage"}).status_code == 200
    assert api.get("/2/users/me", auth="oauth2").status_code == 200
    assert api.get("/2/users/me").status_code == 403  # counted, not billed: a refusal returns nothing
    other = {"Authorization": f"Bearer {other_app['bearer_token']}"}
    assert api.http.get(SEARCH, params={"query": "usage"}, headers=other).status_code == 200

    report = usage(api)
    assert report["currency"] == "USD"
    prices = {price["operation"]: price for price in report["prices"]}
    assert prices["tweetsRecentSearch"]["usd"] == 0.005 and prices["tweetsRecentSearch"]["per"] == "resource"
    assert prices["findMyUser"]["usd"] == 0.01
    assert prices["tweetsRecentSearch"]["source"].startswith("https://docs.x.com/")
    assert prices["getWebhooks"]["usd"] == 0 and prices["getWebhooks"]["note"]

    rows = {row["app_id"]: row for row in report["days"]}
    mine = rows[next(a for a in rows if a != other_app["id"])]
    assert mine["day"] in today()
    search = mine["by_operation"]["tweetsRecentSearch"]
    assert (search["requests"], search["cost_usd"]) == (3, 0.015)
    me = mine["by_operation"]["findMyUser"]
    assert (me["requests"], me["billed"], me["cost_usd"]) == (2, 1, 0.01)
    assert mine["requests"] == 5 and mine["cost_usd"] == 0.025

    theirs = rows[other_app["id"]]
    assert theirs["by_operation"] == {"tweetsRecentSearch": {"requests": 1, "billed": 1, "cost_usd": 0.005}}
    assert report["total_usd"] == pytest.approx(0.03)

    only_theirs = usage(api, app_id=other_app["id"])
    assert [row["app_id"] for row in only_theirs["days"]] == [other_app["id"]]
    assert only_theirs["total_usd"] == 0.005


def test_a_price_set_at_run_time_and_restored(api: Api) -> None:
    before = usage(api)
    searched = sum(
        row["by_operation"].get("tweetsRecentSearch", {}).get("billed", 0) for row in before["days"]
    )
    assert searched > 0
    changed = set_prices(api, {"tweetsRecentSearch": 1, "getWebhooks": 0.5})
    assert changed.status_code == 200, changed.text
    listed = {price["operation"]: price for price in changed.json()["data"]}
    assert listed["tweetsRecentSearch"]["usd"] == 1 and listed["tweetsRecentSearch"]["custom"] is True
    assert listed["tweetsRecentSearch"]["default_usd"] == 0.005
    after = usage(api)
    costs = [
        row["by_operation"]["tweetsRecentSearch"]["cost_usd"]
        for row in after["days"]
        if "tweetsRecentSearch" in row["by_operation"]
    ]
    assert sum(costs) == pytest.approx(searched * 1.0)

    restored = set_prices(api, {"tweetsRecentSearch": None, "getWebhooks": None})
    assert restored.status_code == 200
    again = {price["operation"]: price for price in usage(api)["prices"]}
    assert again["tweetsRecentSearch"]["usd"] == 0.005 and again["tweetsRecentSearch"]["custom"] is False
    assert again["getWebhooks"]["usd"] == 0


def test_an_ads_operation_may_be_priced_too(api: Api) -> None:
    changed = set_prices(api, {"listAdsAccounts": 0.002})
    assert changed.status_code == 200, changed.text
    listed = {price["operation"]: price for price in changed.json()["data"]}
    assert listed["listAdsAccounts"]["usd"] == 0.002
    assert set_prices(api, {"listAdsAccounts": None}).status_code == 200
    assert "listAdsAccounts" not in {price["operation"] for price in usage(api)["prices"]}


@pytest.mark.parametrize(
    "body",
    [
        {"noSuchOperation": 0.01},
        {"tweetsRecentSearch": -0.01},
        {"tweetsRecentSearch": "0.01"},
        {"tweetsRecentSearch": True},
        {"tweetsRecentSearch": [1]},
        ["tweetsRecentSearch"],
        "free",
    ],
)
def test_bad_prices_are_refused_and_change_nothing(api: Api, body: Any) -> None:
    refused = set_prices(api, {"tweetsRecentSearch": 0.5, **body} if isinstance(body, dict) else body)
    assert refused.status_code == 400, refused.text
    assert "errors" in refused.json()
    prices = {price["operation"]: price for price in usage(api)["prices"]}
    assert prices["tweetsRecentSearch"]["usd"] == 0.005  # nothing applied, not even the good part


def test_a_body_that_is_not_json_is_refused(api: Api) -> None:
    refused = api.http.post(
        "/_roost/prices", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert refused.status_code == 400
    assert api.http.post("/_roost/prices", content=b"").status_code == 400
    assert api.http.get("/_roost/usage", params={"app_id": "x1"}).status_code == 400
