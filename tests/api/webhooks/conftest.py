"""Webhook test modules: each runs a `server` of its own (they move its clock), so here are
module-scoped credentials for it, a receiver per test, and the webhooks removed after every test.
The helpers the modules share are in `helpers.py`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture()
def receiver(credentials: dict[str, Any]) -> Iterator[Receiver]:
    live = Receiver(credentials["consumer_secret"])
    yield live
    live.close()


@pytest.fixture()
def marker_receiver(credentials: dict[str, Any]) -> Iterator[Receiver]:
    """A second receiver, answering normally, for webhooks that show how far the dispatcher or the CRC
    scheduler has got while the webhook under test is failing or silent on purpose."""
    live = Receiver(credentials["consumer_secret"])
    yield live
    live.close()


@pytest.fixture(autouse=True)
def clean(api: Api) -> Iterator[None]:
    yield
    for hook in api.get("/2/webhooks", conform=False).json()["data"]:
        api.delete(f"/2/webhooks/{hook['id']}")
