"""Fixtures for the real-client tests (tweepy, xdk, requests-oauthlib) against the session's live roost."""

from __future__ import annotations

from typing import Any

import pytest
from tests.clients.helpers import Seed, load_seed
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def seed(server: LiveServer, credentials: dict[str, Any]) -> Seed:
    """Read per module, so posts other suites add for the demo user in between do not shift expectations."""
    return load_seed(server.base_url, credentials)
