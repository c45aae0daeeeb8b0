"""`--problem-type-base`: problem `type` URIs under the configured base, per server. Two servers in one
process with different bases answer each under its own (the base is server state, not a module's)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from tests.support.server import LiveServer

TWITTER_BASE = "https://api.twitter.com/2/problems/"
X_BASE = "https://api.x.com/2/problems/"


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, httpx.Client]]:
    twitter = LiveServer(tag="problems_twitter", problem_type_base=TWITTER_BASE.rstrip("/")).start()
    x = LiveServer(tag="problems_x").start()
    clients = {}
    for name, live in (("twitter", twitter), ("x", x)):
        bearer = httpx.get(live.base_url + "/_roost/credentials").json()["bearer_token"]
        clients[name] = httpx.Client(base_url=live.base_url, headers={"Authorization": f"Bearer {bearer}"})
    yield clients
    for client in clients.values():
        client.close()
    twitter.stop()
    x.stop()


def test_an_invalid_request_names_each_servers_base(servers: dict[str, httpx.Client]) -> None:
    for name, base in (("twitter", TWITTER_BASE), ("x", X_BASE)):
        response = servers[name].get("/2/tweets", params={"ids": "abc"})
        assert response.status_code == 400
        assert response.json()["type"] == base + "invalid-request"


def test_partial_errors_beside_data_name_the_base(servers: dict[str, httpx.Client]) -> None:
    for name, base in (("twitter", TWITTER_BASE), ("x", X_BASE)):
        response = servers[name].get("/2/tweets", params={"ids": "1,2"})
        assert response.status_code == 200
        body = response.json()
        assert "data" not in body
        assert [error["type"] for error in body["errors"]] == [base + "resource-not-found"] * 2
