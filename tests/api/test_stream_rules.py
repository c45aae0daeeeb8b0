"""Filtered-stream rules: add/delete bodies, summaries, duplicate/invalid/unknown-id reports, dry_run,
delete_all, listing with pagination, counts, the rule caps and bearer-only access (facts §3.1)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.api.helpers import PROBLEMS
from tests.conformance.oracle import Oracle, SpecUnavailable
from tests.support.client import Api
from tests.support.server import LiveServer

RULES = "/2/tweets/search/stream/rules"
COUNTS = "/2/tweets/search/stream/rules/counts"
SENT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="stream_rules", rate_limits=False, extra={"stream_rule_limit": "1000"})
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture(autouse=True)
def clean(api: Api) -> Iterator[None]:
    yield
    api.http.post("/_roost/settings", json={"stream_rule_limit": "1000", "stream_rule_limit_per_app": None})
    api.post(RULES, params={"delete_all": "true"}, json={}, conform=False)


def conforms(response: httpx.Response, status: int | None = None, version: str = "2.159") -> None:
    """Check against the official document; `status` stands in for statuses it does not list
    (the add's 201 is documented only as 200)."""
    try:
        oracle = Oracle.load(version)
    except SpecUnavailable:
        return
    request = response.request
    problems = oracle.validate_response(
        request.method,
        request.url.path,
        status or response.status_code,
        response.json(),
        response.headers.get("content-type", "application/json"),
    )
    assert not problems, problems


def add(api: Api, *rules: dict[str, Any], **params: str) -> httpx.Response:
    response = api.post(RULES, json={"add": list(rules)}, params=params, conform=False)
    if response.status_code == 201:
        conforms(response, 200)
        if "errors" not in response.json():  # 2.167's Problem union lists no rule problems
            conforms(response, 200, "2.167")
    else:
        api.conforms(response)
    return response


def delete(api: Api, params: dict[str, str] | None = None, **body: Any) -> httpx.Response:
    return api.post(RULES, json={"delete": body}, params=params or {})


def listed(api: Api, **params: Any) -> dict[str, Any]:
    response = api.get(RULES, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_add_returns_201_with_created_rules_and_summary(api: Api) -> None:
    response = add(api, {"value": "münster has:images", "tag": "münster images"}, {"value": "cat"})
    assert response.status_code == 201, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"data", "meta"}
    first, second = body["data"]
    assert first["value"] == "münster has:images" and first["tag"] == "münster images"
    assert re.fullmatch(r"[0-9]{1,19}", first["id"])
    assert second == {"value": "cat", "id": second["id"]}  # no tag key when none was given
    assert SENT.match(body["meta"]["sent"])
    assert body["meta"]["summary"] == {"created": 2, "not_created": 0, "valid": 2, "invalid": 0}
    assert {r["id"] for r in listed(api)["data"]} == {first["id"], second["id"]}


def test_duplicate_rule_is_reported_in_errors(api: Api) -> None:
    rule_id = add(api, {"value": "dogs has:images"}).json()["data"][0]["id"]
    body = add(api, {"value": "dogs has:images", "tag": "again"}).json()
    assert "data" not in body
    assert body["meta"]["summary"] == {"created": 0, "not_created": 1, "valid": 0, "invalid": 1}
    assert body["errors"] == [
        {
            "value": "dogs has:images",
            "id": rule_id,
            "title": "DuplicateRule",
            "type": PROBLEMS + "duplicate-rules",
        }
    ]
    # The same value twice in one request: the second is the duplicate of the first.
    twice = add(api, {"value": "birds"}, {"value": "birds"}).json()
    assert twice["meta"]["summary"] == {"created": 0, "not_created": 2, "valid": 1, "invalid": 1}
    assert twice["errors"][0]["title"] == "DuplicateRule"


def test_invalid_rule_has_parser_details_and_nothing_is_created(api: Api) -> None:
    body = add(api, {"value": "--b"}, {"value": "fine rule"}).json()
    assert "data" not in body
    assert body["meta"]["summary"] == {"created": 0, "not_created": 2, "valid": 1, "invalid": 1}
    assert body["errors"] == [
        {
            "value": "--b",
            "details": [
                "Rules must contain a non-negation term (at position 1)",
                "Rules must contain at least one positive, non-stopword clause (at position 1)",
            ],
            "title": "UnprocessableEntity",
            "type": PROBLEMS + "invalid-rules",
        }
    ]
    assert "data" not in listed(api)
    standalone = add(api, {"value": "has:images"}).json()
    assert standalone["errors"][0]["details"] == [
        "is/has/lang cannot be used as a standalone operator (at position 1)"
    ]


def test_rule_length_follows_the_package_and_the_setting(api: Api) -> None:
    long_value = "word " * 210  # 1,050 characters: enterprise (the demo app) only
    longer = "word " * 420  # 2,100 characters: past both packages
    self_serve = api.http.post("/_roost/apps", json={"name": "ppu rules", "package": "pay-per-use"}).json()
    as_self_serve = {"Authorization": f"Bearer {self_serve['bearer_token']}"}
    refused = api.post(
        RULES, auth="none", headers=as_self_serve, json={"add": [{"value": long_value}]}, conform=False
    )
    assert refused.json()["meta"]["summary"]["invalid"] == 1
    assert "1024" in refused.json()["errors"][0]["details"][0]
    assert add(api, {"value": long_value}).json()["meta"]["summary"]["created"] == 1
    body = add(api, {"value": longer}).json()
    assert body["meta"]["summary"]["invalid"] == 1
    assert "2048" in body["errors"][0]["details"][0]
    api.http.post("/_roost/settings", json={"stream_rule_max_length": "4096"})  # for every app
    try:
        assert add(api, {"value": longer}).json()["meta"]["summary"]["created"] == 1
        again = api.post(
            RULES, auth="none", headers=as_self_serve, json={"add": [{"value": longer}]}, conform=False
        )
        assert again.json()["meta"]["summary"]["created"] == 1
    finally:
        api.http.post("/_roost/settings", json={"stream_rule_max_length": None})


def test_enterprise_operators_are_refused_to_a_pay_per_use_app(api: Api) -> None:
    self_serve = api.http.post(
        "/_roost/apps", json={"name": "ppu operators", "package": "pay-per-use"}
    ).json()
    as_self_serve = {"Authorization": f"Bearer {self_serve['bearer_token']}"}
    rules = [{"value": "cats min_followers:500"}, {"value": 'dogs (source:"roost" OR lang:en)'}]
    refused = api.post(RULES, auth="none", headers=as_self_serve, json={"add": rules}, conform=False).json()
    assert refused["meta"]["summary"] == {"created": 0, "not_created": 2, "valid": 0, "invalid": 2}
    assert [(item["value"], item["details"]) for item in refused["errors"]] == [
        (
            rule["value"],
            [
                f"Reference to invalid operator '{name}'. Operator is not available in current product or "
                "product packaging."
            ],
        )
        for rule, name in zip(rules, ("min_followers", "source"), strict=True)
    ]
    assert add(api, *rules).json()["meta"]["summary"]["created"] == 2  # the enterprise demo app
    plain = api.post(
        RULES, auth="none", headers=as_self_serve, json={"add": [{"value": "cats lang:en"}]}, conform=False
    )
    assert plain.json()["meta"]["summary"]["created"] == 1


def test_rule_caps_follow_the_package_when_no_setting_is_made(api: Api) -> None:
    api.http.post("/_roost/settings", json={"stream_rule_limit": None})
    self_serve = api.http.post("/_roost/apps", json={"name": "ppu caps", "package": "pay-per-use"}).json()
    as_self_serve = {"Authorization": f"Bearer {self_serve['bearer_token']}"}
    caps = {"rules_count.fields": "cap_per_client_app,cap_per_project"}
    enterprise = api.get(COUNTS, params=caps, conform=False).json()["data"]
    pay_per_use = api.get(COUNTS, params=caps, auth="none", headers=as_self_serve, conform=False).json()[
        "data"
    ]
    assert enterprise == {"cap_per_client_app": "25000", "cap_per_project": "25000"}
    assert pay_per_use == {"cap_per_client_app": "1000", "cap_per_project": "1000"}


@pytest.mark.parametrize(("package", "cap"), [("essential", 5), ("elevated", 25)])
def test_the_legacy_levels_have_their_rule_numbers(api: Api, package: str, cap: int) -> None:
    api.http.post("/_roost/settings", json={"stream_rule_limit": None})
    legacy = api.http.post("/_roost/apps", json={"name": f"legacy {package}", "package": package}).json()
    as_legacy = {"Authorization": f"Bearer {legacy['bearer_token']}"}
    caps = {"rules_count.fields": "cap_per_client_app,cap_per_project"}
    counted = api.get(COUNTS, params=caps, auth="none", headers=as_legacy, conform=False).json()["data"]
    assert counted == {"cap_per_client_app": str(cap), "cap_per_project": str(cap)}
    too_long = api.post(
        RULES, auth="none", headers=as_legacy, json={"add": [{"value": "word " * 110}]}, conform=False
    ).json()
    assert too_long["meta"]["summary"]["invalid"] == 1 and "512" in too_long["errors"][0]["details"][0]


def test_dry_run_validates_without_committing(api: Api) -> None:
    response = add(api, {"value": "dry cat", "tag": "t"}, dry_run="true")
    assert response.status_code == 201
    body = response.json()
    assert body["data"][0]["value"] == "dry cat"
    assert body["meta"]["summary"]["created"] == 1
    assert "data" not in listed(api)
    rule_id = add(api, {"value": "kept"}).json()["data"][0]["id"]
    removed = delete(api, {"dry_run": "true"}, ids=[rule_id]).json()
    assert removed["meta"]["summary"] == {"deleted": 1, "not_deleted": 0}
    assert [r["id"] for r in listed(api)["data"]] == [rule_id]


def test_delete_by_ids_and_values(api: Api) -> None:
    created = add(api, {"value": "one"}, {"value": "two"}, {"value": "three"}).json()["data"]
    response = delete(api, ids=[created[0]["id"]])
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"meta"}
    assert SENT.match(body["meta"]["sent"])
    assert body["meta"]["summary"] == {"deleted": 1, "not_deleted": 0}
    body = delete(api, values=["two"]).json()
    assert body["meta"]["summary"] == {"deleted": 1, "not_deleted": 0}
    assert [r["value"] for r in listed(api)["data"]] == ["three"]


def test_deleting_unknown_ids_reports_nested_errors(api: Api) -> None:
    kept = add(api, {"value": "kept"}).json()["data"][0]["id"]
    response = delete(api, ids=["1165037377523306498", kept])
    assert response.status_code == 200
    body = response.json()
    assert body["meta"]["summary"] == {"deleted": 1, "not_deleted": 1}
    assert body["errors"] == [
        {
            "errors": [{"parameters": {}, "message": "Rule does not exist"}],
            "title": "Invalid Request",
            "detail": "One or more parameters to your request was invalid.",
            "type": PROBLEMS + "invalid-request",
        }
    ]


def test_delete_all(api: Api) -> None:
    add(api, {"value": "a1 b"}, {"value": "a2 b"}, {"value": "a3 b"})
    dry = api.post(RULES, params={"delete_all": "true", "dry_run": "true"}, json={})
    assert dry.json()["meta"]["summary"] == {"deleted": 3, "not_deleted": 0}
    assert len(listed(api)["data"]) == 3
    # Clients send delete_all with no body at all.
    response = api.post(RULES, params={"delete_all": "true"})
    assert response.status_code == 200, response.text
    assert response.json()["meta"]["summary"] == {"deleted": 3, "not_deleted": 0}
    assert listed(api)["meta"]["result_count"] == 0


@pytest.mark.parametrize(
    ("body", "params", "message"),
    [
        ({}, {}, "Exactly one of add, delete, or delete_all must be specified"),
        (
            {"add": [{"value": "x y"}], "delete": {"ids": ["1"]}},
            {},
            "Exactly one of add, delete, or delete_all must be specified",
        ),
        ({"add": [{"value": "x y"}]}, {"delete_all": "true"}, None),
        ({"add": []}, {}, "$.add: must contain at least 1 items"),
        ({"add": [{"tag": "t"}]}, {}, "$.add[0].value: is missing but it is required"),
        ({"add": [{"value": 5}]}, {}, "$.add[0].value: integer found, string expected"),
        (
            {"add": [{"value": "x", "colour": "red"}]},
            {},
            "$.add[0].colour: is not defined in the schema and the schema does not allow additional "
            "properties",
        ),
        ({"delete": {"ids": ["abc"]}}, {}, "$.delete.ids[0]: does not match the regex pattern ^[0-9]{1,19}$"),
        ({"delete": {}}, {}, "$.delete: one of ids or values must contain at least 1 items"),
        ([1], {}, "$: array found, object expected"),
    ],
)
def test_bad_bodies_are_400(api: Api, body: Any, params: dict[str, str], message: str | None) -> None:
    response = api.post(RULES, json=body, params=params)
    assert response.status_code == 400, response.text
    problem = response.json()
    assert problem["title"] == "Invalid Request"
    assert problem["type"] == PROBLEMS + "invalid-request"
    expected = message or "Exactly one of add, delete, or delete_all must be specified"
    assert problem["errors"] == [{"parameters": {}, "message": expected}]


def test_bad_query_parameters_are_400(api: Api) -> None:
    response = api.post(RULES, params={"dry_run": "yes"}, json={"add": [{"value": "x y"}]})
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameters"] == {"dry_run": ["yes"]}
    assert api.get(RULES, params={"max_results": "0"}).status_code == 400
    assert api.get(RULES, params={"ids": "x"}).status_code == 400
    token = api.get(RULES, params={"pagination_token": "zzzzzz"})
    assert token.status_code == 400
    assert "pagination_token" in token.json()["errors"][0]["parameters"]


def test_get_rules_empty_has_no_data(api: Api) -> None:
    body = listed(api)
    assert "data" not in body
    assert body["meta"]["result_count"] == 0 and SENT.match(body["meta"]["sent"])


def test_get_rules_pagination_and_ids(api: Api) -> None:
    created = add(api, *({"value": f"page{i} rule", "tag": f"t{i}"} for i in range(5))).json()["data"]
    ids = [rule["id"] for rule in created]
    first = listed(api, max_results=2)
    assert [r["id"] for r in first["data"]] == sorted(ids, key=int)[:2]
    assert first["meta"]["result_count"] == 2 and first["meta"]["next_token"]
    seen = [r["id"] for r in first["data"]]
    token = first["meta"]["next_token"]
    while token:
        page = listed(api, max_results=2, pagination_token=token)
        seen += [r["id"] for r in page["data"]]
        token = page["meta"].get("next_token")
    assert seen == sorted(ids, key=int)
    picked = listed(api, ids=f"{ids[1]},{ids[3]},1165037377523306498")
    assert [r["id"] for r in picked["data"]] == [ids[1], ids[3]]
    assert picked["data"][0] == {"value": "page1 rule", "tag": "t1", "id": ids[1]}
    assert picked["meta"]["result_count"] == 2


def test_counts(api: Api, credentials: dict[str, Any]) -> None:
    add(api, {"value": "count me"}, {"value": "count me too"})
    response = api.get(COUNTS, conform=False)
    assert response.status_code == 200
    conforms(response, version="2.167")
    data = response.json()["data"]
    assert data["cap_per_client_app"] == "1000" and data["cap_per_project"] == "1000"
    assert data["project_rules_count"] == "2"
    assert data["client_app_rules_count"]["rule_count"] == 2
    assert "all_project_client_apps" not in data
    every = api.get(COUNTS, params={"rules_count.fields": "all_project_client_apps"}, conform=False)
    assert every.json()["data"] == {
        "all_project_client_apps": [
            {"client_app_id": data["client_app_rules_count"]["client_app_id"], "rule_count": 2}
        ]
    }
    bad = api.get(COUNTS, params={"rules_count.fields": "nope"}, conform=False)
    assert bad.status_code == 400


def test_rule_cap(api: Api) -> None:
    api.http.post("/_roost/settings", json={"stream_rule_limit": "3"})
    add(api, {"value": "cap one"}, {"value": "cap two"})
    response = add(api, {"value": "cap three"}, {"value": "cap four"})
    assert response.status_code == 403, response.text
    problem = response.json()
    assert problem["type"] == PROBLEMS + "rule-cap"
    assert "3" in problem["detail"]
    assert len(listed(api)["data"]) == 2  # nothing of the refused request was created
    assert add(api, {"value": "cap three"}).status_code == 201
    api.http.post("/_roost/settings", json={"stream_rule_limit_per_app": "1"})
    assert add(api, {"value": "cap four"}).status_code == 403


def test_rules_are_per_app(api: Api, server: LiveServer) -> None:
    add(api, {"value": "mine only"})
    other = api.http.post("/_roost/apps", json={"name": "other stream app"}).json()
    headers = {"Authorization": f"Bearer {other['bearer_token']}"}
    theirs = api.get(RULES, auth="none", headers=headers)
    assert "data" not in theirs.json()
    created = api.post(
        RULES, auth="none", headers=headers, json={"add": [{"value": "mine only"}]}, conform=False
    )
    assert created.status_code == 201  # the same value in another app is no duplicate
    assert [r["value"] for r in listed(api)["data"]] == ["mine only"]


@pytest.mark.parametrize("auth", ["oauth2", "oauth1"])
def test_bearer_only(api: Api, auth: str) -> None:
    for method, path in (("GET", RULES), ("GET", COUNTS)):
        response = api.request(method, path, auth=auth)
        assert response.status_code == 403
        assert response.json()["type"] == PROBLEMS + "unsupported-authentication"
    posted = api.post(RULES, auth=auth, json={"add": [{"value": "x y"}]})
    assert posted.status_code == 403
    anonymous = api.get(RULES, auth="none")
    assert anonymous.status_code == 401
