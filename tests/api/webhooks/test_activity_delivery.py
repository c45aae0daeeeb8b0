"""Activity events reach a real loopback webhook (signed XAA envelopes) and `/2/activity/stream`."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from tests.api.helpers import User, bearer, create_ok, delete_as, import_media, new_user
from tests.api.webhooks.helpers import delivery_rows, make_hook, wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

SUBS = "/2/activity/subscriptions"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    extra = {"webhook_limit": "20", "activity_stream_keepalive_s": "0.5"}
    live = LiveServer(tag="activity_delivery", rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


@pytest.fixture(autouse=True)
def clean(api: Api) -> Iterator[None]:
    yield
    ids = [sub["subscription_id"] for sub in api.get(SUBS, conform=False).json().get("data", [])]
    if ids:
        api.delete(SUBS, params={"ids": ",".join(ids)}, conform=False)
    for hook in api.get("/2/webhooks", conform=False).json()["data"]:
        api.delete(f"/2/webhooks/{hook['id']}")


def subscribe(api: Api, body: dict[str, Any], user: User | None = None) -> dict[str, Any]:
    headers = bearer(user) if user is not None else None
    response = api.post(SUBS, json=body, auth="none" if user else "app", headers=headers, conform=False)
    assert response.status_code == 200, response.text
    sub: dict[str, Any] = response.json()["data"]["subscription"]
    return sub


def envelopes(receiver: Receiver, hook: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(post["raw"]) for post in receiver.received(urlsplit(hook["url"]).path)]


def send_dm(api: Api, sender: User, recipient: User, text: str = "hello there") -> str:
    response = api.post(
        f"/2/dm_conversations/with/{recipient['id']}/messages",
        auth="none",
        headers=bearer(sender),
        json={"text": text},
    )
    assert response.status_code == 201, response.text
    event_id: str = response.json()["data"]["dm_event_id"]
    return event_id


def test_post_events_reach_the_webhook_signed(
    api: Api, receiver: Receiver, credentials: dict[str, Any]
) -> None:
    author = new_user(api)
    hook = make_hook(api, receiver)
    sub = subscribe(
        api,
        {
            "event_type": "post.create",
            "filter": {"user_id": author["id"]},
            "tag": "mine",
            "webhook_id": hook["id"],
        },
    )
    gone = subscribe(
        api, {"event_type": "post.delete", "filter": {"user_id": author["id"]}, "webhook_id": hook["id"]}
    )
    post = create_ok(api, author)
    got = wait_for(lambda: envelopes(receiver, hook))
    assert len(got) == 1
    data = got[0]["data"]
    assert data["event_type"] == "post.create" and data["tag"] == "mine"
    assert data["filter"] == {"user_id": author["id"]}
    assert data["payload"]["id"] == post["id"] and data["payload"]["author_id"] == author["id"]
    assert data["payload"]["public_metrics"]["retweet_count_str"] == "0"
    assert data["includes"]["users"][0]["id"] == author["id"]
    assert data["event_uuid"].isdigit()

    raw = receiver.received(urlsplit(hook["url"]).path)[0]
    digest = hmac.new(credentials["consumer_secret"].encode(), raw["raw"], hashlib.sha256).digest()
    assert raw["headers"]["x-twitter-webhooks-signature"] == "sha256=" + base64.b64encode(digest).decode()

    assert delete_as(api, author, post["id"]).status_code == 200
    got = wait_for(lambda: [e for e in envelopes(receiver, hook) if e["data"]["event_type"] == "post.delete"])
    assert got[0]["data"]["payload"] == {"id": post["id"], "author_id": author["id"]}
    assert "tag" not in got[0]["data"]
    rows = delivery_rows(api, hook["id"])
    assert [row["route"] for row in rows] == [
        f"xaa:{sub['subscription_id']}",
        f"xaa:{gone['subscription_id']}",
    ]


def test_mentions_reach_post_mention_create_subscriptions(api: Api, receiver: Receiver) -> None:
    author, mentioned = new_user(api), new_user(api)
    hook = make_hook(api, receiver)
    body = {"event_type": "post.mention.create", "filter": {"user_id": mentioned["id"]}}
    sub = subscribe(api, {**body, "webhook_id": hook["id"]})
    create_ok(api, author, {"text": "no mention here"})
    post = create_ok(api, author, {"text": f"hello @{mentioned['username']}"})
    got = wait_for(lambda: envelopes(receiver, hook))
    assert len(got) == 1
    data = got[0]["data"]
    assert data["event_type"] == "post.mention.create"
    assert data["filter"] == {"user_id": mentioned["id"]}
    assert data["payload"]["id"] == post["id"] and data["payload"]["author_id"] == author["id"]
    rows = api.http.get("/_roost/deliveries", params={"webhook_id": hook["id"]}).json()["data"]
    assert [row["route"] for row in rows] == [f"xaa:{sub['subscription_id']}"]


def test_protected_posts_are_never_delivered(api: Api, receiver: Receiver) -> None:
    author = new_user(api, protected=True)
    hook = make_hook(api, receiver)
    subscribe(
        api, {"event_type": "post.create", "filter": {"user_id": author["id"]}, "webhook_id": hook["id"]}
    )
    create_ok(api, author)
    # A later post that is delivered: once its row exists, the protected post has been processed.
    marker_author = new_user(api)
    subscribe(
        api,
        {"event_type": "post.create", "filter": {"user_id": marker_author["id"]}, "webhook_id": hook["id"]},
    )
    marker = create_ok(api, marker_author)
    rows = wait_for(lambda: delivery_rows(api, hook["id"]))
    assert [row["payload"]["data"]["payload"]["id"] for row in rows] == [marker["id"]]
    assert [e["data"]["payload"]["id"] for e in wait_for(lambda: envelopes(receiver, hook))] == [marker["id"]]


def test_dm_direction_filter(api: Api, receiver: Receiver) -> None:
    alice, bob = new_user(api), new_user(api)
    hook = make_hook(api, receiver)
    subscribe(
        api,
        {
            "event_type": "dm.received",
            "filter": {"user_id": bob["id"], "direction": "inbound"},
            "webhook_id": hook["id"],
        },
        bob,
    )
    subscribe(
        api,
        {
            "event_type": "dm.sent",
            "filter": {"user_id": bob["id"], "direction": "inbound"},
            "webhook_id": hook["id"],
        },
        bob,
    )
    subscribe(
        api, {"event_type": "dm.sent", "filter": {"user_id": alice["id"]}, "webhook_id": hook["id"]}, alice
    )
    event_id = send_dm(api, alice, bob)
    # All the rows of one event are made at once: the two that arrived are all there are.
    got = wait_for(lambda: len(envelopes(receiver, hook)) >= 2 and envelopes(receiver, hook))
    assert len(delivery_rows(api, hook["id"])) == 2
    assert len(got) == 2
    kinds = sorted((e["data"]["event_type"], e["data"]["filter"]["user_id"]) for e in got)
    # bob's dm.sent subscription filters on inbound: a sent message is outbound, so it never matches.
    assert kinds == [("dm.received", bob["id"]), ("dm.sent", alice["id"])]
    received = next(e for e in got if e["data"]["event_type"] == "dm.received")["data"]
    item = received["payload"]["direct_message_events"][0]
    assert item["id"] == event_id and item["type"] == "message_create"
    assert item["message_create"]["sender_id"] == alice["id"]
    assert item["message_create"]["message_data"]["text"] == "hello there"
    assert "participant_ids" not in item
    assert received["payload"]["users"][alice["id"]]["data"]["id"] == alice["id"]


def test_dm_entities_are_the_legacy_ones(api: Api, receiver: Receiver) -> None:
    """`dm.sent` carries the legacy DM event, entities included, as account activity does."""
    alice, bob = new_user(api), new_user(api, name="Bob Example")
    hook = make_hook(api, receiver)
    subscribe(
        api, {"event_type": "dm.sent", "filter": {"user_id": alice["id"]}, "webhook_id": hook["id"]}, alice
    )
    text = f"hi #there @{bob['username']} $ROO https://example.com"
    send_dm(api, alice, bob, text)
    send_dm(api, alice, bob, "no entities here")
    got = wait_for(lambda: len(envelopes(receiver, hook)) >= 2 and envelopes(receiver, hook))
    by_text = {
        data["text"]: data["entities"]
        for data in (
            e["data"]["payload"]["direct_message_events"][0]["message_create"]["message_data"] for e in got
        )
    }
    mention_at = text.index("@")
    url_at = text.index("https://")
    assert by_text[text] == {
        "hashtags": [{"text": "there", "indices": [3, 9]}],
        "symbols": [{"text": "ROO", "indices": [mention_at + len(bob["username"]) + 2, url_at - 1]}],
        "user_mentions": [
            {
                "screen_name": bob["username"],
                "name": "Bob Example",
                "id": int(bob["id"]),
                "id_str": bob["id"],
                "indices": [mention_at, mention_at + 1 + len(bob["username"])],
            }
        ],
        "urls": [
            {
                "url": "https://example.com",
                "expanded_url": "https://example.com",
                "display_url": "example.com",
                "indices": [url_at, len(text)],
            }
        ],
    }
    assert by_text["no entities here"] == {"hashtags": [], "symbols": [], "user_mentions": [], "urls": []}


def test_stream_sees_post_create(api: Api, server: LiveServer) -> None:
    author = new_user(api)
    subscribe(api, {"event_type": "post.create", "filter": {"user_id": author["id"]}, "tag": "stream"})
    headers = api.bearer()
    with (
        httpx.Client(base_url=server.base_url, timeout=10) as client,
        client.stream("GET", "/2/activity/stream", headers=headers) as response,
    ):
        assert response.status_code == 200
        assert "x-rate-limit-limit" in response.headers
        post = create_ok(api, author)
        lines = response.iter_lines()
        envelope = json.loads(next(line for line in lines if line.strip()))
        assert envelope["data"]["event_type"] == "post.create"
        assert envelope["data"]["payload"]["id"] == post["id"]
        assert envelope["data"]["tag"] == "stream"
        # Keep-alives follow while nothing happens (the module sets them to every 0.5 s).
        assert next(lines).strip() == ""


def test_stream_backfill_and_connection_limit(api: Api, server: LiveServer) -> None:
    author = new_user(api)
    subscribe(api, {"event_type": "post.create", "filter": {"user_id": author["id"]}})
    post = create_ok(api, author)
    headers = api.bearer()
    with (
        httpx.Client(base_url=server.base_url, timeout=10) as client,
        client.stream("GET", "/2/activity/stream", params={"backfill_minutes": 2}, headers=headers) as first,
    ):
        assert first.status_code == 200
        lines = first.iter_lines()  # held: a dropped iterator closes the response
        line = next(line for line in lines if line.strip())
        assert json.loads(line)["data"]["payload"]["id"] == post["id"]
        with client.stream("GET", "/2/activity/stream", headers=headers) as second:
            assert second.status_code == 200
            third = client.get("/2/activity/stream", headers=headers)
            assert third.status_code == 429
            assert third.json()["connection_issue"] == "TooManyConnections"
    # Disconnected clients free their slots.
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        ok = wait_for(lambda: _opens(client, headers))
        assert ok
    bad = api.get("/2/activity/stream", params={"backfill_minutes": 6}, conform=False)
    assert bad.status_code == 400
    user_token = api.get("/2/activity/stream", auth="oauth2", conform=False)
    assert user_token.status_code == 403


def _opens(client: httpx.Client, headers: dict[str, str]) -> bool:
    with client.stream("GET", "/2/activity/stream", headers=headers) as response:
        return response.status_code == 200


def test_dm_attachment_is_the_legacy_media_object(api: Api, receiver: Receiver) -> None:
    """`dm.received` with a photo carries the legacy `attachment` ({"type": "media", ...}), as account
    activity does, not the stored media keys."""
    alice, bob = new_user(api), new_user(api)
    media = import_media(api, url="https://pbs.example/photo.jpg")
    hook = make_hook(api, receiver)
    subscribe(
        api, {"event_type": "dm.received", "filter": {"user_id": bob["id"]}, "webhook_id": hook["id"]}, bob
    )
    response = api.post(
        f"/2/dm_conversations/with/{bob['id']}/messages",
        auth="none",
        headers=bearer(alice),
        json={"text": "a photo", "attachments": [{"media_id": media["id"]}]},
    )
    assert response.status_code == 201, response.text
    got = wait_for(lambda: envelopes(receiver, hook))
    message = got[0]["data"]["payload"]["direct_message_events"][0]["message_create"]["message_data"]
    assert message["attachment"] == {
        "type": "media",
        "media": {
            "id": int(media["id"]),
            "id_str": media["id"],
            "media_url": "http://pbs.example/photo.jpg",
            "media_url_https": "https://pbs.example/photo.jpg",
            "type": "photo",
        },
    }
