"""Rate limits: 15-minute windows per app and per user, the 429 body, and the 24-hour post caps."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from tests.api.helpers import bearer, new_user
from tests.support.client import Api
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def limited() -> Iterator[Api]:
    live = LiveServer(
        tag="limits",
        rate_limits=True,
        limits={
            "findMyUser": {"user": 3},
            "findTweetById": {"app": 4},
            "createTweet": {"daily_user": 2, "daily_app": 50},
            "deleteWebhooks": {"app": 3},
        },
    ).start()
    creds = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
    client = Api(live.base_url, creds)
    yield client
    client.close()
    live.stop()


def test_user_window_counts_down_then_refuses_with_platform_body(limited: Api) -> None:
    remaining = []
    for _ in range(3):
        response = limited.get("/2/users/me", auth="oauth1")
        assert response.status_code == 200
        assert response.headers["x-rate-limit-limit"] == "3"
        remaining.append(int(response.headers["x-rate-limit-remaining"]))
    assert remaining == [2, 1, 0]
    refused = limited.get("/2/users/me", auth="oauth1")
    assert refused.status_code == 429
    assert refused.json() == {
        "title": "Too Many Requests",
        "detail": "Too Many Requests",
        "type": "about:blank",
        "status": 429,
    }
    assert refused.headers["x-rate-limit-remaining"] == "0"
    assert int(refused.headers["x-rate-limit-reset"]) > 0


def test_app_and_user_pools_are_separate_and_window_resets_with_the_clock(limited: Api) -> None:
    # A user of its own, so its window is known whatever ran before (the demo user's may be spent).
    # A user's window is per app and user: its OAuth 2.0 and OAuth 1.0a tokens draw on the same one.
    user = new_user(limited)
    with_oauth2 = limited.get("/2/users/me", auth="none", headers=bearer(user))
    assert with_oauth2.status_code == 200
    assert with_oauth2.headers["x-rate-limit-remaining"] == "2"
    signed = limited.oauth1("GET", "/2/users/me", token=user["token"], secret=user["secret"])
    with_oauth1 = limited.get("/2/users/me", auth="none", headers=signed)
    assert with_oauth1.status_code == 200
    assert with_oauth1.headers["x-rate-limit-remaining"] == "1"
    tweet_id = limited.get(f"/2/users/{limited.creds['user_id']}/tweets").json()["data"][0]["id"]
    codes = [limited.get(f"/2/tweets/{tweet_id}").status_code for _ in range(5)]
    assert codes == [200, 200, 200, 200, 429]
    # The app-only pool is spent; the user-context pool of the same operation is not.
    as_user = limited.get(f"/2/tweets/{tweet_id}", auth="none", headers=bearer(user))
    assert as_user.status_code == 200
    assert as_user.headers["x-rate-limit-remaining"] == str(int(as_user.headers["x-rate-limit-limit"]) - 1)
    reset = int(limited.get(f"/2/tweets/{tweet_id}", conform=False).headers["x-rate-limit-reset"])
    limited.http.post("/_roost/clock", json={"advance_seconds": 901})
    again = limited.get(f"/2/tweets/{tweet_id}")
    assert again.status_code == 200
    assert int(again.headers["x-rate-limit-reset"]) > reset
    assert again.headers["x-rate-limit-remaining"] == "3"


def test_daily_post_cap_headers_and_refusal(limited: Api) -> None:
    user = limited.http.post("/_roost/users", json={"username": "capped_user"}).json()
    token = limited.http.post(
        "/_roost/tokens", json={"consumer_key": limited.creds["consumer_key"], "user_id": user["id"]}
    ).json()
    statuses, window = [], []
    for index in range(3):
        headers = limited.oauth1(
            "POST", "/2/tweets", token=token["access_token"], secret=token["access_token_secret"]
        )
        response = limited.post("/2/tweets", auth="none", headers=headers, json={"text": f"cap {index}"})
        statuses.append(response.status_code)
        window.append(int(response.headers["x-rate-limit-remaining"]))
        assert response.headers["x-user-limit-24hour-limit"] == "2"
        assert response.headers["x-app-limit-24hour-limit"] == "50"
    assert statuses == [201, 201, 429]
    # The capped request counted in the user's 15-minute window too, and its headers say so.
    assert window[1] == window[0] - 1 and window[2] == window[1] - 1
    assert response.headers["x-user-limit-24hour-remaining"] == "0"
    assert response.json()["title"] == "Too Many Requests"


def test_webhook_management_counts_user_context_in_the_apps_window(limited: Api) -> None:
    # 450 per app whatever the credentials: OAuth 1.0a calls take from the app-only caller's window.
    path = "/2/webhooks/1234"
    seen = []
    for auth in ("app", "oauth1", "app"):
        response = limited.delete(path, auth=auth, conform=False)
        assert response.status_code == 400  # no such webhook, but the call counted
        seen.append((response.headers["x-rate-limit-limit"], response.headers["x-rate-limit-remaining"]))
    assert seen == [("3", "2"), ("3", "1"), ("3", "0")]
    refused = limited.delete(path, auth="oauth1", conform=False)
    assert refused.status_code == 429 and refused.headers["x-rate-limit-remaining"] == "0"
