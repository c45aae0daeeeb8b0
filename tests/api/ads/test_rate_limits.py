"""Ads rate limits, on a server with limits switched on: the per-category windows, the account-level
headers on account reads, the lower window of `with_total_count` requests and the 429 body."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.api.ads.helpers import AdsClient, demo_ads_client, error_codes
from tests.support.server import LiveServer

DEMO_ACCOUNT = "18ce54d4x5t"


@pytest.fixture(scope="module")
def limited() -> Iterator[AdsClient]:
    live = LiveServer(tag="ads_limits", rate_limits=True).start()
    creds: dict[str, Any] = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
    client = demo_ads_client(live.base_url, creds)
    yield client
    client.close()
    live.stop()


def test_account_reads_carry_user_and_account_windows(limited: AdsClient) -> None:
    first = limited.get(f"/accounts/{DEMO_ACCOUNT}/campaigns")
    second = limited.get(f"/accounts/{DEMO_ACCOUNT}/campaigns")
    assert first.status_code == second.status_code == 200
    for prefix in ("x-rate-limit", "x-account-rate-limit"):
        assert first.headers[f"{prefix}-limit"] == "10000"
        assert int(second.headers[f"{prefix}-remaining"]) == int(first.headers[f"{prefix}-remaining"]) - 1
        assert int(first.headers[f"{prefix}-reset"]) > 0
    # Writes have one shared window per minute and no account headers.
    write = limited.put(f"/accounts/{DEMO_ACCOUNT}", {"name": "Roost Demo Advertiser"})
    assert write.status_code == 200
    assert write.headers["x-rate-limit-limit"] == "450"
    assert "x-account-rate-limit-limit" not in write.headers


def test_global_reads_allow_five_per_window_then_429(limited: AdsClient) -> None:
    answers = [limited.get("/bidding_rules", {"currency": "USD"}) for _ in range(6)]
    assert [r.status_code for r in answers[:5]] == [200] * 5
    refused = answers[5]
    assert refused.status_code == 429
    assert error_codes(refused) == ["TOO_MANY_REQUESTS"]
    assert refused.headers["x-rate-limit-remaining"] == "0"
    assert refused.json()["request"] == {"params": {}}


def test_with_total_count_has_its_own_lower_window(limited: AdsClient) -> None:
    counted = limited.get("/accounts", {"with_total_count": "true"})
    assert counted.status_code == 200
    assert counted.headers["x-rate-limit-limit"] == "200"
    plain = limited.get("/accounts")
    assert plain.headers["x-rate-limit-limit"] == "2000"
