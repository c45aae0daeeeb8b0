"""Ads API fixtures: clients for the demo advertiser on production and in the sandbox, and fresh
sandbox accounts so tests that write do not see each other's entities."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.api.ads.helpers import AdsClient, demo_ads_client
from tests.support.server import LiveServer


@pytest.fixture()
def ads(server: LiveServer, credentials: dict[str, Any]) -> Iterator[AdsClient]:
    """The demo user on the production ads host."""
    client = demo_ads_client(server.base_url, credentials)
    yield client
    client.close()


@pytest.fixture()
def sandbox(server: LiveServer, credentials: dict[str, Any]) -> Iterator[AdsClient]:
    """The demo user on the sandbox host."""
    client = demo_ads_client(server.base_url, credentials, sandbox=True)
    yield client
    client.close()


@pytest.fixture()
def ads_as(server: LiveServer, credentials: dict[str, Any]) -> Callable[..., AdsClient]:
    """A client acting as another user (pass the user from the `make_user` fixture)."""
    made: list[AdsClient] = []

    def make(user: dict[str, Any], **kwargs: Any) -> AdsClient:
        client = AdsClient(
            server.base_url,
            credentials["consumer_key"],
            credentials["consumer_secret"],
            user["token"],
            user["secret"],
            **kwargs,
        )
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture()
def account(sandbox: AdsClient) -> dict[str, Any]:
    """A fresh sandbox account of the demo user, with its funding instrument and promotable user."""
    response = sandbox.post("/accounts")
    assert response.status_code == 200, response.text
    created = response.json()["data"][0]
    instruments = sandbox.get(f"/accounts/{created['id']}/funding_instruments").json()["data"]
    return {**created, "funding_instrument_id": instruments[0]["id"] if instruments else None}
