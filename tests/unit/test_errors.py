"""The error catalogue: each problem subtype carries its extra fields and matches the official schemas."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conformance.oracle import Oracle, SpecUnavailable

from roost.core import errors, jsonio
from roost.core.stages import ProblemTypes


def _oracle() -> Oracle:
    try:
        return Oracle.load("2.159")
    except SpecUnavailable as exc:
        pytest.skip(f"official OpenAPI document not available: {exc}")


TOP_LEVEL = [
    errors.unauthorized(),
    errors.unsupported_authentication("app", ("oauth1", "oauth2")),
    errors.oauth1_permissions(),
    errors.forbidden("You are not allowed to create a Tweet with duplicate content."),
    errors.client_forbidden("123"),
    errors.too_many_requests({}),
    errors.usage_capped("Monthly", "Product", 1, "standard-basic"),
    errors.conflict("A job is already running."),
    errors.invalid_request(
        [errors.param_error("ids", "x", "The `ids` query parameter value [x] is not valid")]
    ),
    errors.disallowed_resource("1", "tweet", "data"),
    errors.noncompliant_rules("Rules are not compliant."),
    errors.rule_cap("Rule cap reached."),
    errors.streaming_connection("TooManyConnections"),
    errors.client_disconnected(),
]

ITEMS = [
    errors.resource_not_found_item("tweet", "ids", "1"),
    errors.not_authorized_for_resource_item("user", "in_reply_to_user_id", "2", "includes"),
    errors.not_authorized_for_field_item("tweet", "organic_metrics.like_count", "id", "3", "data"),
    errors.resource_unavailable_item("user", "id", "4"),
]


@pytest.mark.parametrize("error", TOP_LEVEL, ids=lambda e: f"{e.status}-{e.body.get('type')}")
def test_top_level_problems_validate_as_the_platform_default_response(error: errors.ApiError) -> None:
    oracle = _oracle()
    assert error.content_type == errors.PROBLEM_JSON
    problems = oracle.validate_response("GET", "/2/tweets", error.status, error.body, error.content_type)
    assert problems == []


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item["type"].rsplit("/", 1)[-1])
def test_partial_error_items_validate_beside_data(item: dict[str, Any]) -> None:
    oracle = _oracle()
    body = {"data": [{"id": "9", "text": "x", "edit_history_tweet_ids": ["9"]}], "errors": [item]}
    assert oracle.validate_response("GET", "/2/tweets", 200, body) == []


def test_unsupported_authentication_detail_names_the_supported_kinds() -> None:
    error = errors.unsupported_authentication("app", ("oauth1", "oauth2"))
    assert error.status == 403
    assert error.body["detail"] == (
        "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  "
        "Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context]."
    )


def test_problem_type_prefix_is_configurable() -> None:
    problem = errors.resource_not_found_item("tweet", "id", "1")
    assert problem["type"] == "https://api.x.com/2/problems/resource-not-found"
    # A post whose text holds the same characters keeps them: only `type` members are rewritten.
    body = jsonio.dumps({"data": {"text": '"type":"https://api.x.com/2/problems/x'}, "errors": [problem]})
    rewritten = jsonio.loads(ProblemTypes("https://api.twitter.com/2/problems").rewrite(body))
    assert rewritten["errors"][0]["type"] == "https://api.twitter.com/2/problems/resource-not-found"
    assert rewritten["data"]["text"] == '"type":"https://api.x.com/2/problems/x'
    assert ProblemTypes("https://api.x.com/2/problems/").rewrite(body) is body
    assert errors.problem_type("conflict") == "https://api.x.com/2/problems/conflict"


def test_coded_errors_use_the_platform_messages() -> None:
    assert errors.coded(401, 89).body == {"errors": [{"code": 89, "message": "Invalid or expired token."}]}
    assert errors.coded(401, 135).body == {"errors": [{"code": 135, "message": "Timestamp out of bounds."}]}
    assert errors.coded(401, 32).body == {"errors": [{"code": 32, "message": "Could not authenticate you."}]}
    assert errors.coded(401, 32).content_type.startswith("application/json")
