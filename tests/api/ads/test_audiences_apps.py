"""App lists, line item apps, APP_LIST targeting against real app lists, and the behavior catalogs."""

from __future__ import annotations

from typing import Any

from tests.api.ads.audience_support import make_app_list
from tests.api.ads.helpers import AdsClient, error_codes
from tests.api.ads.test_targeting import created, make_line_item, post_criterion


def test_app_lists_create_list_get_delete(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/app_lists"
    response = sandbox.post(
        path, {"name": "competitors", "app_store_identifiers": "com.example.one,333903271,com.example.one"}
    )
    assert response.status_code == 200, response.text
    app_list = response.json()["data"]
    assert app_list["name"] == "competitors" and app_list["deleted"] is False
    assert app_list["apps"] == [
        {"app_store_identifier": "com.example.one", "os_type": "Android"},
        {"app_store_identifier": "333903271", "os_type": "iOS"},
    ]
    assert response.json()["request"]["params"]["app_store_identifiers"] == [
        "com.example.one",
        "333903271",
        "com.example.one",
    ]
    listed = sandbox.get(path).json()
    assert listed["data"] == [{"id": app_list["id"], "name": "competitors"}] and listed["next_cursor"] is None
    one = sandbox.get(f"{path}/{app_list['id']}").json()["data"]
    assert one["apps"] == app_list["apps"]
    deleted = sandbox.delete(f"{path}/{app_list['id']}").json()["data"]
    assert deleted["deleted"] is True
    assert sandbox.get(f"{path}/{app_list['id']}").status_code == 404
    assert sandbox.get(path).json()["data"] == []


def test_app_list_rules(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/app_lists"
    bad = sandbox.post(path, {"name": "x", "app_store_identifiers": "not an app"})
    assert bad.status_code == 400 and bad.json()["errors"][0]["parameter"] == "app_store_identifiers"
    missing = sandbox.post(path, {"name": "x"})
    assert missing.status_code == 400 and error_codes(missing) == ["MISSING_PARAMETER"]
    too_many = sandbox.post(path, {"name": "x", "app_store_identifiers": [str(n) for n in range(1, 502)]})
    assert too_many.status_code == 400 and "500" in too_many.json()["errors"][0]["message"]
    assert (
        sandbox.post(
            path, {"name": "x", "app_store_identifiers": [str(n) for n in range(1, 501)]}
        ).status_code
        == 200
    )
    for _ in range(99):
        make_app_list(sandbox, account["id"])
    over = sandbox.post(path, {"name": "one too many", "app_store_identifiers": "com.example.app"})
    assert over.status_code == 400 and "100" in over.json()["errors"][0]["message"]


def test_app_list_targeting_needs_a_real_list(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    unknown = post_criterion(sandbox, account, line_item, "APP_LIST", "a1b2", "NE")
    assert unknown.status_code == 400 and unknown.json()["errors"][0]["parameter"] == "targeting_value"
    app_list = make_app_list(sandbox, account["id"])
    excluded = created(post_criterion(sandbox, account, line_item, "APP_LIST", app_list["id"], "NE"))
    assert excluded["targeting_value"] == app_list["id"] and excluded["operator_type"] == "NE"
    other = sandbox.post("/accounts").json()["data"][0]
    foreign = make_app_list(sandbox, other["id"])
    assert post_criterion(sandbox, account, line_item, "APP_LIST", foreign["id"], "NE").status_code == 400
    sandbox.delete(f"/accounts/{account['id']}/app_lists/{app_list['id']}")
    again = post_criterion(
        sandbox, account, make_line_item(sandbox, account), "APP_LIST", app_list["id"], "NE"
    )
    assert again.status_code == 400


def test_line_item_apps(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    path = f"/accounts/{account['id']}/line_item_apps"
    made = sandbox.post(
        path,
        {"line_item_id": line_item["id"], "os_type": "ANDROID", "app_store_identifier": "com.example.game"},
    )
    assert made.status_code == 200, made.text
    app = made.json()["data"]
    assert {k: app[k] for k in ("line_item_id", "app_store_identifier", "os_type", "deleted")} == {
        "line_item_id": line_item["id"],
        "app_store_identifier": "com.example.game",
        "os_type": "ANDROID",
        "deleted": False,
    }
    twice = sandbox.post(
        path,
        {"line_item_id": line_item["id"], "os_type": "ANDROID", "app_store_identifier": "com.example.game"},
    )
    assert twice.status_code == 400
    mismatch = sandbox.post(
        path, {"line_item_id": line_item["id"], "os_type": "IOS", "app_store_identifier": "com.x.y"}
    )
    assert mismatch.status_code == 400 and mismatch.json()["errors"][0]["parameter"] == "app_store_identifier"
    no_line_item = sandbox.post(
        path, {"line_item_id": "zzzz1", "os_type": "IOS", "app_store_identifier": "123"}
    )
    assert no_line_item.status_code == 404 and no_line_item.json()["errors"][0]["parameter"] == "line_item_id"
    ios = sandbox.post(
        path, {"line_item_id": line_item["id"], "os_type": "IOS", "app_store_identifier": "123"}
    )
    assert ios.status_code == 200
    listed = sandbox.get(path, {"line_item_ids": line_item["id"]}).json()
    assert [a["id"] for a in listed["data"]] == [app["id"], ios.json()["data"]["id"]]
    by_id = sandbox.get(path, {"line_item_app_ids": app["id"]}).json()["data"]
    assert [a["id"] for a in by_id] == [app["id"]]
    assert sandbox.get(f"{path}/{app['id']}").json()["data"] == app
    assert sandbox.delete(f"{path}/{app['id']}").json()["data"]["deleted"] is True
    assert sandbox.get(f"{path}/{app['id']}").status_code == 404


def test_behavior_catalogs(ads: AdsClient) -> None:
    roots = ads.get(
        "/targeting_criteria/behavior_taxonomies", {"parent_behavior_taxonomy_ids": "null"}
    ).json()
    assert roots["data"] and all(t["parent_id"] is None for t in roots["data"])
    root = roots["data"][0]
    children = ads.get(
        "/targeting_criteria/behavior_taxonomies", {"parent_behavior_taxonomy_ids": root["id"]}
    )
    assert children.status_code == 200
    assert children.json()["data"] and all(t["parent_id"] == root["id"] for t in children.json()["data"])
    us = ads.get("/targeting_criteria/behaviors").json()
    assert us["data"] and {b["country_code"] for b in us["data"]} == {"US"} and us["next_cursor"] is None
    gb = ads.get("/targeting_criteria/behaviors", {"country_code": "GB", "count": 2}).json()
    assert len(gb["data"]) == 2 and gb["next_cursor"] is not None
    first = us["data"][0]
    assert {"id", "name", "targeting_type", "targeting_value", "behavior_taxonomy_id"} <= set(first)
    picked = ads.get("/targeting_criteria/behaviors", {"behavior_ids": first["id"]}).json()["data"]
    assert picked == [first]
    by_name = ads.get("/targeting_criteria/behaviors", {"sort_by": "name-asc"}).json()["data"]
    assert [b["name"].lower() for b in by_name] == sorted(b["name"].lower() for b in by_name)
    wrong = ads.get("/targeting_criteria/behaviors", {"country_code": "FR"})
    assert wrong.status_code == 400 and error_codes(wrong) == ["INVALID_PARAMETER"]
