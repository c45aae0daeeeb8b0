"""Helpers shared by the webhook test modules."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from tests.api.helpers import User, bearer
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
