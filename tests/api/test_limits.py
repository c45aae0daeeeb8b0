"""`GET /_roost/limits` (issue 17): the rate-limit windows the server holds now, per key, read-only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    server = LiveServer(tag="limits", rate_limits=True, limits={"findMyUser": {"user": 5}}).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def api(live: LiveServer) -> Iterator[Api]:
    creds = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
    client = Api(live.base_url, creds)
    yield client
    client.close()


def windows(api: Api, **params: str) -> list[dict[str, Any]]:
    response = api.http.get("/_roost/limits", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["meta"]["result_count"] == len(body["data"])
    return list(body["data"])


def test_user_and_app_windows(api: Api) -> None:
    for _ in range(2):
        answered = api.get("/2/users/me", auth="oauth2")
        assert answered.status_code == 200
    search = api.get("/2/tweets/search/recent", params={"query": "limits"})
    assert search.status_code == 200

    user_windows = windows(api, operation="findMyUser")
    assert len(user_windows) == 1
    mine = user_windows[0]
    assert mine["kind"] == "user" and mine["user_id"] == api.creds["user_id"]
    assert (mine["limit"], mine["remaining"]) == (5, 3)
    assert str(mine["reset"]) == answered.headers["x-rate-limit-reset"]
    assert mine["app_id"].isdigit()

    (app_window,) = windows(api, operation="tweetsRecentSearch")
    assert app_window["kind"] == "app" and app_window["user_id"] is None
    assert app_window["app_id"] == mine["app_id"]
    assert app_window["remaining"] == int(search.headers["x-rate-limit-remaining"])
    assert app_window["limit"] == int(search.headers["x-rate-limit-limit"])

    assert {w["operation"] for w in windows(api, app_id=mine["app_id"])} >= {
        "findMyUser",
        "tweetsRecentSearch",
    }
    assert windows(api, app_id="1") == []


def test_reading_the_windows_changes_none(api: Api) -> None:
    first = windows(api)
    assert first == windows(api)


def test_daily_caps_are_listed(api: Api) -> None:
    created = api.post("/2/tweets", auth="oauth2", json={"text": "limits: a post under the caps"})
    assert created.status_code == 201, created.text
    kinds = {w["kind"]: w for w in windows(api, operation="createTweet")}
    assert {"user", "24h-app", "24h-user"} <= set(kinds)
    assert kinds["24h-app"]["remaining"] == kinds["24h-app"]["limit"] - 1
    assert kinds["24h-user"]["user_id"] == api.creds["user_id"]


def test_a_bad_app_id_is_refused(api: Api) -> None:
    assert api.http.get("/_roost/limits", params={"app_id": "not-a-number"}).status_code == 400


def test_windows_past_their_reset_are_gone(api: Api) -> None:
    assert windows(api, operation="tweetsRecentSearch")
    moved = api.http.post("/_roost/clock", json={"advance_seconds": 16 * 60})
    assert moved.status_code == 200, moved.text
    assert windows(api, operation="tweetsRecentSearch") == []
    assert windows(api, operation="createTweet", app_id=windows(api)[0]["app_id"])  # the 24-hour caps stay
