"""For ads test modules that move roost's clock by hours: a server of their own, so the session
server's clock (which every other module reads as the present) stays where it is. Use:
`server, credentials = own_server_fixtures("stats_delivery")` at module level."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from tests.support.server import LiveServer


def own_server_fixtures(tag: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    @pytest.fixture(scope="module")
    def server() -> Iterator[LiveServer]:
        live = LiveServer(tag=tag, rate_limits=False).start()
        yield live
        live.stop()

    @pytest.fixture(scope="module")
    def credentials(server: LiveServer) -> dict[str, Any]:
        body: dict[str, Any] = httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()
        return body

    return server, credentials
