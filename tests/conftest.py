"""Shared fixtures: one live server per session (SQLite, or PostgreSQL with ROOST_TEST_DATABASE_URL)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.server import LiveServer

# Issue 16: with ROOST_TEST_ROUND_ROBIN=1 (and a PostgreSQL database), the session's server is two
# processes on one database behind a proxy that sends each request to the next in turn.
ROUND_ROBIN = os.environ.get("ROOST_TEST_ROUND_ROBIN") == "1"


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    if not ROUND_ROBIN:
        live = LiveServer(tag="session", rate_limits=False).start()
        yield live
        live.stop()
        return
    with two_processes(tmp_path_factory.mktemp("round_robin")) as live:
        yield live


@contextlib.contextmanager
def two_processes(data_dir: Path) -> Iterator[LiveServer]:
    """This process's server and a `roost serve` on its database, both behind a round-robin proxy:
    the server returned is this process's (tests may reach its services), its `base_url` the proxy's."""
    from tests.api.test_persistence import _serve, _wait_ready
    from tests.support.round_robin import RoundRobinProxy
    from tests.support.server import PG_ENV, free_port

    if not os.environ.get(PG_ENV):
        pytest.exit(f"ROOST_TEST_ROUND_ROBIN=1 needs PostgreSQL ({PG_ENV})", returncode=4)
    live = LiveServer(tag="session", rate_limits=False).start()
    port = free_port()
    other = _serve(live.settings.db_url, port, data_dir)
    proxy: RoundRobinProxy | None = None
    try:
        _wait_ready(f"http://127.0.0.1:{port}", other)
        proxy = RoundRobinProxy([live.base_url, f"http://127.0.0.1:{port}"]).start()
        live.base_url = proxy.base_url  # every request of the suite goes through the proxy
        yield live
    finally:
        if proxy is not None:
            proxy.stop()
        other.terminate()
        other.wait(timeout=30)
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
