"""tweepy 4.17 `Client` bookmarks (get_bookmarks, bookmark, remove_bookmark) against roost, through
the shipped `roost run` redirect, with an OAuth 2.0 user token as tweepy requires for them."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients


def test_bookmark_read_and_remove(server: LiveServer, credentials: dict[str, Any]) -> None:
    base = server.base_url
    user = httpx.post(base + "/_roost/users", json={"username": f"tb_{uuid.uuid4().hex[:12]}"}).json()
    token = httpx.post(
        base + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    tweet_ids = [
        httpx.post(
            base + "/2/tweets", headers=headers, json={"text": f"tweepy bookmark {uuid.uuid4().hex}"}
        ).json()["data"]["id"]
        for _ in range(2)
    ]
    params = {"token": token, "tweet_ids": tweet_ids, "bearer_token": credentials["bearer_token"]}
    results = run_redirected_script(base, "tweepy_bookmarks.py", json.dumps(params))
    assert results["bookmark_first"] == {"bookmarked": True}
    assert results["bookmark_second"] == {"bookmarked": True}
    listed = results["get_bookmarks"]
    assert listed["ids"] == [tweet_ids[1], tweet_ids[0]]
    assert listed["bookmark_counts"] == [1, 1]
    assert listed["meta"] == {"result_count": 2}
    assert results["paginated"] == [tweet_ids[1], tweet_ids[0]]
    assert results["remove_first"] == {"bookmarked": False}
    assert results["after_remove"] == [tweet_ids[1]]
    # An app-only bearer token cannot say whose bookmarks: tweepy's users/me call is refused.
    assert results["app_only"]["error"] == "Forbidden"
