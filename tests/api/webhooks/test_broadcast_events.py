"""Broadcast activity events reaching subscriptions' webhooks: `broadcast.start` when a schedule goes
live, `broadcast.chat` for the broadcast's owner, `broadcast.end` when it ends; each held against the
event-payloads page's samples (key for key, type for type) and the broadcast's values."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from tests.api.broadcast_support import SCHEDULED, broadcaster, call, chat, create
from tests.api.helpers import User
from tests.api.webhooks.helpers import make_hook, wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer
from tests.support.shapes import DIGITS, Text, assert_shape, twins

SUBS = "/2/activity/subscriptions"
USER = {"id": DIGITS, "name": str, "username": str, "public_metrics": dict}


def timing(state: str, ended: bool = False) -> dict[str, Any]:
    shape: dict[str, Any] = {
        "user": {"data": dict},
        "broadcast_id": str,
        **twins("event_timestamp_ms"),
        "title": str,
        "broadcast_state": Text(state),
        **twins("created_timestamp_ms", "updated_timestamp_ms"),
    }
    if ended:
        shape.update(twins("duration_ms"))
    shape.update(language=str, thumbnail_url=str, available_for_replay=bool)
    return shape


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="broadcast_events", rate_limits=False, extra={"webhook_limit": "20"})
    live.start()
    yield live
    live.stop()


@pytest.fixture(autouse=True)
def clean_subscriptions(api: Api) -> Iterator[None]:
    yield
    ids = [sub["subscription_id"] for sub in api.get(SUBS, conform=False).json().get("data", [])]
    if ids:
        api.delete(SUBS, params={"ids": ",".join(ids)}, conform=False)


def subscribe(
    api: Api, hook: dict[str, Any], event_type: str, user_id: str, as_user: User | None = None
) -> None:
    body = {
        "event_type": event_type,
        "filter": {"user_id": user_id},
        "tag": event_type,
        "webhook_id": hook["id"],
    }
    if as_user is None:
        response = api.post(SUBS, json=body, conform=False)
    else:
        headers = {"Authorization": f"Bearer {as_user['oauth2']}"}
        response = api.post(SUBS, json=body, auth="none", headers=headers, conform=False)
    assert response.status_code == 200, response.text


def delivered(receiver: Receiver, hook: dict[str, Any], event_type: str) -> dict[str, Any]:
    path = urlsplit(hook["url"]).path

    def found() -> list[dict[str, Any]]:
        bodies = (json.loads(post["raw"]) for post in receiver.received(path))
        return [body for body in bodies if body.get("data", {}).get("event_type") == event_type]

    matching = wait_for(found)
    assert matching, f"no {event_type} delivery"
    got: dict[str, Any] = matching[0]
    return got


def test_broadcast_start_reaches_a_subscription_webhook(api: Api, receiver: Receiver) -> None:
    owner = broadcaster(api)
    hook = make_hook(api, receiver)
    subscribe(api, hook, "broadcast.start", owner["id"])  # a public event: the app's bearer token
    made = create(api, owner, start_in_ms=0, manual_publish=True, title="Going live", locale="en")
    assert call(api, owner, "POST", f"{SCHEDULED}/{made['broadcast_id']}/live").status_code == 200

    got = delivered(receiver, hook, "broadcast.start")
    shape = {
        "event_uuid": DIGITS,
        "filter": {"user_id": DIGITS},
        "event_type": Text(r"broadcast\.start"),
        "tag": str,
        "payload": timing("Running"),
    }
    assert_shape(got, {"data": shape})
    payload = got["data"]["payload"]
    assert got["data"]["filter"] == {"user_id": owner["id"]}
    assert (payload["broadcast_id"], payload["title"], payload["language"]) == (
        made["broadcast_id"],
        "Going live",
        "en",
    )
    assert payload["user"]["data"]["id"] == owner["id"]
    assert "includes" not in got["data"]


def test_chat_and_end_reach_the_owners_subscriptions(api: Api, receiver: Receiver) -> None:
    owner, viewer = broadcaster(api), broadcaster(api)
    hook = make_hook(api, receiver)
    subscribe(api, hook, "broadcast.chat", owner["id"], as_user=owner)  # private: the owner's broadcast.read
    subscribe(api, hook, "broadcast.end", owner["id"])
    made = create(api, owner, start_in_ms=0)
    sent = chat(api, viewer, made["broadcast_id"], "hello host")
    assert sent.status_code == 200, sent.text

    got = delivered(receiver, hook, "broadcast.chat")
    payload = got["data"]["payload"]
    assert payload == {
        "broadcast_id": made["broadcast_id"],
        "message_id": sent.json()["data"]["timestamp"],
        "message": "hello host",
        "author": payload["author"],
    }
    assert payload["author"]["data"]["id"] == viewer["id"]

    assert api.http.post(f"/_roost/broadcasts/{made['broadcast_id']}/end").status_code == 200
    ended = delivered(receiver, hook, "broadcast.end")
    assert_shape(ended["data"]["payload"], timing("Ended", ended=True))
    assert ended["data"]["payload"]["broadcast_id"] == made["broadcast_id"]
