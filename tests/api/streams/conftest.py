"""Fixtures of the stream tests: one server per module, with fast keep-alives and the module's own
feature settings (`SERVER_SETTINGS`), and no connection left open between tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    extra = {"stream_keepalive_s": "0.5", **getattr(request.module, "SERVER_SETTINGS", {})}
    tag = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    live = LiveServer(tag=tag, rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture(autouse=True)
def no_leftovers(api: Api) -> Iterator[None]:
    # A closed client is noticed by the server a little later; deleting frees the slots at once.
    api.delete("/2/connections/all", conform=False)
    yield
