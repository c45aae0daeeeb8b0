"""The targeting criteria batch: Create and Delete items, all or nothing, later items seeing earlier ones."""

from __future__ import annotations

from typing import Any

from tests.api.ads.helpers import AdsClient, error_codes
from tests.api.ads.test_targeting import US, created, make_line_item, post_criterion

from roost.ads import catalog


def batch_path(account: dict[str, Any]) -> str:
    return f"/batch/accounts/{account['id']}/targeting_criteria"


def create_item(line_item: dict[str, Any], kind: str, value: Any, op: str | None = "EQ") -> dict[str, Any]:
    params: dict[str, Any] = {
        "line_item_id": line_item["id"],
        "targeting_type": kind,
        "targeting_value": value,
    }
    if op is not None:
        params["operator_type"] = op
    return {"operation_type": "Create", "params": params}


def listed(sandbox: AdsClient, account: dict[str, Any], line_item: dict[str, Any]) -> list[dict[str, Any]]:
    response = sandbox.get(
        f"/accounts/{account['id']}/targeting_criteria", {"line_item_ids": line_item["id"]}
    )
    data: list[dict[str, Any]] = response.json()["data"]
    return data


def test_batch_creates_and_deletes_in_order(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    old = created(post_criterion(sandbox, account, line_item, "GENDER", "1"))
    response = sandbox.post(
        batch_path(account),
        json=[
            create_item(line_item, "LOCATION", US),
            {"operation_type": "Delete", "params": {"targeting_criterion_id": old["id"]}},
            create_item(line_item, "BROAD_KEYWORD", "espresso", "NE"),
        ],
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data_type"] == "targeting_criterion"
    location, deleted, keyword = body["data"]
    assert (location["targeting_type"], location["name"], location["deleted"]) == (
        "LOCATION",
        "United States",
        False,
    )
    assert (deleted["id"], deleted["deleted"]) == (old["id"], True)
    assert (keyword["targeting_value"], keyword["operator_type"]) == ("espresso", "NE")
    assert body["request"] == [
        {
            "params": {
                "line_item_id": line_item["id"],
                "targeting_type": "LOCATION",
                "targeting_value": US,
                "operator_type": "EQ",
                "account_id": account["id"],
            },
            "operation_type": "Create",
        },
        {
            "params": {"targeting_criterion_id": old["id"], "account_id": account["id"]},
            "operation_type": "Delete",
        },
        {
            "params": {
                "line_item_id": line_item["id"],
                "targeting_type": "BROAD_KEYWORD",
                "targeting_value": "espresso",
                "operator_type": "NE",
                "account_id": account["id"],
            },
            "operation_type": "Create",
        },
    ]
    assert "next_cursor" not in body
    assert {c["id"] for c in listed(sandbox, account, line_item)} == {location["id"], keyword["id"]}


def test_update_is_refused_and_nothing_is_written(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    existing = created(post_criterion(sandbox, account, line_item, "GENDER", "2"))
    response = sandbox.post(
        batch_path(account),
        json=[
            create_item(line_item, "LOCATION", US),
            {"operation_type": "Update", "params": {"targeting_criterion_id": existing["id"]}},
        ],
    )
    assert response.status_code == 400
    body = response.json()
    assert body["operation_errors"][0] == []
    assert [e["code"] for e in body["operation_errors"][1]] == ["INVALID_PARAMETER"]
    assert body["operation_errors"][1][0]["parameter"] == "operation_type"
    assert len(body["request"]) == 2 and "data" not in body
    assert [c["id"] for c in listed(sandbox, account, line_item)] == [
        existing["id"]
    ]  # the LOCATION was rolled back


def test_item_errors_use_the_single_post_rules(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    response = sandbox.post(
        batch_path(account),
        json=[
            create_item(line_item, "LOCATION", US, op=None),
            create_item(line_item, "APP_LIST", "a1", "EQ"),
            create_item(line_item, "AGE", "AGE_OVER_18"),
            create_item(line_item, "AGE", "AGE_OVER_21"),
            create_item({"id": "zzzz1"}, "GENDER", "1"),
            {"operation_type": "Delete", "params": {"targeting_criterion_id": "zzzz2"}},
        ],
    )
    assert response.status_code == 400
    errors = response.json()["operation_errors"]
    assert errors[0] == [
        {
            "code": "MISSING_PARAMETER",
            "message": '"operator_type" is a required parameter',
            "parameter": "operator_type",
        }
    ]
    assert errors[1][0]["parameter"] == "operator_type"
    assert errors[2] == []
    assert [e["code"] for e in errors[3]] == ["INVALID_TARGETING_TYPE"]  # sees the AGE of item 2
    assert [e["code"] for e in errors[4]] == ["NOT_FOUND"]
    assert [e["code"] for e in errors[5]] == ["NOT_FOUND"]
    assert listed(sandbox, account, line_item) == []


def test_later_items_see_earlier_items(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    show = next(s for s in catalog.tv_shows("en-US") if s["name"] == "The Bear")
    group = catalog.content_category("s5")
    assert group is not None
    response = sandbox.post(
        batch_path(account),
        json=[
            create_item(line_item, "LOCATION", US),
            create_item(line_item, "TV_SHOW", show["targeting_value"]),  # a JSON number, as catalogs give it
            create_item(line_item, "CAMPAIGN_ENGAGEMENT", line_item["campaign_id"]),
            create_item(line_item, "ENGAGEMENT_TYPE", "ENGAGEMENT"),
            *[create_item(line_item, "IAB_CATEGORY", iab) for iab in group["iab_categories"]],
        ],
    )
    assert response.status_code == 200, response.text
    assert [c["targeting_type"] for c in response.json()["data"]][:4] == [
        "LOCATION",
        "TV_SHOW",
        "CAMPAIGN_ENGAGEMENT",
        "ENGAGEMENT_TYPE",
    ]
    assert response.json()["data"][1]["targeting_value"] == str(show["targeting_value"])
    assert len(listed(sandbox, account, line_item)) == 4 + len(group["iab_categories"])


def test_incomplete_content_category_fails_the_batch(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    response = sandbox.post(
        batch_path(account),
        json=[
            create_item(line_item, "IAB_CATEGORY", "IAB1-2"),
            create_item(line_item, "IAB_CATEGORY", "IAB1-5"),
        ],
    )
    assert response.status_code == 400
    errors = response.json()["operation_errors"]
    assert errors[0] == [] and [e["code"] for e in errors[1]] == ["INVALID_PARAMETER"]
    assert "IAB1-7" in errors[1][0]["message"]
    assert listed(sandbox, account, line_item) == []


def test_request_level_errors(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    too_many = sandbox.post(batch_path(account), json=[create_item(line_item, "GENDER", "1")] * 501)
    assert too_many.status_code == 400 and "errors" in too_many.json()
    assert "500" in too_many.json()["errors"][0]["message"]
    not_array = sandbox.post(batch_path(account), json={"operation_type": "Create"})
    assert not_array.status_code == 400 and error_codes(not_array) == ["INVALID_PARAMETER"]
    empty = sandbox.post(batch_path(account), json=[])
    assert empty.status_code == 400
    form = sandbox.post(batch_path(account), form={"operation_type": "Create"})
    assert form.status_code == 400 and error_codes(form) == ["INVALID_PARAMETER"]
    broken = sandbox.post(batch_path(account), headers={"Content-Type": "application/json"}, json=None)
    assert broken.status_code == 400


def test_full_batch_of_500(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    items = [create_item(line_item, "PHRASE_KEYWORD", f"word{i}") for i in range(500)]
    response = sandbox.post(batch_path(account), json=items)
    assert response.status_code == 200, response.text
    assert len(response.json()["data"]) == 500
    total = sandbox.get(
        f"/accounts/{account['id']}/targeting_criteria",
        {"line_item_ids": line_item["id"], "with_total_count": True},
    )
    assert total.json()["total_count"] == 500
