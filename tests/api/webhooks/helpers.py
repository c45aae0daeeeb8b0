"""Helpers shared by the webhook test modules."""

from __future__ import annotations

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
