"""Signed, durable delivery of account-activity events to a real loopback receiver."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest
from tests.api.helpers import create_ok, delete_as, new_user
from tests.api.webhooks.helpers import deliver_marker, make_hook, path_of, subscribe, wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

SIGNATURE_HEADER = "x-twitter-webhooks-signature"


# A server of this module's own: the tests move its clock.
@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    extra = {"webhook_limit": "20", "subscription_limit": "100"}
    live = LiveServer(tag="deliveries", rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


def deliveries(api: Api, webhook_id: str) -> list[dict[str, Any]]:
    response = api.http.get("/_roost/deliveries", params={"webhook_id": webhook_id})
    assert response.status_code == 200, response.text
    data: list[dict[str, Any]] = response.json()["data"]
    return data


def epoch_ms(iso: str) -> int:
    return int(datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000)


def check_signature(post: dict[str, Any], secret: str) -> None:
    digest = hmac.new(secret.encode(), post["raw"], hashlib.sha256).digest()
    expected = "sha256=" + base64.b64encode(digest).decode()
    assert hmac.compare_digest(post["headers"][SIGNATURE_HEADER], expected)


def test_post_create_and_delete_are_delivered_signed(api: Api, receiver: Receiver) -> None:
    hook = make_hook(api, receiver)
    alice = new_user(api, name="Alice Example")
    subscribe(api, hook["id"], alice)
    post = create_ok(api, alice)

    got = wait_for(lambda: receiver.received(path_of(hook)))
    assert len(got) == 1
    first = got[0]
    check_signature(first, receiver.secret)
    assert first["headers"]["content-type"] == "application/json"
    envelope = json.loads(first["raw"])
    assert envelope["for_user_id"] == alice["id"]
    [status] = envelope["tweet_create_events"]
    assert status["id_str"] == post["id"] and status["id"] == int(post["id"])
    assert status["text"] == post["text"]
    # The full v1.1 user (tests/api/test_aaa_events.py checks the rest of it).
    assert {key: status["user"][key] for key in ("id", "id_str", "name", "screen_name")} == {
        "id": int(alice["id"]),
        "id_str": alice["id"],
        "name": "Alice Example",
        "screen_name": alice["username"],
    }
    time.strptime(status["created_at"], "%a %b %d %H:%M:%S +0000 %Y")
    event_id = first["headers"]["x-roost-event-id"]
    assert event_id.isdigit()

    assert delete_as(api, alice, post["id"]).status_code == 200
    got = wait_for(lambda: len(receiver.received(path_of(hook))) >= 2 and receiver.received(path_of(hook)))
    second = got[1]
    check_signature(second, receiver.secret)
    assert second["headers"]["x-roost-event-id"] not in ("", event_id)
    deleted = json.loads(second["raw"])
    assert deleted["for_user_id"] == alice["id"]
    [event] = deleted["tweet_delete_events"]
    assert event["status"] == {"id": post["id"], "user_id": alice["id"]}
    assert event["timestamp_ms"].isdigit()

    # The receiver logs a post before its answer reaches roost: wait for both rows to settle.
    def delivered() -> list[dict[str, Any]]:
        return [r for r in deliveries(api, hook["id"]) if r["state"] == "delivered"]

    rows = wait_for(lambda: len(delivered()) == 2 and delivered())
    assert rows and len(rows) == 2
    assert all(row["attempts"] == 1 and row["last_status"] == 200 for row in rows)
    assert rows[0]["event_id"] == event_id and rows[0]["delivered_at"].endswith("Z")
    assert isinstance(rows[0]["last_latency_ms"], int)


def test_failed_delivery_is_retried_after_the_schedule(
    api: Api, receiver: Receiver, marker_receiver: Receiver
) -> None:
    hook = make_hook(api, receiver)
    bob = new_user(api)
    subscribe(api, hook["id"], bob)
    receiver.fail_posts = 1
    create_ok(api, bob)

    got = wait_for(lambda: receiver.received(path_of(hook)))
    assert [post["status"] for post in got] == [500]
    [row] = wait_for(lambda: [r for r in deliveries(api, hook["id"]) if r["attempts"] == 1])
    assert row["state"] == "pending" and row["last_status"] == 500 and row["next_attempt_at"]
    # The first retry is 30 s (roost clock) after the attempt, which came after the row was made.
    assert epoch_ms(row["next_attempt_at"]) >= epoch_ms(row["created_at"]) + 30_000
    # Not sent before it is due: a round after this one found it not due.
    deliver_marker(api, marker_receiver)
    [row] = deliveries(api, hook["id"])
    assert row["state"] == "pending" and row["attempts"] == 1
    assert len(receiver.received(path_of(hook))) == 1

    # The default schedule's first retry is 30 s later (three retries within about 5 minutes).
    clock = api.http.post("/_roost/clock", json={"advance_seconds": 31})
    assert clock.status_code == 200
    got = wait_for(lambda: len(receiver.received(path_of(hook))) >= 2 and receiver.received(path_of(hook)))
    assert [post["status"] for post in got] == [500, 200]
    assert got[0]["raw"] == got[1]["raw"]
    assert got[0]["headers"]["x-roost-event-id"] == got[1]["headers"]["x-roost-event-id"]
    check_signature(got[1], receiver.secret)
    [row] = wait_for(lambda: [r for r in deliveries(api, hook["id"]) if r["state"] == "delivered"])
    assert row["attempts"] == 2 and row["last_status"] == 200


def test_retries_run_out(api: Api, receiver: Receiver, marker_receiver: Receiver, server: LiveServer) -> None:
    server.settings.extra["delivery_retry_schedule"] = "5"
    try:
        hook = make_hook(api, receiver)
        carol = new_user(api)
        subscribe(api, hook["id"], carol)
        receiver.fail_posts = 10
        create_ok(api, carol)
        wait_for(lambda: receiver.received(path_of(hook)))
        api.http.post("/_roost/clock", json={"advance_seconds": 6})
        [row] = wait_for(lambda: [r for r in deliveries(api, hook["id"]) if r["state"] == "failed"])
        assert row["attempts"] == 2 and row["last_status"] == 500 and row["next_attempt_at"] is None
        api.http.post("/_roost/clock", json={"advance_seconds": 600})
        # A round after the clock moved sent the marker and left the failed row alone.
        deliver_marker(api, marker_receiver)
        [row] = deliveries(api, hook["id"])
        assert row["state"] == "failed" and row["attempts"] == 2
        assert len(receiver.received(path_of(hook))) == 2
    finally:
        server.settings.extra.pop("delivery_retry_schedule", None)


def test_the_reply_deadline_is_the_delivery_timeout_setting(
    api: Api, receiver: Receiver, server: LiveServer
) -> None:
    """The seed's 10 s deadline is the default (a unit test holds it); here it is lowered to show that
    each attempt reads the setting: a 1.5 s answer fails under 0.5 s and is delivered under 5 s."""
    server.settings.extra["delivery_timeout_seconds"] = "0.5"
    try:
        hook = make_hook(api, receiver)
        grace = new_user(api)
        subscribe(api, hook["id"], grace)
        receiver.post_delay = 1.5  # within the CRC's 10 s
        create_ok(api, grace)
        [row] = wait_for(lambda: [r for r in deliveries(api, hook["id"]) if r["attempts"] == 1], timeout=8.0)
        assert row["state"] == "pending" and row["last_status"] is None and row["next_attempt_at"]
        # It gave up after about 0.5 s, before the answer (the missing status above).
        assert 450 <= row["last_latency_ms"] < 1500

        server.settings.extra["delivery_timeout_seconds"] = "5"
        api.http.post("/_roost/clock", json={"advance_seconds": 31})  # the first retry is due
        [row] = wait_for(lambda: [r for r in deliveries(api, hook["id"]) if r["state"] == "delivered"], 8.0)
        assert row["attempts"] == 2 and row["last_status"] == 200 and row["last_latency_ms"] >= 1500
    finally:
        server.settings.extra.pop("delivery_timeout_seconds", None)


def test_invalid_webhook_gets_nothing(api: Api, receiver: Receiver, marker_receiver: Receiver) -> None:
    hook = make_hook(api, receiver)
    dave = new_user(api)
    subscribe(api, hook["id"], dave)
    receiver.mode = "wrong"
    response = api.request("PUT", f"/2/webhooks/{hook['id']}")
    assert response.status_code == 200 and response.json()["data"]["valid"] is False
    create_ok(api, dave)
    deliver_marker(api, marker_receiver)  # logged after dave's post, so that post has had its rows made
    assert receiver.received(path_of(hook)) == []
    assert deliveries(api, hook["id"]) == []


def test_unsubscribed_users_are_not_delivered(api: Api, receiver: Receiver) -> None:
    hook = make_hook(api, receiver)
    erin, frank = new_user(api), new_user(api)
    subscribe(api, hook["id"], erin)
    create_ok(api, frank)
    marker = create_ok(api, erin)
    # Frank's post was logged before erin's: once erin's row exists, frank's would too.
    rows = wait_for(lambda: deliveries(api, hook["id"]))
    assert [row["for_user_id"] for row in rows] == [erin["id"]]
    got = wait_for(lambda: receiver.received(path_of(hook)))
    assert len(got) == 1
    envelope = json.loads(got[0]["raw"])
    assert envelope["for_user_id"] == erin["id"]
    assert envelope["tweet_create_events"][0]["id_str"] == marker["id"]


def test_deliveries_listing_rejects_a_bad_id(api: Api) -> None:
    assert api.http.get("/_roost/deliveries", params={"webhook_id": "abc"}).status_code == 400
    assert api.http.get("/_roost/deliveries", params={"webhook_id": "1"}).json() == {
        "data": [],
        "meta": {"result_count": 0},
    }


def test_deliveries_listing_rejects_ids_it_cannot_hold(api: Api) -> None:
    for raw in ("9999999999999999999", "\u00b2"):  # beyond 64 bits; a digit that is not ASCII
        response = api.http.get("/_roost/deliveries", params={"webhook_id": raw})
        assert response.status_code == 400, response.text


def test_pending_delivery_survives_a_restart(receiver: Receiver) -> None:
    first = LiveServer(tag="deliveries-restart", rate_limits=False).start()
    db_url = first.settings.db_url
    creds = httpx.get(first.base_url + "/_roost/credentials", timeout=30).json()
    receiver.secret = creds["consumer_secret"]
    try:
        api = Api(first.base_url, creds)
        hook = make_hook(api, receiver)
        user = new_user(api)
        subscribe(api, hook["id"], user)
        receiver.fail_posts = 1
        create_ok(api, user)
        assert wait_for(lambda: [r for r in deliveries(api, hook["id"]) if r["attempts"] == 1])
        api.close()
    finally:
        first.stop()
    second = LiveServer(tag="deliveries-restart", rate_limits=False, db_url=db_url).start()
    try:
        api = Api(second.base_url, creds)
        assert api.http.post("/_roost/clock", json={"advance_seconds": 61}).status_code == 200
        [row] = wait_for(lambda: [r for r in deliveries(api, hook["id"]) if r["state"] == "delivered"])
        assert row["attempts"] == 2
        got = receiver.received(path_of(hook))
        assert [post["status"] for post in got] == [500, 200]
        check_signature(got[1], creds["consumer_secret"])
        api.close()
    finally:
        second.stop()


def test_deliveries_resume_after_a_reset(api: Api, receiver: Receiver) -> None:
    """The dispatcher is stopped around the wipe and restarted, with its cursor back at the start."""
    assert api.http.post("/_roost/reset").status_code == 200
    hook = make_hook(api, receiver)
    bob = new_user(api, name="Bob After Reset")
    subscribe(api, hook["id"], bob)
    post = create_ok(api, bob)
    got = wait_for(lambda: receiver.received(path_of(hook)))
    envelope = json.loads(got[0]["raw"])
    assert envelope["tweet_create_events"][0]["id_str"] == post["id"]


def test_service_brand_signs_with_its_own_header(receiver: Receiver) -> None:
    live = LiveServer(tag="deliveries-brand", rate_limits=False, brand="service").start()
    try:
        creds = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
        receiver.secret = creds["consumer_secret"]
        api = Api(live.base_url, creds)
        hook = make_hook(api, receiver)
        user = new_user(api)
        subscribe(api, hook["id"], user)
        create_ok(api, user)
        [got] = wait_for(lambda: receiver.received(path_of(hook)))
        raw: bytes = got["raw"]
        digest = hmac.new(creds["consumer_secret"].encode(), raw, hashlib.sha256).digest()
        assert got["headers"]["x-service-webhooks-signature"] == "sha256=" + base64.b64encode(digest).decode()
        assert SIGNATURE_HEADER not in got["headers"]
        api.close()
    finally:
        live.stop()
