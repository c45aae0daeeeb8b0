"""Batch campaigns and line items: JSON arrays applied all or nothing, in order."""

from __future__ import annotations

from typing import Any

import pytest
from tests.api.ads.helpers import AdsClient, error_codes

from roost.ads import errors


def _batch(account: dict[str, Any], kind: str) -> str:
    return f"/batch/accounts/{account['id']}/{kind}"


def _campaign(account: dict[str, Any], name: str, **extra: Any) -> dict[str, Any]:
    return {
        "operation_type": "Create",
        "params": {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": name,
            "daily_budget_amount_local_micro": 10_000_000,
            **extra,
        },
    }


def _names(sandbox: AdsClient, account: dict[str, Any]) -> list[str]:
    response = sandbox.get(f"/accounts/{account['id']}/campaigns", {"with_draft": "true"})
    return [c["name"] for c in response.json()["data"]]


def test_batch_creates_updates_and_deletes_in_order(sandbox: AdsClient, account: dict[str, Any]) -> None:
    existing = sandbox.post(
        f"/accounts/{account['id']}/campaigns",
        {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "old",
            "daily_budget_amount_local_micro": 10**7,
        },
    ).json()["data"]
    doomed = sandbox.post(
        f"/accounts/{account['id']}/campaigns",
        {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "doomed",
            "daily_budget_amount_local_micro": 10**7,
        },
    ).json()["data"]
    response = sandbox.post(
        _batch(account, "campaigns"),
        json=[
            _campaign(account, "first", entity_status="PAUSED"),
            {"operation_type": "Update", "params": {"campaign_id": existing["id"], "name": "renamed"}},
            {"operation_type": "Delete", "params": {"campaign_id": doomed["id"]}},
            _campaign(account, "second"),
        ],
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data_type"] == "campaign"
    assert "next_cursor" not in body
    assert [c["name"] for c in body["data"]] == ["first", "renamed", "doomed", "second"]
    assert [c["deleted"] for c in body["data"]] == [False, False, True, False]
    assert body["data"][0]["reasons_not_servable"] == ["PAUSED_BY_ADVERTISER", "INCOMPLETE"]
    assert body["request"][0] == {
        "params": {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "first",
            "daily_budget_amount_local_micro": 10_000_000,
            "entity_status": "PAUSED",
            "account_id": account["id"],
        },
        "operation_type": "Create",
    }
    assert body["request"][2] == {
        "params": {"campaign_id": doomed["id"], "account_id": account["id"]},
        "operation_type": "Delete",
    }
    assert _names(sandbox, account) == ["renamed", "first", "second"]


def test_one_bad_item_writes_nothing(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.post(
        _batch(account, "campaigns"),
        json=[
            _campaign(account, "good"),
            {
                "operation_type": "Create",
                "params": {"funding_instrument_id": account["funding_instrument_id"]},
            },
            _campaign(account, "budget", daily_budget_amount_local_micro=5),
            {"operation_type": "Update", "params": {"campaign_id": "nope1", "name": "x"}},
        ],
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert "errors" not in body and "data" not in body
    problems = body["operation_errors"]
    assert len(problems) == 4
    assert problems[0] == []
    assert problems[1] == [
        {"code": "MISSING_PARAMETER", "message": '"name" is a required parameter', "parameter": "name"}
    ]
    assert [p["code"] for p in problems[2]] == ["INVALID_DENOMINATION"]
    assert [p["code"] for p in problems[3]] == ["NOT_FOUND"]
    assert [item["operation_type"] for item in body["request"]] == ["Create", "Create", "Create", "Update"]
    assert all(item["params"]["account_id"] == account["id"] for item in body["request"])
    assert _names(sandbox, account) == []  # the good item was rolled back too


def test_request_level_errors(sandbox: AdsClient, account: dict[str, Any]) -> None:
    too_many = sandbox.post(
        _batch(account, "campaigns"), json=[_campaign(account, f"c{i}") for i in range(41)]
    )
    assert too_many.status_code == 400
    assert error_codes(too_many) == ["INVALID_PARAMETER"]
    assert "operation_errors" not in too_many.json()
    form = sandbox.post(_batch(account, "campaigns"), form={"name": "x"})
    assert form.status_code == 400 and error_codes(form) == ["INVALID_PARAMETER"]
    not_array = sandbox.post(_batch(account, "campaigns"), json={"operation_type": "Create"})
    assert not_array.status_code == 400 and error_codes(not_array) == ["INVALID_PARAMETER"]
    bad_json = sandbox.post(
        _batch(account, "campaigns"), headers={"Content-Type": "application/json"}, json=None
    )
    assert bad_json.status_code == 400
    bad_operation = sandbox.post(
        _batch(account, "campaigns"), json=[{"operation_type": "Upsert", "params": {"name": "x"}}]
    )
    assert bad_operation.status_code == 400
    assert bad_operation.json()["operation_errors"][0][0]["parameter"] == "operation_type"
    exactly_forty = sandbox.post(
        _batch(account, "campaigns"), json=[_campaign(account, f"c{i}") for i in range(40)]
    )
    assert exactly_forty.status_code == 200 and len(exactly_forty.json()["data"]) == 40


@pytest.mark.parametrize("kind", ["campaigns", "line_items", "targeting_criteria"])
def test_missing_operation_type_is_a_missing_parameter(
    sandbox: AdsClient, account: dict[str, Any], kind: str
) -> None:
    response = sandbox.post(
        _batch(account, kind),
        json=[{"params": {"name": "x"}}, {"operation_type": None, "params": {"name": "y"}}],
    )
    assert response.status_code == 400, response.text
    body = response.json()
    missing = {
        "code": "MISSING_PARAMETER",
        "message": '"operation_type" is a required parameter',
        "parameter": "operation_type",
    }
    assert body["operation_errors"] == [[missing], [missing]]
    # Not sent, so not echoed (no `"operation_type": null`), as for any parameter.
    assert body["request"] == [
        {"params": {"name": "x", "account_id": account["id"]}},
        {"params": {"name": "y", "account_id": account["id"]}},
    ]


def test_json_nulls_are_not_spelled_none(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.post(
        _batch(account, "campaigns"),
        json=[
            _campaign(account, "nulls", daily_budget_amount_local_micro=[None], entity_status=[None]),
            {"operation_type": "", "params": {"name": "blank"}},
        ],
    )
    assert response.status_code == 400, response.text
    problems = response.json()["operation_errors"]
    assert problems[0] == [
        {
            "code": "MISSING_PARAMETER",
            "message": '"daily_budget_amount_local_micro" is a required parameter',
            "parameter": "daily_budget_amount_local_micro",
        }
    ]
    assert problems[1] == [
        {
            "code": "INVALID_PARAMETER",
            "message": 'Expected a value in Create, Update, Delete, got "" for operation_type',
            "parameter": "operation_type",
        }
    ]


def test_line_item_batch_uses_the_same_rules(
    sandbox: AdsClient, account: dict[str, Any], credentials: dict[str, Any]
) -> None:
    campaign = sandbox.post(
        f"/accounts/{account['id']}/campaigns",
        {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "c",
            "daily_budget_amount_local_micro": 10**7,
        },
    ).json()["data"]["id"]
    create = {
        "campaign_id": campaign,
        "objective": "ENGAGEMENTS",
        "product_type": "PROMOTED_TWEETS",
        "placements": ["ALL_ON_TWITTER"],
        "bid_amount_local_micro": 250000,
    }
    response = sandbox.post(
        _batch(account, "line_items"),
        json=[
            {"operation_type": "Create", "params": {**create, "name": "one"}},
            {
                "operation_type": "Create",
                "params": {**create, "name": "two", "placements": "TWITTER_TIMELINE"},
            },
        ],
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data_type"] == "line_item"
    one, two = body["data"]
    assert one["bid_strategy"] == "MAX" and one["advertiser_user_id"] == credentials["user_id"]
    assert two["placements"] == ["TWITTER_TIMELINE"]
    assert body["request"][0]["params"]["placements"] == ["ALL_ON_TWITTER"]
    assert body["request"][0]["params"]["bid_amount_local_micro"] == 250000

    failed = sandbox.post(
        _batch(account, "line_items"),
        json=[
            {"operation_type": "Update", "params": {"line_item_id": one["id"], "name": "changed"}},
            {
                "operation_type": "Update",
                "params": {"line_item_id": two["id"], "placements": "PUBLISHER_NETWORK", "categories": []},
            },
            {"operation_type": "Create", "params": {**create, "objective": "REACH"}},
            {"operation_type": "Update", "params": {"line_item_id": two["id"], "advertiser_user_id": "1"}},
        ],
    )
    assert failed.status_code == 400
    problems = failed.json()["operation_errors"]
    assert problems[0] == [] and problems[1] == []  # placements are create-only: ignored on update
    assert problems[2][0]["parameter"] == "objective"
    assert problems[3][0]["message"] == "setting advertiser_user_id is not allowed"
    unchanged = sandbox.get(f"/accounts/{account['id']}/line_items/{one['id']}").json()["data"]
    assert unchanged["name"] == "one"

    deleted = sandbox.post(
        _batch(account, "line_items"),
        json=[{"operation_type": "Delete", "params": {"line_item_id": one["id"]}}],
    )
    assert deleted.status_code == 200 and deleted.json()["data"][0]["deleted"] is True
    again = sandbox.post(
        _batch(account, "line_items"),
        json=[{"operation_type": "Delete", "params": {"line_item_id": one["id"]}}],
    )
    assert again.status_code == 400
    assert again.json()["operation_errors"][0][0]["code"] == "NOT_FOUND"


def test_publisher_network_item_error_matches_the_platform(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    campaign = sandbox.post(
        f"/accounts/{account['id']}/campaigns",
        {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "c",
            "daily_budget_amount_local_micro": 10**7,
        },
    ).json()["data"]["id"]
    response = sandbox.post(
        _batch(account, "line_items"),
        json=[
            {
                "operation_type": "Create",
                "params": {
                    "campaign_id": campaign,
                    "objective": "ENGAGEMENTS",
                    "product_type": "PROMOTED_TWEETS",
                    "placements": "PUBLISHER_NETWORK",
                },
            }
        ],
    )
    assert response.status_code == 400
    assert response.json()["operation_errors"] == [
        [
            {
                "code": "INVALID_PARAMETER",
                "message": "A minimum of 1 items must be provided for categories",
                "parameter": "categories",
            }
        ]
    ]


def test_batch_counts_earlier_items_against_caps(
    sandbox: AdsClient, account: dict[str, Any], server: Any
) -> None:
    import httpx

    httpx.put(
        f"{server.base_url}/_roost/ads/accounts/{account['id']}/limits",
        json={"active_campaigns": 2},
        timeout=30,
    ).raise_for_status()
    response = sandbox.post(
        _batch(account, "campaigns"),
        json=[_campaign(account, "a"), _campaign(account, "b"), _campaign(account, "c")],
    )
    assert response.status_code == 400
    codes = [[p["code"] for p in item] for item in response.json()["operation_errors"]]
    assert codes == [[], [], ["TOO_MANY_CAMPAIGNS"]]
    assert _names(sandbox, account) == []


def test_hundred_line_items_per_campaign(sandbox: AdsClient, account: dict[str, Any]) -> None:
    made = sandbox.post(_batch(account, "campaigns"), json=[_campaign(account, "full")])
    c = made.json()["data"][0]["id"]
    batch = [
        {
            "operation_type": "Create",
            "params": {
                "campaign_id": c,
                "objective": "ENGAGEMENTS",
                "product_type": "PROMOTED_TWEETS",
                "placements": ["ALL_ON_TWITTER"],
                "entity_status": "DRAFT",
            },
        }
    ] * 40
    for _ in range(2):
        assert sandbox.post(f"/batch/accounts/{account['id']}/line_items", json=batch).status_code == 200
    assert sandbox.post(f"/batch/accounts/{account['id']}/line_items", json=batch[:20]).status_code == 200
    one_more = sandbox.post(
        f"/accounts/{account['id']}/line_items",
        {**batch[0]["params"], "placements": "ALL_ON_TWITTER"},
    )
    assert one_more.status_code == 400 and error_codes(one_more) == ["TOO_MANY_LINE_ITEMS"]


def test_error_messages_spell_null_as_empty() -> None:
    # Parsing drops JSON nulls first; the message templates hold to it for any other caller.
    assert errors.expected("Long", None, "x").item["message"] == 'Expected Long, got "" for x'
    assert errors.expected_one_of(("A", "B"), [None, "C"], "y").item["message"] == (
        'Expected a value in A, B, got ",C" for y'
    )
