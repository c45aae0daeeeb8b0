"""Real clients through the whole OAuth 2.0 PKCE flow: tweepy's OAuth2UserHandler under the shipped
redirect (child process, public hosts), and xdk's OAuth 2.0 helpers in-process through `base_url`."""

from __future__ import annotations

import json
import os
import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer
from xdk import Client

pytestmark = pytest.mark.clients

CALLBACK = "http://127.0.0.1:9/callback"
SCOPES = ["tweet.read", "users.read", "offline.access"]


def make_app(server: LiveServer, client_type: str) -> dict[str, Any]:
    response = httpx.post(
        server.base_url + "/_roost/apps",
        json={
            "name": f"oauth2-{uuid.uuid4().hex[:8]}",
            "callback_urls": [CALLBACK],
            "client_type": client_type,
        },
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return response.json()


@pytest.mark.parametrize("client_type", ["confidential", "public"])
def test_tweepy_oauth2_user_handler(
    server: LiveServer, credentials: dict[str, Any], client_type: str
) -> None:
    app = make_app(server, client_type)
    params = {
        "client_id": app["client_id"],
        "client_secret": app["client_secret"] if client_type == "confidential" else None,
        "redirect_uri": CALLBACK,
        "scope": SCOPES,
        "username": credentials["username"],
    }
    result = run_redirected_script(server.base_url, "tweepy_oauth2.py", json.dumps(params))
    assert result["authorize_url"].startswith("https://twitter.com/i/oauth2/authorize?")
    assert result["status"] == 302 and result["location"].startswith(CALLBACK + "?")
    assert result["token"]["scope"] == SCOPES  # oauthlib splits the granted scope string
    assert result["token"]["expires_in"] == 7200
    assert result["me"] == {"id": credentials["user_id"], "username": credentials["username"]}
    assert result["renewed"]["refresh_token"] != result["token"]["refresh_token"]
    assert result["me_again"] == credentials["username"]


def test_xdk_oauth2_helpers(
    server: LiveServer, credentials: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # requests-oauthlib (behind xdk's refresh_token) refuses a plain-http token URL otherwise.
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")
    app = make_app(server, "confidential")
    client = Client(
        base_url=server.base_url,
        client_id=app["client_id"],
        client_secret=app["client_secret"],
        redirect_uri=CALLBACK,
        scope=SCOPES,
    )
    url = client.get_authorization_url(state="xdk-state")
    parts = urlsplit(url)
    assert (parts.netloc, parts.path) == ("x.com", "/i/oauth2/authorize")
    approval = httpx.get(
        f"{server.base_url}{parts.path}?{parts.query}",
        headers={"X-Roost-Approve": credentials["username"], "Host": "x.com"},
        timeout=30,
    )
    assert approval.status_code == 302, approval.text
    query = parse_qs(urlsplit(approval.headers["location"]).query)
    assert query["state"] == ["xdk-state"]
    token = client.exchange_code(query["code"][0])
    assert token["scope"] == " ".join(SCOPES) and token["expires_in"] == 7200
    assert client.users.get_me().data.username == credentials["username"]
    renewed = client.refresh_token()
    assert renewed["refresh_token"] != token["refresh_token"]
    fresh = Client(base_url=server.base_url, access_token=renewed["access_token"])
    assert fresh.users.get_me().data.username == credentials["username"]
    assert os.environ["OAUTHLIB_INSECURE_TRANSPORT"] == "1"
