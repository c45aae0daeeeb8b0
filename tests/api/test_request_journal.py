"""The request journal (issue 17): every API request, with the reason for each refusal, at
`GET /_roost/requests` (newest first, filtered by status, path, app)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def journalled() -> Iterator[Api]:
    live = LiveServer(tag="journal", rate_limits=True, limits={"findMyUser": {"user": 2}}).start()
    creds = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
    client = Api(live.base_url, creds)
    yield client
    client.close()
    live.stop()


def entries(api: Api, **filters: Any) -> list[dict[str, Any]]:
    response = api.http.get("/_roost/requests", params=filters)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def newest(api: Api, path: str) -> dict[str, Any]:
    found = entries(api, path=path, limit=1)
    assert found, f"no journal entry for {path}"
    return found[0]


def test_a_request_is_journalled_with_its_outcome(journalled: Api) -> None:
    post = journalled.get("/2/tweets/search/recent", params={"query": "journal"})
    entry = newest(journalled, "/2/tweets/search/recent")
    assert entry["method"] == "GET"
    assert entry["status"] == post.status_code == 200
    assert entry["operation"] == "tweetsRecentSearch"
    assert entry["query"] == "query=journal"
    assert entry["auth"] == "app"
    assert entry["app_id"].isdigit()
    assert entry["reason"] is None
    assert entry["latency_ms"] > 0
    assert entry["transaction_id"] == post.headers["x-transaction-id"]
    assert entry["response_body"] == post.text


def test_newest_first_and_the_next_page(journalled: Api) -> None:
    for n in range(3):
        journalled.get(f"/2/users/by/username/journal_missing_{n}")
    first, second = entries(journalled, path="/2/users/by/username/journal_missing_", limit=2)
    assert first["path"].endswith("_2") and second["path"].endswith("_1")
    assert first["id"] > second["id"]
    page = journalled.http.get("/_roost/requests", params={"path": "journal_missing_", "limit": 2}).json()
    following = entries(journalled, path="journal_missing_", before=page["meta"]["next_before"])
    assert following[0]["path"].endswith("_0")


def test_a_bad_oauth1_signature_shows_the_base_string_and_a_masked_key(journalled: Api) -> None:
    wrong = "W" * 50
    headers = journalled.oauth1("GET", "/2/users/me", consumer_secret=wrong)
    refused = journalled.http.get("/2/users/me", headers=headers)
    assert refused.status_code == 401
    entry = newest(journalled, "/2/users/me")
    assert entry["status"] == 401
    reason = entry["reason"]
    assert "signature base string" in reason
    assert "'GET&http%3A%2F%2F127.0.0.1%3A" in reason  # the base string roost computed
    assert "%2F2%2Fusers%2Fme&oauth_consumer_key%3D" in reason
    real_secret = journalled.creds["consumer_secret"]
    token_secret = journalled.creds["access_token_secret"]
    assert real_secret not in reason and token_secret not in reason  # secrets masked
    assert f"{real_secret[:3]}…({len(real_secret)} characters)" in reason


def test_refusals_say_which_rule(journalled: Api) -> None:
    journalled.http.get("/2/users/me")
    assert "no credentials" in newest(journalled, "/2/users/me")["reason"]

    journalled.http.get("/2/users/me", headers={"Authorization": "Bearer not-a-token"})
    assert "bearer token is neither" in newest(journalled, "/2/users/me")["reason"]

    journalled.http.get("/2/users/me", headers=journalled.bearer())  # user context needed
    reason = newest(journalled, "/2/users/me")["reason"]
    assert "findMyUser accepts" in reason and "used app" in reason


def test_a_rate_limit_refusal_names_the_window(journalled: Api) -> None:
    statuses = [journalled.get("/2/users/me", auth="oauth2").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    entry = entries(journalled, path="/2/users/me", status="429", limit=1)[0]
    assert "rate limit: findMyUser allows 2 requests per 15 minutes" in entry["reason"]


def test_filters_by_status_class_and_app(journalled: Api) -> None:
    journalled.http.get("/2/tweets/1", headers={"Authorization": "Bearer nope"})
    refused = entries(journalled, status="4xx")
    assert refused and all(400 <= e["status"] < 500 for e in refused)
    journalled.get("/2/tweets/search/recent", params={"query": "mine"})
    app_id = newest(journalled, "/2/tweets/search/recent")["app_id"]
    mine = entries(journalled, app=app_id, limit=50)
    assert mine and all(e["app_id"] == app_id for e in mine)
    assert entries(journalled, app="999999999") == []
    bad = journalled.http.get("/_roost/requests", params={"status": "abc"})
    assert bad.status_code == 400


def test_oauth_endpoints_are_journalled_with_their_reason(journalled: Api) -> None:
    basic = base64.b64encode(b"no-such-client:secret").decode()
    refused = journalled.http.post(
        "/2/oauth2/token",
        data={"grant_type": "client_credentials"},
        headers={"Authorization": f"Basic {basic}"},
    )
    assert refused.status_code >= 400
    entry = newest(journalled, "/2/oauth2/token")
    assert entry["status"] == refused.status_code
    assert entry["reason"]
    assert entry["request_body"] == "grant_type=client_credentials"


def test_the_control_plane_is_not_journalled_and_clearing_empties_it(journalled: Api) -> None:
    journalled.http.get("/_roost/clock")
    assert entries(journalled, path="/_roost/") == []
    assert journalled.http.delete("/_roost/requests").status_code == 204
    assert entries(journalled) == []


def test_one_entry_whole_and_unknown_ids(journalled: Api) -> None:
    journalled.get("/2/tweets/search/recent", params={"query": "whole"})
    entry = newest(journalled, "/2/tweets/search/recent")
    one = journalled.http.get(f"/_roost/requests/{entry['id']}")
    assert one.status_code == 200 and one.json()["data"]["id"] == entry["id"]
    assert journalled.http.get("/_roost/requests/999999999").status_code == 404
