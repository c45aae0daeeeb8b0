"""Access packages (issue 20): every app has one, pay-per-use or enterprise, set at creation and
changeable; the demo has one app of each, and the catalogue of their numbers is on the control plane."""

from __future__ import annotations

import uuid
from typing import Any

from tests.support.client import Api

from roost.domain.packages import PACKAGES


def create_app(api: Api, **fields: Any) -> Any:
    return api.http.post("/_roost/apps", json={"name": f"pkg-{uuid.uuid4().hex[:8]}", **fields})


def message(response: Any) -> str:
    return str(response.json()["errors"][0]["message"])


def test_an_app_is_created_with_the_package_asked_for(api: Api) -> None:
    made = create_app(api, package="pay-per-use")
    assert made.status_code == 201
    assert made.json()["package"] == "pay-per-use"


def test_an_app_created_without_a_package_is_enterprise(api: Api) -> None:
    made = create_app(api)
    assert (made.status_code, made.json()["package"]) == (201, "enterprise")


def test_an_unknown_package_is_refused(api: Api) -> None:
    made = create_app(api, package="platinum")
    assert made.status_code == 400
    assert message(made) == "package must be one of pay-per-use, enterprise, essential, elevated"


def test_an_apps_package_changes_and_its_tokens_carry_the_new_one(api: Api) -> None:
    app = create_app(api, package="enterprise").json()
    changed = api.http.post(
        "/_roost/apps/package", json={"consumer_key": app["consumer_key"], "package": "pay-per-use"}
    )
    assert changed.status_code == 200
    assert (changed.json()["id"], changed.json()["package"]) == (app["id"], "pay-per-use")
    again = api.http.post("/_roost/apps/package", json={"consumer_key": app["consumer_key"], "package": "x"})
    assert again.status_code == 400
    unknown = api.http.post("/_roost/apps/package", json={"consumer_key": "nope", "package": "enterprise"})
    assert (unknown.status_code, message(unknown)) == (400, "consumer_key must name an existing app")


def test_the_demo_has_an_enterprise_app_and_a_pay_per_use_app_for_the_same_user(api: Api) -> None:
    creds = api.http.get("/_roost/credentials").json()
    assert creds["package"] == "enterprise"
    second = creds["pay_per_use"]
    assert second["package"] == "pay-per-use"
    assert second["consumer_key"] != creds["consumer_key"]
    by_username = f"/2/users/by/username/{creds['username']}"
    for path, token in ((by_username, second["bearer_token"]), ("/2/users/me", second["oauth2_user_token"])):
        answer = api.http.get(path, headers={"Authorization": f"Bearer {token}"})
        assert (answer.status_code, answer.json()["data"]["id"]) == (200, creds["user_id"])
    assert second["access_token"].startswith(creds["user_id"] + "-")


def test_the_catalogue_lists_each_package_with_its_numbers_and_sources(api: Api) -> None:
    catalogue = api.http.get("/_roost/packages").json()
    assert catalogue["default"] == "enterprise"
    by_name = {package["name"]: package for package in catalogue["packages"]}
    assert list(by_name) == list(PACKAGES)
    assert (
        by_name["pay-per-use"]["stream_rules_per_project"],
        by_name["enterprise"]["stream_rules_per_project"],
    ) == (
        1_000,
        25_000,
    )
    assert by_name["pay-per-use"]["likes_and_follows"] is False
    numbers = set(by_name["enterprise"]) - {"name", "label", "self_serve", "note"}
    assert numbers == set(catalogue["sources"])  # every number says where it comes from
    legacy = by_name["essential"], by_name["elevated"]
    assert [(p["stream_rules_per_project"], p["stream_rule_length"]) for p in legacy] == [(5, 512), (25, 512)]
    assert all(p["note"].startswith("legacy level") for p in legacy)
