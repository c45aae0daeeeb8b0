"""twitter-api-v2 (npm, 1.29.1) bookmarks against roost: `v2.bookmark`, `v2.bookmarks` (paged),
`v2.deleteBookmark`, as a Node child under the shipped redirect, with an OAuth 2.0 user token."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from typing import Any

import httpx
import pytest
from tests.clients.test_twitter_api_v2 import CHILD_TIMEOUT, NODE_DIR, node_ready
from tests.support.server import LiveServer

from roost.redirect import redirect_env

pytestmark = pytest.mark.clients
__all__ = ["node_ready"]  # the fixture, used by name below
SCRIPT = NODE_DIR / "twitter_api_v2_bookmarks.cjs"


def run_script(server: LiveServer, params: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(SCRIPT), json.dumps(params)],
        cwd=NODE_DIR,
        env=redirect_env(server.base_url, os.environ),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"exited {done.returncode}\nstderr:\n{done.stderr[-4000:]}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_bookmark_list_and_delete(node_ready: None, server: LiveServer, credentials: dict[str, Any]) -> None:
    base = server.base_url
    user = httpx.post(base + "/_roost/users", json={"username": f"nb_{uuid.uuid4().hex[:12]}"}).json()
    token = httpx.post(
        base + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    tweet_ids = [
        httpx.post(
            base + "/2/tweets", headers=headers, json={"text": f"node bookmark {uuid.uuid4().hex}"}
        ).json()["data"]["id"]
        for _ in range(2)
    ]
    result = run_script(server, {"token": token, "tweet_ids": tweet_ids})
    assert "error" not in result, result
    assert result["added"] == [{"bookmarked": True}, {"bookmarked": True}]
    # One per page, newest bookmark first, both counted once.
    assert result["listed"] == [{"id": tweet_ids[1], "bookmarks": 1}, {"id": tweet_ids[0], "bookmarks": 1}]
    assert result["removed"] == {"bookmarked": False}
    assert result["after"] == [tweet_ids[1]]
    assert result["after_meta"] == {"result_count": 1}
