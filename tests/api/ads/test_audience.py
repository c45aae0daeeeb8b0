"""Audience estimate and targeting suggestions."""

from __future__ import annotations

import uuid
from typing import Any

from tests.api.ads.helpers import AdsClient, error_codes
from tests.api.helpers import create_ok
from tests.support.client import Api

from roost.ads import catalog

US = "96683cc9126741d1"


def estimate(sandbox: AdsClient, account: dict[str, Any], criteria: Any) -> Any:
    return sandbox.post(f"/accounts/{account['id']}/audience_estimate", json=criteria)


def size(sandbox: AdsClient, account: dict[str, Any], *criteria: dict[str, Any]) -> dict[str, int]:
    response = estimate(sandbox, account, {"targeting_criteria": list(criteria)})
    assert response.status_code == 200, response.text
    result: dict[str, int] = response.json()["data"]["audience_size"]
    return result


def criterion(kind: str, value: str, op: str | None = None) -> dict[str, Any]:
    item = {"targeting_type": kind, "targeting_value": value}
    if op:
        item["operator_type"] = op
    return item


INTEREST = catalog.interests()[5]["targeting_value"]


def test_estimate_shape_and_echo(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = estimate(sandbox, account, {"targeting_criteria": [criterion("INTEREST", INTEREST)]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["request"] == {"params": {"account_id": account["id"], "targeting_criteria": None}}
    audience = body["data"]["audience_size"]
    assert list(body["data"]) == ["audience_size"]
    assert 0 < audience["min"] < audience["max"]
    assert "next_cursor" not in body
    again = estimate(sandbox, account, [criterion("INTEREST", INTEREST)])  # a bare array is accepted
    assert again.json()["data"]["audience_size"] == audience  # deterministic


def test_primary_criteria_are_ored_and_others_anded(sandbox: AdsClient, account: dict[str, Any]) -> None:
    interest = size(sandbox, account, criterion("INTEREST", INTEREST))
    keyword = criterion("BROAD_KEYWORD", "coffee")
    both = size(sandbox, account, criterion("INTEREST", INTEREST), keyword)
    assert both["max"] > interest["max"]
    in_us = size(sandbox, account, criterion("INTEREST", INTEREST), criterion("LOCATION", US))
    assert in_us["max"] < interest["max"]
    women = size(
        sandbox, account, criterion("INTEREST", INTEREST), criterion("LOCATION", US), criterion("GENDER", "2")
    )
    assert women["max"] < in_us["max"]
    either = size(
        sandbox,
        account,
        criterion("INTEREST", INTEREST),
        criterion("GENDER", "1"),
        criterion("GENDER", "2"),
    )
    assert abs(either["max"] - interest["max"]) <= 1  # one type ORed: both genders reach everyone
    excluded = size(
        sandbox, account, criterion("INTEREST", INTEREST), criterion("BROAD_KEYWORD", "coffee", "NE")
    )
    assert excluded["max"] < interest["max"]
    show = next(s for s in catalog.tv_shows("en-US") if s["name"] == "Sunday Night Football")
    tv = size(sandbox, account, criterion("TV_SHOW", str(show["targeting_value"])))
    assert 0.9 * show["estimated_users"] <= tv["min"] <= tv["max"] <= 1.1 * show["estimated_users"]


def test_a_primary_criterion_is_required(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = estimate(
        sandbox, account, {"targeting_criteria": [criterion("LOCATION", US), criterion("GENDER", "1")]}
    )
    assert response.status_code == 400 and error_codes(response) == ["INVALID_PARAMETER"]
    assert response.json()["errors"][0]["parameter"] == "targeting_criteria"
    only_excluded = estimate(sandbox, account, [criterion("BROAD_KEYWORD", "x", "NE")])
    assert only_excluded.status_code == 400
    assert response.json()["request"] == {"params": {"account_id": account["id"], "targeting_criteria": None}}


def test_estimate_validates_each_criterion(sandbox: AdsClient, account: dict[str, Any]) -> None:
    # Malformed criteria are 400; a well-formed one naming an audience that does not exist is 404.
    cases = [
        ({"targeting_criteria": []}, 400, "INVALID_PARAMETER"),
        ({}, 400, "MISSING_PARAMETER"),
        ({"targeting_criteria": "INTEREST"}, 400, "INVALID_PARAMETER"),
        ([criterion("INTEREST", "99999")], 400, "INVALID_PARAMETER"),
        ([criterion("INTEREST", INTEREST, "GTE")], 400, "INVALID_PARAMETER"),
        ([{"targeting_type": "INTEREST"}], 400, "MISSING_PARAMETER"),
        ([criterion("NOPE", "1")], 400, "INVALID_PARAMETER"),
        (["INTEREST"], 400, "INVALID_PARAMETER"),
        ([criterion("CUSTOM_AUDIENCE", "nope1")], 404, "TAILORED_AUDIENCE_NOT_FOUND"),
    ]
    for body, status, code in cases:
        response = estimate(sandbox, account, body)
        assert response.status_code == status, body
        assert error_codes(response) == [code], body
    form = sandbox.post(f"/accounts/{account['id']}/audience_estimate", form={"targeting_type": "INTEREST"})
    assert form.status_code == 400


# ---- targeting suggestions ----------------------------------------------------------------------


def suggestions(sandbox: AdsClient, account: dict[str, Any], **params: Any) -> Any:
    return sandbox.get(f"/accounts/{account['id']}/targeting_suggestions", params)


def test_keyword_suggestions_come_from_posts(
    sandbox: AdsClient, account: dict[str, Any], api: Api, make_user: Any
) -> None:
    topic = f"zq{uuid.uuid4().hex[:8]}"
    author = make_user()
    for text in (
        f"{topic} pairs well with oatmilk and cardamom",
        f"Trying {topic} with oatmilk today https://example.com @friend",
        f"the {topic} oatmilk latte is back",
        "oatmilk without the topic word does not count",
    ):
        create_ok(api, author, text=text)
    response = suggestions(sandbox, account, suggestion_type="KEYWORD", targeting_values=topic, count=3)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"][0] == {"suggestion_type": "KEYWORD", "suggestion_value": "oatmilk"}
    values = [s["suggestion_value"] for s in body["data"]]
    assert len(values) == 3 and topic not in values and "the" not in values and "friend" not in values
    assert body["request"]["params"] == {
        "account_id": account["id"],
        "suggestion_type": "KEYWORD",
        "targeting_values": [topic],
        "count": 3,
    }
    nothing = suggestions(
        sandbox, account, suggestion_type="KEYWORD", targeting_values=f"zz{uuid.uuid4().hex}"
    )
    assert nothing.json()["data"] == []


def test_user_suggestions_come_from_the_follow_graph(
    sandbox: AdsClient, account: dict[str, Any], api: Api, make_user: Any
) -> None:
    star, popular, niche, fan_a, fan_b = (make_user() for _ in range(5))
    for follower, followee in (
        (fan_a, star),
        (fan_b, star),
        (fan_a, popular),
        (fan_b, popular),
        (fan_a, niche),
    ):
        made = api.http.post(
            "/_roost/follows", json={"follower_id": follower["id"], "followee_id": followee["id"]}
        )
        assert made.status_code == 201, made.text
    response = suggestions(sandbox, account, suggestion_type="USER_ID", targeting_values=star["id"])
    assert response.status_code == 200, response.text
    values = [s["suggestion_value"] for s in response.json()["data"]]
    assert values[:2] == [popular["id"], niche["id"]]  # most shared followers first
    assert star["id"] not in values
    assert all(s["suggestion_type"] == "USER_ID" for s in response.json()["data"])


def test_suggestion_parameters(sandbox: AdsClient, account: dict[str, Any]) -> None:
    missing = suggestions(sandbox, account, targeting_values="coffee")
    assert missing.status_code == 400 and error_codes(missing) == ["MISSING_PARAMETER"]
    no_values = suggestions(sandbox, account, suggestion_type="KEYWORD")
    assert error_codes(no_values) == ["MISSING_PARAMETER"]
    mixed = suggestions(sandbox, account, suggestion_type="KEYWORD", targeting_values="coffee,2244994945")
    assert mixed.status_code == 400 and error_codes(mixed) == ["INVALID_PARAMETER"]
    not_ids = suggestions(sandbox, account, suggestion_type="USER_ID", targeting_values="coffee")
    assert not_ids.status_code == 400 and error_codes(not_ids) == ["INVALID_PARAMETER"]
    for count in (0, 51, "x"):
        bad = suggestions(sandbox, account, suggestion_type="KEYWORD", targeting_values="coffee", count=count)
        assert bad.status_code == 400 and bad.json()["errors"][0]["parameter"] == "count"
    bad_type = suggestions(sandbox, account, suggestion_type="HASHTAG", targeting_values="coffee")
    assert bad_type.status_code == 400


def test_the_python_sdk_loads_an_estimate(
    server: Any, credentials: dict[str, Any], sandbox: AdsClient, account: dict[str, Any]
) -> None:
    """twitter-ads 11.0.0 posts `{"targeting_criteria": [...]}` as JSON to /11/ and reads `data`."""
    from twitter_ads.account import Account
    from twitter_ads.client import Client
    from twitter_ads.http import Request
    from twitter_ads.targeting import AudienceEstimate

    saved = (Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN)
    Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN = server.base_url, server.base_url + "/sandbox"
    try:
        client = Client(
            credentials["consumer_key"],
            credentials["consumer_secret"],
            credentials["access_token"],
            credentials["access_token_secret"],
            options={"sandbox": True},
        )
        loaded = AudienceEstimate.load(
            Account.load(client, account["id"]),
            {"targeting_criteria": [{"targeting_type": "INTEREST", "targeting_value": INTEREST}]},
        )
    finally:
        Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN = saved
    assert loaded.audience_size == size(sandbox, account, criterion("INTEREST", INTEREST))
