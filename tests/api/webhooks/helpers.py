"""Helpers shared by the webhook test modules."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from tests.api.helpers import User, bearer, create_ok, new_user
from tests.support.client import Api
from tests.support.receiver import Receiver


def wait_for(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    """`check()` once it is truthy, or its last (falsy) value after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def delivery_rows(api: Api, webhook_id: str) -> list[dict[str, Any]]:
    """The webhook's delivery rows (`GET /_roost/deliveries`), oldest first.

    One dispatcher turns the event log into rows in log order, and the rows of each event for every
    webhook and user are stored in one transaction with its cursor. So once a row exists for an event,
    every earlier event and that event itself have all their rows: to show that something was not
    delivered, wait for the row of a later event (or of the same event for another user or webhook) and
    then assert the absence on the rows."""
    response = api.http.get("/_roost/deliveries", params={"webhook_id": webhook_id})
    assert response.status_code == 200, response.text
    rows: list[dict[str, Any]] = response.json()["data"]
    return rows


SIGNATURE_HEADER = "x-twitter-webhooks-signature"


class Hook:
    """A webhook on the receiver, with its subscribed users and the envelopes it has received."""

    def __init__(self, api: Api, receiver: Receiver) -> None:
        self.api = api
        self.receiver = receiver
        response = api.post("/2/webhooks", json={"url": receiver.url()}, conform=False)
        assert response.status_code == 200, response.text
        self.id: str = response.json()["data"]["id"]
        self.path = urlsplit(response.json()["data"]["url"]).path

    def subscribe(self, user: User, access_level: str | None = None) -> None:
        """Subscribe with OAuth 1.0a, at the app's level or the given one."""
        token, secret = user["token"], user["secret"]
        if access_level is not None:
            issued = self.api.http.post(
                "/_roost/tokens",
                json={
                    "consumer_key": self.api.creds["consumer_key"],
                    "user_id": user["id"],
                    "access_level": access_level,
                },
            )
            assert issued.status_code == 201, issued.text
            token, secret = issued.json()["access_token"], issued.json()["access_token_secret"]
        path = f"/2/account_activity/webhooks/{self.id}/subscriptions/all"
        headers = self.api.oauth1("POST", path, token=token, secret=secret)
        response = self.api.post(path, auth="none", headers=headers, json={})
        assert response.status_code == 200, response.text

    def envelopes(self) -> list[dict[str, Any]]:
        """Every envelope received so far, each one's signature verified."""
        out = []
        for post in self.receiver.received(self.path):
            digest = hmac.new(self.receiver.secret.encode(), post["raw"], hashlib.sha256).digest()
            expected = "sha256=" + base64.b64encode(digest).decode()
            assert hmac.compare_digest(post["headers"][SIGNATURE_HEADER], expected)
            out.append(json.loads(post["raw"]))
        return out

    def events_for(self, user: User) -> list[str]:
        """The kind of each delivery row made for `user` (its `…_events` key), oldest first. Rows, not
        envelopes: they are made per event in log order, while the POSTs may still be on their way."""
        return [
            key
            for row in delivery_rows(self.api, self.id)
            if row["for_user_id"] == user["id"]
            for key in row["payload"]
            if key.endswith("_events")
        ]

    def wait(
        self, check: Callable[[dict[str, Any]], bool], count: int = 1, timeout: float = 6.0
    ) -> list[Any]:
        deadline = time.monotonic() + timeout
        while True:
            found = [envelope for envelope in self.envelopes() if check(envelope)]
            if len(found) >= count or time.monotonic() > deadline:
                assert len(found) >= count, f"expected {count} matching envelopes, got {self.envelopes()}"
                return found
            time.sleep(0.05)


def of(user: User, key: str) -> Callable[[dict[str, Any]], bool]:
    return lambda envelope: envelope.get("for_user_id") == user["id"] and key in envelope


def make_hook(api: Api, receiver: Receiver) -> dict[str, Any]:
    response = api.post("/2/webhooks", json={"url": receiver.url()}, conform=False)
    assert response.status_code == 200, response.text
    hook: dict[str, Any] = response.json()["data"]
    return hook


def subscribe(api: Api, webhook_id: str, user: User) -> None:
    """An account-activity subscription of `user` (OAuth 2.0 user token) to the webhook."""
    path = f"/2/account_activity/webhooks/{webhook_id}/subscriptions/all"
    response = api.post(path, auth="none", headers=bearer(user), json={})
    assert response.status_code == 200, response.text


def path_of(hook: dict[str, Any]) -> str:
    return urlsplit(hook["url"]).path


def deliver_marker(api: Api, receiver: Receiver) -> dict[str, Any]:
    """Deliver a fresh event (a post) to a fresh webhook on `receiver` and return its row once delivered.

    The marker is logged after everything before the call, so those events have all their rows by now
    (see `delivery_rows`). And each sending round claims every pending row that is due when it starts:
    a row still pending afterwards was not due when the marker was sent. `receiver` should be one the
    test leaves answering normally (not the receiver under test)."""
    hook = make_hook(api, receiver)
    user = new_user(api)
    subscribe(api, hook["id"], user)
    post = create_ok(api, user)
    rows = wait_for(lambda: [row for row in delivery_rows(api, hook["id"]) if row["state"] == "delivered"])
    assert rows, f"the marker post {post['id']} was not delivered: {delivery_rows(api, hook['id'])}"
    [row] = rows
    return row
