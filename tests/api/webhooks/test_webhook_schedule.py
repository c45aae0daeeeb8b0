"""Scheduled CRC checks and the webhook state table, against real loopback receivers and the clock.

| from  | by                 | condition                                         | to      |
| valid | scheduled CRC      | 2XX with a wrong token / 3XX / TLS error          | invalid |
| valid | scheduled CRC      | transient (4XX, 5XX, timeout, closed) for > 28 h  | invalid |
| inval | PUT /2/webhooks/id | CRC passes                                        | valid   |
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import pytest
from tests.api.helpers import create_ok, new_user
from tests.api.webhooks.helpers import deliver_marker, delivery_rows, make_hook, subscribe, wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

from roost.storage import webhooks as webhook_rows

HOUR = 3600
# Short, so the timeout cases are quick; not so short that a CRC answered on a loaded machine (the
# receiver is a thread of the test process) misses it.
CRC_TIMEOUT = 1.5


# A server of this module's own: the tests move its clock by days.
@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    extra = {"webhook_limit": "20", "subscription_limit": "100", "crc_timeout_seconds": str(CRC_TIMEOUT)}
    live = LiveServer(tag="schedule", rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


def advance(api: Api, seconds: float) -> int:
    """Move the roost clock; the new time, epoch ms, read in the same step as the move (no scheduler
    pass runs in between), so any CRC attempt recorded after the move is at or after it."""
    response = api.http.post("/_roost/clock", json={"advance_seconds": seconds})
    assert response.status_code == 200, response.text
    now = response.json()["now"]
    assert now.endswith("Z")
    return int(datetime.strptime(now, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000)


def is_valid(api: Api, webhook_id: str) -> bool:
    hooks = api.get("/2/webhooks", conform=False).json()["data"]
    [hook] = [hook for hook in hooks if hook["id"] == webhook_id]
    return bool(hook["valid"])


def stored(server: LiveServer, webhook_id: str) -> dict[str, Any]:
    assert server.app.state is not None
    row = server.run(server.app.server.stores.webhooks.get(int(webhook_id)))
    assert row is not None
    return dict(row)


def crcs_after(receiver: Receiver, count: int, timeout: float = 5.0) -> int:
    """Wait until the receiver has answered more than `count` CRCs; the new total."""
    wait_for(lambda: receiver.crc_count() > count, timeout)
    return receiver.crc_count()


def store_due_webhook(server: LiveServer, template_id: str, url: str) -> str:
    """A webhook of the same app as `template_id`, at `url`, stored directly as valid and last validated
    25 hours ago, with no CRC attempted yet: due at the scheduler's next pass."""
    template = stored(server, template_id)
    assert server.app.state is not None
    services = server.app.server.stores
    webhook_id = services.ids.next_id()
    now = services.clock.now_ms()
    row = {
        "id": webhook_id,
        "app_id": template["app_id"],
        "project_id": template["project_id"],
        "url": url,
        "valid": 1,
        "created_at": now - 30 * HOUR * 1000,
        "validated_at": now - 25 * HOUR * 1000,
        "crc_attempted_at": None,
    }

    async def insert() -> None:
        async with services.db.transaction() as tx:
            await webhook_rows.insert_webhook(tx, row)

    server.run(insert())
    return str(webhook_id)


@pytest.fixture()
def quiet(server: LiveServer, marker_receiver: Receiver) -> Callable[[str, Receiver, int, int], bool]:
    """`quiet(webhook_id, receiver, count, since_ms)`: whether the scheduler left the webhook alone since
    the roost clock read `since_ms` (no CRC attempt recorded at or after it), through a pass that began
    after the call, and the receiver is still at `count` CRCs.

    The pass is shown by a due webhook stored for the purpose: a pass records each due webhook's attempt
    before its CRC goes out, in id order, and the new webhook has the highest id. Once its attempt is
    recorded, the webhook under test has its own too if it was due."""

    def check(webhook_id: str, receiver: Receiver, count: int, since_ms: int) -> bool:
        marker = store_due_webhook(server, webhook_id, marker_receiver.url())
        assert wait_for(lambda: stored(server, marker)["crc_attempted_at"] is not None), "no scheduler pass"
        attempted = stored(server, webhook_id)["crc_attempted_at"]
        return (attempted is None or attempted < since_ms) and receiver.crc_count() == count

    return check


@pytest.fixture()
def judged(caplog: pytest.LogCaptureFixture) -> Callable[[str, int], None]:
    """`judged(webhook_id, count)`: wait until `count` scheduled CRCs of the webhook have failed and been
    judged (the scheduler logs each failure once its outcome is stored)."""
    caplog.set_level(logging.INFO, logger="roost.crc")

    def wait(webhook_id: str, count: int) -> None:
        failure = f"scheduled CRC of webhook {webhook_id} failed: "

        def failures() -> int:
            return sum(record.getMessage().startswith(failure) for record in list(caplog.records))

        assert wait_for(lambda: failures() >= count), f"{failures()} judged failures of {webhook_id}"

    return wait


# ---- the cadence ------------------------------------------------------------------------------


def test_valid_webhook_is_not_rechecked_within_24_hours(api: Api, receiver: Receiver, quiet: Any) -> None:
    hook = make_hook(api, receiver)
    assert receiver.crc_count() == 1  # the creation check
    assert quiet(hook["id"], receiver, 1, advance(api, 23 * HOUR))
    advance(api, HOUR + 60)  # 24 h and a minute since the last validation
    assert crcs_after(receiver, 1) == 2
    moved = advance(api, 10 * 60)  # validated just now: nothing more for another day
    assert quiet(hook["id"], receiver, 2, moved)


def test_failing_checks_repeat_every_30_minutes(api: Api, receiver: Receiver, quiet: Any) -> None:
    hook = make_hook(api, receiver)
    receiver.mode = "error"
    advance(api, 24 * HOUR + 60)
    assert crcs_after(receiver, 1) == 2
    moved = advance(api, 20 * 60)
    assert quiet(hook["id"], receiver, 2, moved)  # the last attempt was 20 minutes ago
    advance(api, 11 * 60)
    assert crcs_after(receiver, 2) == 3
    assert is_valid(api, hook["id"])


def test_put_records_the_attempt(api: Api, receiver: Receiver, server: LiveServer) -> None:
    hook = make_hook(api, receiver)
    advance(api, 60)
    before = stored(server, hook["id"])
    response = api.request("PUT", f"/2/webhooks/{hook['id']}")
    assert response.status_code == 200 and response.json() == {"data": {"valid": True}}
    after = stored(server, hook["id"])
    assert after["crc_attempted_at"] > before["crc_attempted_at"]
    assert after["validated_at"] > before["validated_at"]


# ---- definite failures: invalid at once -------------------------------------------------------


@pytest.mark.parametrize("mode", ["wrong", "redirect"])
def test_definite_failure_invalidates_at_once(api: Api, receiver: Receiver, mode: str) -> None:
    hook = make_hook(api, receiver)
    receiver.mode = mode
    advance(api, 24 * HOUR + 60)
    crcs_after(receiver, 1)
    assert wait_for(lambda: not is_valid(api, hook["id"]))


def test_tls_error_invalidates_at_once(api: Api, receiver: Receiver, server: LiveServer) -> None:
    # An https URL served by a plain-HTTP receiver: the handshake fails. Such a webhook could never
    # pass its creation check, so it is stored directly as if it had been valid 25 hours ago.
    webhook_id = store_due_webhook(
        server, make_hook(api, receiver)["id"], f"https://127.0.0.1:{receiver.port}/tls"
    )
    advance(api, 1)
    assert wait_for(lambda: not is_valid(api, webhook_id))
    assert stored(server, webhook_id)["crc_attempted_at"] is not None


# ---- transient failures: the 28-hour rule -----------------------------------------------------


@pytest.mark.parametrize("mode", ["error", "client-error", "close", "timeout"])
def test_transient_failures_invalidate_after_28_hours(
    api: Api, receiver: Receiver, server: LiveServer, judged: Any, mode: str
) -> None:
    hook = make_hook(api, receiver)
    if mode == "timeout":
        receiver.crc_delay = CRC_TIMEOUT + 0.6
    else:
        receiver.mode = mode
    advance(api, 24 * HOUR + 60)
    count = crcs_after(receiver, 1)
    judged(hook["id"], 1)
    assert is_valid(api, hook["id"])
    advance(api, 3 * HOUR - 120)  # 27 h since the last validation
    count = crcs_after(receiver, count)
    judged(hook["id"], 2)
    assert is_valid(api, hook["id"])
    advance(api, HOUR + 120)  # 28 h and a minute
    crcs_after(receiver, count)
    assert wait_for(lambda: not is_valid(api, hook["id"]))
    assert stored(server, hook["id"])["validated_at"] is not None  # the last pass is kept


def test_a_passing_check_within_28_hours_keeps_it_valid(
    api: Api, receiver: Receiver, server: LiveServer, quiet: Any
) -> None:
    hook = make_hook(api, receiver)
    created = stored(server, hook["id"])["validated_at"]
    receiver.mode = "error"
    advance(api, 24 * HOUR + 60)
    count = crcs_after(receiver, 1)
    receiver.mode = "ok"
    advance(api, 3 * HOUR)
    count = crcs_after(receiver, count)
    assert wait_for(lambda: stored(server, hook["id"])["validated_at"] > created)  # the pass is stored
    receiver.mode = "error"
    moved = advance(api, 2 * HOUR)  # 29 h since creation, but 2 h since the last pass: not checked at all
    assert quiet(hook["id"], receiver, count, moved)
    assert is_valid(api, hook["id"])


# ---- an invalid webhook, and the way back ------------------------------------------------------


def test_invalid_webhook_gets_no_events_until_a_passing_put(
    api: Api, receiver: Receiver, marker_receiver: Receiver, quiet: Any
) -> None:
    hook = make_hook(api, receiver)
    path = urlsplit(hook["url"]).path
    user = new_user(api)
    subscribe(api, hook["id"], user)
    receiver.mode = "wrong"
    advance(api, 24 * HOUR + 60)
    assert wait_for(lambda: not is_valid(api, hook["id"]))

    create_ok(api, user)
    deliver_marker(api, marker_receiver)  # logged after the post, so the post has had its rows made
    assert delivery_rows(api, hook["id"]) == []
    assert receiver.received(path) == []
    count = receiver.crc_count()
    moved = advance(api, 2 * HOUR)
    assert quiet(hook["id"], receiver, count, moved)  # invalid webhooks are not scheduled

    response = api.request("PUT", f"/2/webhooks/{hook['id']}")
    assert response.status_code == 200 and response.json() == {"data": {"valid": False}}
    receiver.mode = "ok"
    response = api.request("PUT", f"/2/webhooks/{hook['id']}")
    assert response.status_code == 200 and response.json() == {"data": {"valid": True}}
    assert is_valid(api, hook["id"])

    post = create_ok(api, user)
    got = wait_for(lambda: receiver.received(path))
    assert len(got) == 1
    assert json.loads(got[0]["raw"])["tweet_create_events"][0]["id_str"] == post["id"]
