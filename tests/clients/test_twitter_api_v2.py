"""twitter-api-v2 (npm, 1.29.1) sign-in flows against roost, as a Node child under the shipped redirect.

The package is installed at test time into tests/clients/node/ (git-ignored `node_modules`, kept between
runs as a cache); without node/npm, or when the install fails, the tests are skipped with the reason.
The flows: OAuth 1.0a `generateAuthLink` → approve → `login` → `v2.me`; `appLogin` → a v2 read; OAuth 2.0
`generateOAuth2AuthLink` → approve → `loginWithOAuth2` (a JSON token body) → `v2.me` → `refreshOAuth2Token`.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.server import LiveServer

from roost.redirect import redirect_env

pytestmark = pytest.mark.clients

NODE_DIR = Path(__file__).resolve().parent / "node"
SCRIPT = NODE_DIR / "twitter_api_v2_flow.cjs"
PACKAGE = "twitter-api-v2"
VERSION = "1.29.1"
CALLBACK = "https://client.example/tav2/callback"
EMAIL = "tav2@example.org"
INSTALL_TIMEOUT = 300
CHILD_TIMEOUT = 120


def _installed_version() -> str | None:
    manifest = NODE_DIR / "node_modules" / PACKAGE / "package.json"
    try:
        version: str = json.loads(manifest.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    return version


def _install() -> str | None:
    """Install the package (once; later runs reuse it). Returns why it is unavailable, or None."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return "node and npm are needed for the twitter-api-v2 tests (not found on PATH)"
    with open(NODE_DIR / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel runs share the cache directory
        if _installed_version() == VERSION:
            return None
        command = [npm, "install", "--no-audit", "--no-fund", "--no-save", "--no-package-lock"]
        try:
            done = subprocess.run(
                [*command, f"{PACKAGE}@{VERSION}"],
                cwd=NODE_DIR,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"npm install {PACKAGE}@{VERSION} took longer than {INSTALL_TIMEOUT} s"
        if done.returncode != 0 or _installed_version() != VERSION:
            tail = done.stderr.strip()[-500:]
            return f"npm install {PACKAGE}@{VERSION} failed (exit {done.returncode}): {tail}"
    return None


@pytest.fixture(scope="module")
def node_ready() -> None:
    reason = _install()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture()
def setup(server: LiveServer) -> Iterator[dict[str, Any]]:
    """A fresh user (with an email) and a fresh confidential app with the callback registered."""
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        name = f"n_{uuid.uuid4().hex[:10]}"
        user = http.post("/_roost/users", json={"username": name, "password": "pw", "email": EMAIL})
        assert user.status_code == 201, user.text
        app = http.post(
            "/_roost/apps",
            json={"name": f"tav2 {name}", "owner_user_id": user.json()["id"], "callback_urls": [CALLBACK]},
        )
        assert app.status_code == 201, app.text
        yield {"user": user.json(), "app": app.json()}


def run_node(server: LiveServer, params: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(SCRIPT), json.dumps(params)],
        cwd=NODE_DIR,
        env=redirect_env(server.base_url, os.environ),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    scenario = params["scenario"]
    assert done.returncode == 0, f"{scenario} exited {done.returncode}\nstderr:\n{done.stderr[-4000:]}"
    try:
        result: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"{scenario} printed no JSON: {done.stdout[-2000:]!r}") from exc
    return result


def test_oauth1_generate_auth_link_login_me(
    node_ready: None, server: LiveServer, setup: dict[str, Any]
) -> None:
    app, user = setup["app"], setup["user"]
    result = run_node(
        server,
        {
            "scenario": "oauth1",
            "consumer_key": app["consumer_key"],
            "consumer_secret": app["consumer_secret"],
            "callback": CALLBACK,
            "username": user["username"],
        },
    )
    assert result["url"] == f"https://api.x.com/oauth/authorize?oauth_token={result['request_token']}"
    assert result["callback_confirmed"] == "true"
    assert result["location"].startswith(CALLBACK + "?")
    assert result["callback_token"] == result["request_token"]
    # login() reads user_id and screen_name from the access-token reply.
    assert result["access_token"].startswith(user["id"] + "-")
    assert result["user_id"] == user["id"] and result["screen_name"] == user["username"]
    me = result["me"]
    assert me["id"] == user["id"] and me["username"] == user["username"] and "created_at" in me
    assert "confirmed_email" not in me  # OAuth 1.0a never sees it


def test_app_login_then_v2_read(node_ready: None, server: LiveServer, setup: dict[str, Any]) -> None:
    app, user = setup["app"], setup["user"]
    result = run_node(
        server,
        {
            "scenario": "app",
            "consumer_key": app["consumer_key"],
            "consumer_secret": app["consumer_secret"],
            "username": user["username"],
        },
    )
    assert result["bearer"] == app["bearer_token"]
    assert result["user"]["id"] == user["id"] and "created_at" in result["user"]


def test_oauth2_pkce_login_me_refresh(node_ready: None, server: LiveServer, setup: dict[str, Any]) -> None:
    app, user = setup["app"], setup["user"]
    scopes = ["tweet.read", "users.read", "users.email", "offline.access"]
    result = run_node(
        server,
        {
            "scenario": "oauth2",
            "client_id": app["client_id"],
            "client_secret": app["client_secret"],
            "callback": CALLBACK,
            "scopes": scopes,
            "username": user["username"],
        },
    )
    assert result["url"].startswith("https://x.com/i/oauth2/authorize?")
    assert "code_challenge_method=s256" in result["url"]  # lower case, as this client sends it
    assert result["state_matches"] is True
    assert result["scope"] == scopes and result["expires_in"] == 7200 and result["has_refresh_token"]
    me = result["me"]
    assert me["id"] == user["id"] and me["username"] == user["username"]
    assert me["confirmed_email"] == EMAIL  # users.email granted, own user object
    refreshed = result["refreshed"]
    assert refreshed["scope"] == scopes and refreshed["expires_in"] == 7200
    assert refreshed["new_access_token"] and refreshed["new_refresh_token"]
    assert refreshed["me"]["id"] == user["id"]
    # Refresh tokens rotate on every use: the spent one is refused.
    assert result["old_refresh"]["status"] == 400, result["old_refresh"]
    assert result["old_refresh"]["data"]["error"] == "invalid_request"
