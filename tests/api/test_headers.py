"""Response headers: api-version, transaction id, response time, access level, rate-limit windows, 24-hour
caps and content types, on successes and on errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.api.helpers import bearer, create, new_user, server_clock_ms, unique_text
from tests.support.client import Api
from tests.support.server import LiveServer

BASE = ("api-version", "x-transaction-id", "x-response-time")
RATE = ("x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset")
JSON = "application/json; charset=utf-8"
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def metered() -> Iterator[Api]:
    """A server with rate limits on (the shared one never counts down)."""
    live = LiveServer(tag="headers", rate_limits=True).start()
    client = Api(live.base_url, httpx.get(live.base_url + "/_roost/credentials", timeout=30).json())
    yield client
    client.close()
    live.stop()


def _base_ok(response: httpx.Response) -> None:
    for name in BASE:
        assert response.headers.get(name), (name, response.status_code, dict(response.headers))
    assert response.headers["x-response-time"].isdigit()
    assert len(response.headers["x-transaction-id"]) >= 8


def _rate(response: httpx.Response) -> tuple[int, int, int]:
    limit, remaining, reset = (int(response.headers[name]) for name in RATE)
    return limit, remaining, reset


def test_success_and_error_responses_carry_the_base_headers(api: Api, make_user: Any) -> None:
    user = make_user()
    responses = [
        api.get("/2/tweets/1"),
        api.get("/2/users/me", auth="oauth1"),
        create(api, user),
        api.get("/2/tweets", params={"ids": "x"}),
        api.get("/2/tweets/1", auth="none"),
        api.get("/2/users/me"),
        api.delete("/2/tweets/1", auth="oauth2"),
        api.post("/2/tweets", auth="oauth2", content=b"{", headers={"content-type": "application/json"}),
    ]
    assert [r.status_code for r in responses] == [200, 200, 201, 400, 401, 403, 404, 400]
    for response in responses:
        _base_ok(response)
        assert response.headers["api-version"] == responses[0].headers["api-version"]
    ids = {r.headers["x-transaction-id"] for r in responses}
    assert len(ids) == len(responses)


def test_unknown_route_still_identifies_itself(api: Api) -> None:
    response = api.get("/2/not/a/route")
    assert response.status_code == 404
    assert response.headers["api-version"] and response.headers["x-transaction-id"]


def test_access_level_reflects_the_credentials(api: Api, make_user: Any) -> None:
    assert api.get("/2/tweets/1").headers["x-access-level"] == "read"
    assert api.get("/2/tweets/1", auth="oauth1").headers["x-access-level"] == "read-write-directmessages"
    assert api.get("/2/tweets/1", auth="oauth2").headers["x-access-level"] == "read-write"
    user = make_user()
    token = api.http.post(
        "/_roost/tokens",
        json={
            "consumer_key": api.creds["consumer_key"],
            "user_id": user["id"],
            "kind": "oauth2",
            "scopes": "tweet.read users.read",
        },
    ).json()
    read_only = api.get(
        "/2/tweets/1", auth="none", headers={"Authorization": f"Bearer {token['access_token']}"}
    )
    assert read_only.headers["x-access-level"] == "read"
    refused = api.post(
        "/2/tweets",
        auth="none",
        json={"text": unique_text()},
        headers={"Authorization": f"Bearer {token['access_token']}"},
    )
    assert refused.status_code == 403
    assert refused.headers["x-access-level"] == "read"
    assert "x-access-level" not in api.get("/2/tweets/1", auth="none").headers


def test_rate_limit_headers_are_sent_when_limits_are_off(api: Api) -> None:
    before = server_clock_ms(api.http) // 1000
    response = api.get("/2/tweets/1")
    after = server_clock_ms(api.http) // 1000
    limit, remaining, reset = _rate(response)
    assert limit == 450 and 0 <= remaining <= limit
    # A live window (made by this request or an earlier one): it ends after now, within 15 minutes.
    assert before < reset <= after + 900


def test_remaining_counts_down_per_caller(metered: Api) -> None:
    api = metered
    before = server_clock_ms(api.http) // 1000
    first, second = api.get("/2/tweets/1"), api.get("/2/tweets/1")
    after = server_clock_ms(api.http) // 1000
    limit, remaining, reset = _rate(first)
    assert (limit, remaining) == (450, 449)
    assert _rate(second) == (450, 448, reset)
    assert before + 900 <= reset <= after + 900  # the first request opened a 15-minute window
    # The user-context pool is separate from the app's, and each operation has its own window.
    assert _rate(api.get("/2/tweets/1", auth="oauth2"))[:2] == (900, 899)
    assert _rate(api.get("/2/tweets/1"))[1] == 447
    assert _rate(api.get("/2/tweets", params={"ids": "1"}))[:2] == (3500, 3499)
    # A request refused for its parameters was still counted.
    bad = api.get("/2/tweets/1", params={"tweet.fields": "nope"})
    assert bad.status_code == 400
    assert _rate(bad)[1] == 446


def test_user_windows_are_per_user(metered: Api) -> None:
    api = metered
    alice, bob = new_user(api), new_user(api)
    for expected in (74, 73):
        response = api.get("/2/users/me", auth="none", headers=bearer(alice))
        assert _rate(response)[:2] == (75, expected)
    assert _rate(api.get("/2/users/me", auth="none", headers=bearer(bob)))[:2] == (75, 74)


def test_post_carries_the_24_hour_caps(metered: Api) -> None:
    api = metered
    user = new_user(api)
    before = server_clock_ms(api.http) // 1000
    first, second = create(api, user), create(api, user)
    after = server_clock_ms(api.http) // 1000
    assert (first.status_code, second.status_code) == (201, 201)
    resets = {}
    for scope in ("app", "user"):
        names = [f"x-{scope}-limit-24hour-{part}" for part in ("limit", "remaining", "reset")]
        limit, remaining, reset = (int(first.headers[name]) for name in names)
        assert remaining == limit - 1 if scope == "user" else remaining < limit
        assert int(second.headers[names[1]]) == remaining - 1
        resets[scope] = reset
    # The new user's window opened with the first post; the app's is live and opened no later.
    assert before + 86_400 <= resets["user"] <= after + 86_400
    assert before < resets["app"] <= resets["user"]
    assert int(first.headers["x-user-limit-24hour-limit"]) == 2400
    assert int(first.headers["x-app-limit-24hour-limit"]) == 10_000
    assert _rate(first)[:2] == (100, 99)
    assert "x-app-limit-24hour-limit" not in api.get("/2/tweets/1").headers


def test_content_types(api: Api) -> None:
    assert api.get("/2/tweets/1").headers["content-type"] == JSON
    assert api.get("/2/tweets", params={"ids": "x"}).headers["content-type"] == PROBLEM
    assert api.get("/2/tweets/1", auth="none").headers["content-type"] == PROBLEM
    assert api.get("/2/users/me").headers["content-type"] == PROBLEM
    assert api.get("/2/nothing").headers["content-type"] == JSON
    stale = api.get("/2/users/me", auth="none", headers=api.oauth1("GET", "/2/users/me", timestamp=1))
    assert stale.status_code == 401 and stale.headers["content-type"] == JSON
    _base_ok(stale)


def test_a_401_carries_no_rate_limit_headers(metered: Api) -> None:
    """Live traffic: an unauthenticated answer has no x-rate-limit-* (nor x-access-level); a 403 for the
    wrong kind of credentials still shows the caller's window."""
    for response in (
        metered.get("/2/users/me", auth="none"),
        metered.get("/2/users/me", auth="none", headers={"Authorization": "Bearer nope"}),
    ):
        assert response.status_code == 401
        assert not {*RATE, "x-access-level"} & set(response.headers)
        _base_ok(response)
    refused = metered.get("/2/users/me")  # app-only bearer on a user-context operation
    assert refused.status_code == 403
    assert all(response_header in refused.headers for response_header in RATE)
