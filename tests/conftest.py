"""Shared fixtures: one live server per session (SQLite, or PostgreSQL with ROOST_TEST_DATABASE_URL)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.server import LiveServer


@pytest.fixture(scope="session")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="session", rate_limits=False).start()
    yield live
    live.stop()


@pytest.fixture(scope="session")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture()
def api(server: LiveServer, credentials: dict[str, Any]) -> Iterator[Api]:
    client = Api(server.base_url, credentials)
    yield client
    client.close()


@pytest.fixture()
def make_user(api: Api) -> Any:
    """Create a user (optionally premium) with an OAuth 1.0a token and an OAuth 2.0 token for the demo app."""
    counter = {"n": 0}

    def make(premium: bool = False, **fields: Any) -> dict[str, Any]:
        counter["n"] += 1
        import uuid

        username = fields.pop("username", f"t_{uuid.uuid4().hex[:12]}")
        body = {"username": username, "subscription_type": "Premium" if premium else "None", **fields}
        created = api.http.post("/_roost/users", json=body).json()
        oauth1 = api.http.post(
            "/_roost/tokens", json={"consumer_key": api.creds["consumer_key"], "user_id": created["id"]}
        ).json()
        oauth2 = api.http.post(
            "/_roost/tokens",
            json={"consumer_key": api.creds["consumer_key"], "user_id": created["id"], "kind": "oauth2"},
        ).json()
        return {
            **created,
            "token": oauth1["access_token"],
            "secret": oauth1["access_token_secret"],
            "oauth2": oauth2["access_token"],
        }

    return make
