"""The usage ledger (issues 17 and 20): `GET /_roost/usage` prices each app's requests per UTC day and
operation at the platform's published pay-per-use prices (reads per resource returned, writes per
request, a post with a URL and owned reads apart), `POST /_roost/prices` changes prices for the
requests that follow, and `POST /_roost/apps/credit` gives an app a credit it can run out of."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.domain.price_list import OWNED_READS, PRICED, UNPRICED
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


def new_app(api: Api, name: str, package: str = "enterprise") -> dict[str, Any]:
    created = api.http.post("/_roost/apps", json={"name": name, "package": package})
    assert created.status_code == 201, created.text
    return dict(created.json())


def usage(api: Api, **params: str) -> dict[str, Any]:
    response = api.http.get("/_roost/usage", params=params)
    assert response.status_code == 200, response.text
    return dict(response.json()["data"])


def set_prices(api: Api, prices: Any) -> httpx.Response:
    return api.http.post("/_roost/prices", json=prices)


def set_credit(api: Api, consumer_key: str, credit: Any) -> httpx.Response:
    return api.http.post("/_roost/apps/credit", json={"consumer_key": consumer_key, "credit_usd": credit})


def today() -> set[str]:
    """The UTC day now (and a second either side: a test run may straddle midnight)."""
    return {time.strftime("%Y-%m-%d", time.gmtime(time.time() + delta)) for delta in (-1, 0, 1)}


def operations_of(report: dict[str, Any], app_id: str) -> dict[str, Any]:
    rows = [row for row in report["days"] if row["app_id"] == app_id]
    assert len(rows) == 1 and rows[0]["day"] in today()
    return dict(rows[0]["by_operation"])


def app_row(report: dict[str, Any], app_id: str) -> dict[str, Any]:
    return dict(next(row for row in report["apps"] if row["app_id"] == app_id))


def bearer(app: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {app['bearer_token']}"}


@pytest.fixture(scope="module")
def post(api: Api) -> str:
    """A post of the demo data, for lookups priced as one resource each."""
    return str(api.get(SEARCH, params={"query": "roost"}).json()["data"][0]["id"])


def demo_app_id(api: Api) -> str:
    return next(
        row["app_id"] for row in usage(api)["apps"] if row["consumer_key"] == api.creds["consumer_key"]
    )


def test_every_v2_operation_has_a_default_price_or_a_reason() -> None:
    ids = {op.operation_id for op in all_operations()}
    assert set(PRICED) | set(UNPRICED) == ids
    assert not set(PRICED) & set(UNPRICED)
    paths = {op.operation_id: op.path for op in all_operations()}
    for operation in OWNED_READS:  # the owned read is told by the path's user id
        assert paths[operation].startswith("/2/users/{id}/"), operation


def test_reads_cost_per_resource_and_refusals_nothing(api: Api) -> None:
    app = new_app(api, "usage-reads")
    searches = [
        api.http.get(SEARCH, params={"query": query}, headers=bearer(app))
        for query in ("roost", "nothingmatchesthis")
    ]
    assert [s.status_code for s in searches] == [200, 200]
    found = searches[0].json()["meta"]["result_count"]
    assert found > 0 and searches[1].json()["meta"]["result_count"] == 0
    ids = ",".join(post["id"] for post in searches[0].json()["data"][:3])
    assert api.http.get("/2/tweets", params={"ids": ids}, headers=bearer(app)).status_code == 200
    assert api.http.get("/2/users/me", headers=bearer(app)).status_code == 403  # counted, not billed

    report = usage(api, app_id=app["id"])
    by_operation = operations_of(report, app["id"])
    assert by_operation["tweetsRecentSearch"] == {
        "requests": 2,
        "billed": 2,
        "resources": found,
        "cost_usd": pytest.approx(found * 0.005),
    }
    assert by_operation["findTweetsById"]["resources"] == 3
    assert by_operation["findTweetsById"]["cost_usd"] == pytest.approx(0.015)
    assert by_operation["findMyUser"] == {"requests": 1, "billed": 0, "resources": 0, "cost_usd": 0}
    mine = app_row(report, app["id"])
    assert mine["consumer_key"] == app["consumer_key"] and mine["package"] == "enterprise"
    assert mine["cost_usd"] == pytest.approx((found + 3) * 0.005) == report["total_usd"]
    assert (mine["requests"], mine["billed"], mine["credit_usd"]) == (4, 3, None)
    assert [row["app_id"] for row in report["apps"]] == [app["id"]]


def test_owned_reads_and_posts_with_a_url_have_their_own_prices(api: Api) -> None:
    me = api.creds["user_id"]
    token = api.oauth2()
    plain = api.http.post("/2/tweets", json={"text": "ledger: no link here"}, headers=token)
    linked = api.http.post("/2/tweets", json={"text": "ledger: see roost.example.com/docs"}, headers=token)
    assert (plain.status_code, linked.status_code) == (201, 201)
    own = api.http.get(f"/2/users/{me}/tweets", params={"max_results": 5}, headers=token)
    someone = api.http.get("/2/users/search", params={"query": "a"}, headers=token).json()["data"]
    other_id = next(user["id"] for user in someone if user["id"] != me)
    theirs = api.http.get(f"/2/users/{other_id}/tweets", params={"max_results": 5}, headers=token)
    assert own.status_code == theirs.status_code == 200
    own_count, their_count = own.json()["meta"]["result_count"], theirs.json()["meta"]["result_count"]
    assert own_count == 5 and their_count > 0

    app_id = demo_app_id(api)
    by_operation = operations_of(usage(api, app_id=app_id), app_id)
    posts = by_operation["createTweet"]
    assert posts["variants"] == {"url": {"requests": 1, "billed": 1, "resources": 1, "cost_usd": 0.2}}
    assert posts["cost_usd"] == pytest.approx(0.2 + 0.015)
    timeline = by_operation["usersIdTweets"]
    assert timeline["variants"] == {
        "owned": {
            "requests": 1,
            "billed": 1,
            "resources": own_count,
            "cost_usd": pytest.approx(own_count * 0.001),
        }
    }
    assert timeline["cost_usd"] == pytest.approx(own_count * 0.001 + their_count * 0.005)

    prices = {(row["operation"], row["variant"]): row for row in usage(api)["prices"]}
    assert prices[("createTweet", "url")]["usd"] == 0.2
    assert prices[("createTweet", "url")]["category"] == "Content: Create (with URL)"
    assert prices[("usersIdTweets", "owned")]["usd"] == 0.001
    assert prices[("usersIdTweets", None)]["usd"] == 0.005


def test_a_price_change_applies_to_the_requests_after_it(api: Api, post: str) -> None:
    app = new_app(api, "usage-prices")
    assert api.http.get(f"/2/tweets/{post}", headers=bearer(app)).status_code == 200  # a demo post
    changed = set_prices(api, {"findTweetById": 1, "getWebhooks": 0.5})
    assert changed.status_code == 200, changed.text
    listed = {row["operation"]: row for row in changed.json()["data"] if row["variant"] is None}
    assert listed["findTweetById"]["usd"] == 1 and listed["findTweetById"]["custom"] is True
    assert listed["findTweetById"]["default_usd"] == 0.005
    assert api.http.get(f"/2/tweets/{post}", headers=bearer(app)).status_code == 200
    restored = set_prices(api, {"findTweetById": None, "getWebhooks": None})
    assert restored.status_code == 200
    assert api.http.get(f"/2/tweets/{post}", headers=bearer(app)).status_code == 200

    lookups = operations_of(usage(api, app_id=app["id"]), app["id"])["findTweetById"]
    assert lookups["requests"] == 3 and lookups["cost_usd"] == pytest.approx(0.005 + 1 + 0.005)
    again = {row["operation"]: row for row in usage(api)["prices"] if row["variant"] is None}
    assert again["findTweetById"]["usd"] == 0.005 and again["findTweetById"]["custom"] is False
    assert again["getWebhooks"]["usd"] == 0


def test_an_ads_operation_may_be_priced_too(api: Api) -> None:
    changed = set_prices(api, {"listAdsAccounts": 0.002})
    assert changed.status_code == 200, changed.text
    listed = {row["operation"]: row for row in changed.json()["data"]}
    assert listed["listAdsAccounts"]["usd"] == 0.002
    assert set_prices(api, {"listAdsAccounts": None}).status_code == 200
    assert "listAdsAccounts" not in {row["operation"] for row in usage(api)["prices"]}


def test_an_app_out_of_credit_gets_the_platforms_402_until_given_more(api: Api, post: str) -> None:
    app = new_app(api, "usage-credit", package="pay-per-use")
    project_id = api.http.get("/2/usage/tweets", headers=bearer(app)).json()["data"]["project_id"]
    given = set_credit(api, app["consumer_key"], 0.012)
    assert given.status_code == 200, given.text
    assert given.json()["data"]["credit_usd"] == 0.012 and given.json()["data"]["out_of_credit"] is False
    for _ in range(3):  # 0.005 each: the third takes the credit below zero, as the platform lets it
        assert api.http.get(f"/2/tweets/{post}", headers=bearer(app)).status_code == 200
    refused = api.http.get(f"/2/tweets/{post}", headers=bearer(app))
    assert refused.status_code == 402
    project = api.http.get("/2/usage/tweets", headers=bearer(app))
    assert project.status_code == 402
    assert refused.json() == {
        "title": "CreditsDepleted",
        "detail": f"Your enrolled account [{project_id}] does not have any credits to fulfill this request.",
        "type": "https://api.x.com/2/problems/credits",
    }
    row = app_row(usage(api, app_id=app["id"]), app["id"])
    assert row["out_of_credit"] is True and row["credit_usd"] == pytest.approx(-0.003)
    assert (row["requests"], row["billed"]) == (
        6,
        4,
    )  # with the first usage report  # the refusals are counted, and cost nothing

    assert set_credit(api, app["consumer_key"], 5).status_code == 200
    assert api.http.get(f"/2/tweets/{post}", headers=bearer(app)).status_code == 200
    assert app_row(usage(api, app_id=app["id"]), app["id"])["credit_usd"] == pytest.approx(4.995)
    assert set_credit(api, app["consumer_key"], None).json()["data"]["credit_usd"] is None
    assert set_credit(api, app["consumer_key"], 0).json()["data"]["out_of_credit"] is True
    assert api.http.get(f"/2/tweets/{post}", headers=bearer(app)).status_code == 402
    assert set_credit(api, app["consumer_key"], None).status_code == 200
    assert api.http.get(f"/2/tweets/{post}", headers=bearer(app)).status_code == 200


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"credit_usd": 1}, "consumer_key is required"),
        ({"consumer_key": "nobody", "credit_usd": 1}, "consumer_key must name an existing app"),
        ({"consumer_key": "KEY"}, "credit_usd is required"),
        ({"consumer_key": "KEY", "credit_usd": -1}, "credit_usd must be a number"),
        ({"consumer_key": "KEY", "credit_usd": "5"}, "credit_usd must be a number"),
        ({"consumer_key": "KEY", "credit_usd": True}, "credit_usd must be a number"),
    ],
)
def test_bad_credit_is_refused(api: Api, body: dict[str, Any], message: str) -> None:
    if body.get("consumer_key") == "KEY":
        body = {**body, "consumer_key": api.creds["consumer_key"]}
    refused = api.http.post("/_roost/apps/credit", json=body)
    assert refused.status_code == 400, refused.text
    assert refused.json()["errors"][0]["message"].startswith(message)


def test_the_ledger_outlives_the_process(live: LiveServer, api: Api, post: str) -> None:
    app = new_app(api, "usage-durable")
    assert api.http.get(f"/2/tweets/{post}", headers=bearer(app)).status_code == 200
    assert set_credit(api, app["consumer_key"], 1).status_code == 200
    assert set_prices(api, {"findTweetById": 0.5}).status_code == 200
    before = app_row(usage(api, app_id=app["id"]), app["id"])
    again = LiveServer(tag="usage-again", db_url=live.settings.db_url).start()
    try:
        report = httpx.get(again.base_url + "/_roost/usage", params={"app_id": app["id"]}, timeout=30)
        assert app_row(report.json()["data"], app["id"]) == before
        prices = {row["operation"]: row for row in report.json()["data"]["prices"] if row["variant"] is None}
        assert (prices["findTweetById"]["usd"], prices["findTweetById"]["custom"]) == (0.5, True)
    finally:
        again.stop()
        assert set_prices(api, {"findTweetById": None}).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"noSuchOperation": 0.01},
        {"createTweet:nothing": 0.01},
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
    prices = {row["operation"]: row for row in usage(api)["prices"] if row["variant"] is None}
    assert prices["tweetsRecentSearch"]["usd"] == 0.005  # nothing applied, not even the good part


def test_a_body_that_is_not_json_is_refused(api: Api) -> None:
    refused = api.http.post(
        "/_roost/prices", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert refused.status_code == 400
    assert api.http.post("/_roost/prices", content=b"").status_code == 400
    assert api.http.get("/_roost/usage", params={"app_id": "x1"}).status_code == 400
