"""`GET /_roost/metrics` (issue 17): requests by operation and status, latency histograms, deliveries
by state, open streams and the event log's lag, in the Prometheus text format."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import insert
from tests.api.streams.stream_support import stream
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.control.metrics import LATENCY_BUCKETS_S
from roost.storage.schema import deliveries

SAMPLE = "/2/tweets/sample/stream"


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    server = LiveServer(tag="metrics").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def api(live: LiveServer) -> Iterator[Api]:
    creds = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
    client = Api(live.base_url, creds)
    yield client
    client.close()


def scrape(live: LiveServer) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """Sample name → (sorted labels → value), parsed by prometheus_client's own parser."""
    response = httpx.get(live.base_url + "/_roost/metrics", timeout=30)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def value(samples: dict[str, Any], name: str, **labels: str) -> float | None:
    return samples.get(name, {}).get(tuple(sorted(labels.items())))


def test_requests_are_counted_by_operation_and_status(api: Api, live: LiveServer) -> None:
    for _ in range(3):
        assert api.get("/2/users/me", auth="oauth2").status_code == 200
    for _ in range(2):
        assert api.get("/2/users/me").status_code == 403  # an app-only token cannot name a user
    samples = scrape(live)
    assert value(samples, "roost_requests_total", operation="findMyUser", status="200") == 3
    assert value(samples, "roost_requests_total", operation="findMyUser", status="403") == 2


def test_latency_histogram_buckets(api: Api, live: LiveServer) -> None:
    for _ in range(4):
        assert api.get("/2/users/by/username/metrics_nobody").status_code == 200  # a not-found error
    samples = scrape(live)
    op = "findUserByUsername"
    count = value(samples, "roost_request_duration_seconds_count", operation=op)
    assert count == 4
    assert value(samples, "roost_request_duration_seconds_bucket", operation=op, le="+Inf") == 4
    buckets = [
        value(samples, "roost_request_duration_seconds_bucket", operation=op, le=str(bound))
        for bound in LATENCY_BUCKETS_S
    ]
    assert all(b is not None for b in buckets)
    assert buckets == sorted(buckets)  # cumulative
    total = value(samples, "roost_request_duration_seconds_sum", operation=op)
    assert total is not None and 0 < total < 4 * 10


def test_deliveries_by_state(live: LiveServer) -> None:
    before = scrape(live)
    for state in ("pending", "sending", "delivered", "failed"):
        assert value(before, "roost_deliveries", state=state) is not None
    assert live.app.server is not None
    db = live.app.server.stores.db

    async def add_rows() -> None:
        # Settled rows: the dispatcher leaves them as they are.
        async with db.transaction() as tx:
            for position, state in enumerate(("delivered", "delivered", "failed"), start=1):
                await tx.execute(
                    insert(deliveries).values(
                        webhook_id=1,
                        event_position=10_000 + position,
                        event_id=position,
                        for_user_id=0,
                        route=f"metrics:{position}",
                        body="{}",
                        state=state,
                        attempts=1,
                        created_at=0,
                    )
                )

    live.run(add_rows())
    after = scrape(live)
    delivered = value(after, "roost_deliveries", state="delivered")
    failed = value(after, "roost_deliveries", state="failed")
    assert delivered == (value(before, "roost_deliveries", state="delivered") or 0) + 2
    assert failed == (value(before, "roost_deliveries", state="failed") or 0) + 1


def test_event_log_lag_comes_back_to_zero(api: Api, live: LiveServer) -> None:
    created = api.post("/2/tweets", auth="oauth2", json={"text": "metrics: an event for the log"})
    assert created.status_code == 201, created.text
    deadline = time.monotonic() + 10
    while True:
        lag = value(scrape(live), "roost_event_log_lag")
        assert lag is not None and lag >= 0
        if lag == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert lag == 0  # the dispatcher turned the event into deliveries (none here) and moved on


def test_open_stream_connections(api: Api, live: LiveServer) -> None:
    assert value(scrape(live), "roost_stream_connections") == 0
    with stream(live, api, SAMPLE) as response:
        assert response.status_code == 200
        assert value(scrape(live), "roost_stream_connections") == 1
    deadline = time.monotonic() + 10
    while value(scrape(live), "roost_stream_connections") != 0:
        assert time.monotonic() < deadline, "the closed stream is still counted"
        time.sleep(0.05)


def test_two_servers_share_no_counters(live: LiveServer) -> None:
    other = LiveServer(tag="metrics-other").start()
    try:
        samples = scrape(other)
        assert value(samples, "roost_requests_total", operation="findMyUser", status="200") is None
    finally:
        other.stop()
