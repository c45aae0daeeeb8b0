"""`filter.keyword` on activity subscriptions: every event with text (posts, direct messages) is
delivered only when its text has the keyword (the seed: "filter by user id, optionally keyword")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from tests.api.helpers import User, bearer, create_ok, new_user
from tests.api.webhooks.helpers import make_hook, wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

SUBS = "/2/activity/subscriptions"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="activity_keyword", rate_limits=False, extra={"webhook_limit": "20"})
    live.start()
    yield live
    live.stop()


def subscribe(api: Api, user: User, body: dict[str, Any]) -> dict[str, Any]:
    response = api.post(SUBS, json=body, auth="none", headers=bearer(user))
    assert response.status_code == 200, response.text
    sub: dict[str, Any] = response.json()["data"]["subscription"]
    return sub


def envelopes(receiver: Receiver, hook: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(post["raw"]) for post in receiver.received(urlsplit(hook["url"]).path)]


def send_dm(api: Api, sender: User, recipient: User, text: str) -> None:
    path = f"/2/dm_conversations/with/{recipient['id']}/messages"
    response = api.post(path, auth="none", headers=bearer(sender), json={"text": text})
    assert response.status_code == 201, response.text


def test_post_events_are_filtered_by_keyword(api: Api, receiver: Receiver) -> None:
    author = new_user(api)
    hook = make_hook(api, receiver)
    body = {"event_type": "post.create", "filter": {"user_id": author["id"], "keyword": "Red Panda"}}
    sub = subscribe(api, author, {**body, "webhook_id": hook["id"]})
    assert sub["filter"] == {"user_id": author["id"], "keyword": "Red Panda"}

    create_ok(api, author, {"text": "a panda in red"})
    create_ok(api, author, {"text": "no animals today"})
    wanted = create_ok(api, author, {"text": "look, a red panda!"})
    got = wait_for(lambda: envelopes(receiver, hook))
    assert [e["data"]["payload"]["id"] for e in got] == [wanted["id"]]
    assert got[0]["data"]["filter"] == {"user_id": author["id"], "keyword": "Red Panda"}


def test_direct_message_events_are_filtered_by_keyword(api: Api, receiver: Receiver) -> None:
    sender, recipient = new_user(api), new_user(api)
    hook = make_hook(api, receiver)
    body = {"event_type": "dm.received", "filter": {"user_id": recipient["id"], "keyword": "invoice"}}
    subscribe(api, recipient, {**body, "webhook_id": hook["id"]})

    send_dm(api, sender, recipient, "hello there")
    send_dm(api, sender, recipient, "your INVOICE is attached")
    got = wait_for(lambda: envelopes(receiver, hook))
    events = [e["data"]["payload"]["direct_message_events"][0] for e in got]
    texts = [event["message_create"]["message_data"]["text"] for event in events]
    assert texts == ["your INVOICE is attached"]
