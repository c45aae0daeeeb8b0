"""Each webhook's CRC history (issue 17): the check at creation, those asked for with
`PUT /2/webhooks/:id` and the scheduled ones, newest first on the console's webhook page."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from tests.support.counting_receiver import CountingReceiver
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    server = LiveServer(tag="crc_history", rate_limits=False).start()
    yield server
    server.stop()


def eventually(check: Callable[[], Any], timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.05)  # between two looks


def history(live: LiveServer, webhook_id: str) -> list[tuple[str, bool]]:
    rows = live.run(live.app.server.domain.console.crc_checks(int(webhook_id)))  # type: ignore[union-attr]
    return [(row["trigger"], bool(row["passed"])) for row in rows]


def test_creation_requests_and_the_schedule_each_leave_a_check(live: LiveServer) -> None:
    http = httpx.Client(base_url=live.base_url, timeout=30)
    creds = http.get("/_roost/credentials").json()
    app_only = {"Authorization": f"Bearer {creds['bearer_token']}"}
    receiver = CountingReceiver()
    receiver.secret = creds["consumer_secret"]
    try:
        created = http.post("/2/webhooks", json={"url": receiver.url}, headers=app_only)
        assert created.status_code == 200, created.text
        webhook_id = created.json()["data"]["id"]
        assert history(live, webhook_id) == [("create", True)]

        assert http.put(f"/2/webhooks/{webhook_id}", headers=app_only).status_code == 200
        assert history(live, webhook_id) == [("request", True), ("create", True)]

        http.post("/_roost/clock", json={"advance_seconds": 86_400})  # the daily CRC is due
        assert eventually(lambda: history(live, webhook_id)[0] == ("scheduled", True))

        page = http.get(f"/_roost/console/webhooks/{webhook_id}")
        assert page.status_code == 200
        assert "CRC history" in page.text and "scheduled" in page.text and "request" in page.text

        assert http.delete(f"/2/webhooks/{webhook_id}", headers=app_only).status_code == 200
        assert history(live, webhook_id) == []  # gone with its webhook
    finally:
        receiver.httpd.shutdown()
        http.close()
