"""`roost serve --admin-token` (issue 16): every /_roost route and the test-approval header need
`X-Roost-Admin-Token`; the platform API itself is unchanged."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.routing import Route
from tests.api.test_oauth2_flow import CALLBACK, UNAUTHORIZED, authorize_params, redirected
from tests.support.server import LiveServer, free_port

from roost.app import PAGES
from roost.core.body_cap import BodyCap

TOKEN = "team-sandbox-" + secrets.token_hex(8)
ADMIN = {"X-Roost-Admin-Token": TOKEN}


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    server = LiveServer(tag="admin_token", rate_limits=False, admin_token=TOKEN).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def http(live: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live.base_url, timeout=30) as client:
        yield client


def entry_open(entry: object) -> bool:
    path = getattr(entry, "path", "")
    return path == "/_roost/console/login" or path.startswith("/_roost/console/static/")


def control_routes(live: LiveServer) -> list[tuple[str, str]]:
    """Every (method, path) the control plane serves, path parameters filled with a number."""
    assert live.app.parts is not None
    pages = live.app.parts[PAGES]
    pages = pages.app  # type: ignore[attr-defined]  # behind the request journal's wrapper
    if isinstance(pages, BodyCap):
        pages = pages.app  # the Starlette routes behind the pages' body cap
    found = []
    for entry in pages.routes:  # type: ignore[attr-defined]
        # The console's sign-in page and its script and style stay open: a browser must reach them.
        if entry_open(entry):
            continue
        if isinstance(entry, Route) and entry.path.startswith("/_roost"):
            path = entry.path
            for name in entry.param_convertors:
                path = path.replace("{" + name + "}", "1").replace("{" + name + ":int}", "1")
                path = path.replace("{" + name + ":path}", "1")
            for method in sorted(entry.methods or {"GET"}):
                if method != "HEAD":
                    found.append((method, path))
    return found


def test_every_control_route_refuses_a_request_without_the_token(
    live: LiveServer, http: httpx.Client
) -> None:
    routes = control_routes(live)
    assert ("POST", "/_roost/reset") in routes and ("GET", "/_roost/health") in routes
    assert len(routes) > 15
    for method, path in routes:
        for headers in ({}, {"X-Roost-Admin-Token": TOKEN + "x"}, {"X-Roost-Admin-Token": ""}):
            response = http.request(method, path, headers=headers, json={})
            assert response.status_code == 401, (method, path, response.text)
            assert response.json() == UNAUTHORIZED
            assert TOKEN not in response.text


def test_the_token_opens_the_control_plane(http: httpx.Client) -> None:
    assert http.get("/_roost/health", headers=ADMIN).json()["status"] == "ok"
    credentials = http.get("/_roost/credentials", headers=ADMIN)
    assert credentials.status_code == 200
    created = http.post("/_roost/users", json={"username": "admin_made"}, headers=ADMIN)
    assert created.status_code == 201
    # The platform API needs no admin token: its own credentials guard it.
    bearer = {"Authorization": "Bearer " + credentials.json()["bearer_token"]}
    assert http.get("/2/users/by/username/admin_made", headers=bearer).status_code == 200


def _app(http: httpx.Client) -> dict[str, str]:
    body = {"name": "admin-token-app", "callback_urls": [CALLBACK], "client_type": "confidential"}
    response = http.post("/_roost/apps", json=body, headers=ADMIN)
    assert response.status_code == 201, response.text
    return response.json()


def test_test_approval_counts_only_with_the_token(http: httpx.Client) -> None:
    app = _app(http)
    params = authorize_params(app, "tweet.read users.read", secrets.token_urlsafe(64))
    # From loopback but without the token: the header is ignored and the sign-in page is shown.
    page = http.get("/i/oauth2/authorize", params=params, headers={"X-Roost-Approve": "roost_dev"})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    wrong = {"X-Roost-Approve": "roost_dev", "X-Roost-Admin-Token": "not-it"}
    assert http.get("/i/oauth2/authorize", params=params, headers=wrong).status_code == 200
    approved = http.get(
        "/i/oauth2/authorize", params=params, headers={"X-Roost-Approve": "roost_dev", **ADMIN}
    )
    query = redirected(approved)
    assert query["state"] == params["state"] and query["code"]


def test_the_environment_variable_sets_the_token_and_it_is_never_printed(tmp_path: Path) -> None:
    port = free_port()
    token = "env-" + secrets.token_hex(12)
    env = {**os.environ, "ROOST_DATA_DIR": str(tmp_path), "ROOST_ADMIN_TOKEN": token}
    command = [sys.executable, "-m", "roost", "serve", "--port", str(port), "--no-rate-limits"]
    command += ["--db", f"sqlite:///{tmp_path / 'roost.db'}", "--log-level", "info"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "server exited"
            assert time.monotonic() < deadline, "server did not start"
            try:
                if (
                    httpx.get(base + "/_roost/health", headers={"X-Roost-Admin-Token": token}).status_code
                    == 200
                ):
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        assert httpx.get(base + "/_roost/health").status_code == 401
        assert (
            httpx.get(base + "/_roost/credentials", headers={"X-Roost-Admin-Token": "nope"}).status_code
            == 401
        )
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=30)
    assert b"roost is ready" in output
    assert token.encode() not in output
