"""xdk 0.10.6's OAuth 1.0a three-legged flow (request token → authorize → access token → v2 call).

xdk's `OAuth1.get_request_token()` / `get_access_token()` hard-code https://api.x.com, so the flow runs
as a child program under the shipped redirect (scripts/xdk_oauth1_flow.py). Its access-token request
repeats `oauth_token` (header and query) and signs it once, which roost accepts as the platform does.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients

CALLBACK = "https://client.example/xdk/callback"


@pytest.fixture()
def app(server: LiveServer) -> dict[str, Any]:
    """A fresh app with the callback registered (approvals and throttles start clean)."""
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        created = http.post(
            "/_roost/apps", json={"name": f"xdk-{uuid.uuid4().hex[:8]}", "callback_urls": [CALLBACK]}
        )
    assert created.status_code == 201, created.text
    body: dict[str, Any] = created.json()
    return body


@pytest.mark.parametrize("login_with_x", [False, True])
def test_xdk_oauth1_three_legged_flow(
    server: LiveServer, credentials: dict[str, Any], app: dict[str, Any], login_with_x: bool
) -> None:
    params = {
        "consumer_key": app["consumer_key"],
        "consumer_secret": app["consumer_secret"],
        "callback": CALLBACK,
        "username": credentials["username"],
        "login_with_x": login_with_x,
    }
    result = run_redirected_script(server.base_url, "xdk_oauth1_flow.py", json.dumps(params))

    page = "https://x.com/i/oauth/authenticate" if login_with_x else "https://x.com/oauth/authorize"
    assert result["authorization_url"] == f"{page}?oauth_token={result['request_token']}"
    assert result["location"].startswith(CALLBACK + "?")
    assert result["callback_token"] == result["request_token"]
    user_id = credentials["user_id"]
    assert result["access_token"].startswith(f"{user_id}-")
    me = result["me"]
    assert me["id"] == user_id and me["username"] == credentials["username"]
    assert "created_at" in me and "post_count" in me["public_metrics"]  # xdk's own vocabulary validated
    assert result["stale_object_status"] == 401
