"""Whole OAuth 1.0a and app-only sign-in flows with real clients (tweepy, requests-oauthlib), each a
child program talking to the public hosts through the shipped `roost run` redirect."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients

SCRIPT = "oauth1_flow_probe.py"
CALLBACK = "http://127.0.0.1:8080/callback"


@pytest.fixture()
def setup(server: LiveServer) -> dict[str, Any]:
    """A fresh user and a fresh app (so the bearer throttle and approvals start clean)."""
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        name = f"c_{uuid.uuid4().hex[:10]}"
        user = http.post("/_roost/users", json={"username": name, "password": "pw"}).json()
        app = http.post(
            "/_roost/apps",
            json={"name": f"Client {name}", "owner_user_id": user["id"], "callback_urls": [CALLBACK, "oob"]},
        ).json()
    return {"user": user, "app": app}


def run(server: LiveServer, scenario: str, params: dict[str, Any]) -> dict[str, Any]:
    return run_redirected_script(server.base_url, SCRIPT, scenario, json.dumps(params))


@pytest.mark.parametrize("signin", [False, True])
def test_tweepy_oauth1_user_handler_full_flow(
    server: LiveServer, setup: dict[str, Any], signin: bool
) -> None:
    app, user = setup["app"], setup["user"]
    result = run(
        server,
        "tweepy_user",
        {
            "consumer_key": app["consumer_key"],
            "consumer_secret": app["consumer_secret"],
            "callback": CALLBACK,
            "username": user["username"],
            "signin": signin,
        },
    )
    path = "/oauth/authenticate" if signin else "/oauth/authorize"
    assert result["authorization_url"].startswith(f"https://api.twitter.com{path}?oauth_token=")
    assert result["location"].startswith(CALLBACK + "?oauth_token=")
    assert result["token"].startswith(user["id"] + "-")
    assert result["me"]["id"] == user["id"] and result["me"]["username"] == user["username"]


def test_tweepy_oauth2_app_handler_bearer(server: LiveServer, setup: dict[str, Any]) -> None:
    app, user = setup["app"], setup["user"]
    result = run(
        server,
        "tweepy_app",
        {
            "consumer_key": app["consumer_key"],
            "consumer_secret": app["consumer_secret"],
            "user_id": user["id"],
        },
    )
    assert result["bearer"] == app["bearer_token"] == result["again"]  # one outstanding token per app
    assert result["user"]["id"] == user["id"]


@pytest.mark.parametrize("host", ["https://api.twitter.com", "https://api.x.com"])
def test_requests_oauthlib_session_full_flow(server: LiveServer, setup: dict[str, Any], host: str) -> None:
    app, user = setup["app"], setup["user"]
    result = run(
        server,
        "oauthlib",
        {
            "consumer_key": app["consumer_key"],
            "consumer_secret": app["consumer_secret"],
            "callback": CALLBACK,
            "username": user["username"],
            "host": host,
        },
    )
    assert result["request"] == ["oauth_callback_confirmed", "oauth_token", "oauth_token_secret"]
    access = result["access"]
    assert access["user_id"] == user["id"] and access["screen_name"] == user["username"]
    assert access["oauth_token"].startswith(user["id"] + "-")
    assert result["me"] == {"status": 200, "body": {"data": result["me"]["body"]["data"]}}
    assert result["me"]["body"]["data"]["id"] == user["id"]
