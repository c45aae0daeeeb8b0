"""Account-activity events end to end: real writes through the API, signed deliveries to a real
loopback receiver, v1.1 payloads checked on arrival."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from tests.api.helpers import User, bearer, create_ok, new_user
from tests.api.webhooks.helpers import Hook, of
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

V1_TIME = re.compile(r"^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2} \+0000 \d{4}$")
V1_USER_KEYS = {
    "id",
    "id_str",
    "name",
    "screen_name",
    "location",
    "url",
    "description",
    "protected",
    "verified",
    "followers_count",
    "friends_count",
    "listed_count",
    "favourites_count",
    "statuses_count",
    "created_at",
    "profile_image_url_https",
    "default_profile",
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    extra = {"webhook_limit": "20", "subscription_limit": "100"}
    live = LiveServer(tag="aaa-events", rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


def check_v1_user(user: dict[str, Any], expected: User) -> None:
    assert set(user) >= V1_USER_KEYS
    assert user["id"] == int(expected["id"]) and user["id_str"] == expected["id"]
    assert user["screen_name"] == expected["username"]
    assert V1_TIME.match(user["created_at"])


def test_post_by_a_subscribed_user(api: Api, receiver: Receiver) -> None:
    hook = Hook(api, receiver)
    alice = new_user(api, name="Alice Example", description="writes #tests")
    hook.subscribe(alice)
    post = create_ok(api, alice, text="first post #roost https://example.com")
    [envelope] = hook.wait(of(alice, "tweet_create_events"))
    assert list(envelope) == ["for_user_id", "tweet_create_events"]
    [status] = envelope["tweet_create_events"]
    assert status["id_str"] == post["id"] and status["text"] == post["text"]
    assert V1_TIME.match(status["created_at"]) and status["timestamp_ms"].isdigit()
    assert status["truncated"] is False and status["filter_level"] == "low"
    assert status["entities"]["hashtags"] == [{"text": "roost", "indices": [11, 17]}]
    assert status["entities"]["urls"][0]["expanded_url"] == "https://example.com"
    check_v1_user(status["user"], alice)
    assert status["user"]["name"] == "Alice Example" and status["user"]["statuses_count"] == 1


def test_mention_carries_user_has_blocked(api: Api, receiver: Receiver) -> None:
    hook = Hook(api, receiver)
    author, friend, blocker = new_user(api), new_user(api), new_user(api)
    hook.subscribe(friend)
    hook.subscribe(blocker)
    blocked = api.http.post(
        "/_roost/blocks", json={"source_user_id": blocker["id"], "target_user_id": author["id"]}
    )
    assert blocked.status_code == 201, blocked.text
    assert blocked.json() == {"blocking": True, "created": True}
    [block] = hook.wait(of(blocker, "block_events"))
    [item] = block["block_events"]
    assert item["type"] == "block" and item["source"]["id_str"] == blocker["id"]
    check_v1_user(item["target"], author)

    post = create_ok(api, author, text=f"hello @{friend['username']} and @{blocker['username']}")
    [to_friend] = hook.wait(of(friend, "tweet_create_events"))
    [to_blocker] = hook.wait(of(blocker, "tweet_create_events"))
    assert list(to_friend) == ["for_user_id", "user_has_blocked", "tweet_create_events"]
    assert to_friend["user_has_blocked"] == "false"
    assert to_blocker["user_has_blocked"] == "true"
    [status] = to_friend["tweet_create_events"]
    assert status["id_str"] == post["id"]
    assert [m["id_str"] for m in status["entities"]["user_mentions"]] == [friend["id"], blocker["id"]]
    # The author is not subscribed: nothing for them.
    assert not [e for e in hook.envelopes() if e.get("for_user_id") == author["id"]]

    unblocked = api.http.delete(f"/_roost/blocks/{blocker['id']}/{author['id']}")
    assert unblocked.status_code == 200, unblocked.text
    assert unblocked.json() == {"blocking": False, "removed": True}
    [unblock] = hook.wait(
        lambda e: of(blocker, "block_events")(e) and e["block_events"][0]["type"] == "unblock"
    )
    assert unblock["block_events"][0]["target"]["id_str"] == author["id"]


def test_direct_messages_reach_dm_level_subscriptions_only(api: Api, receiver: Receiver) -> None:
    hook = Hook(api, receiver)
    sender, recipient, reader_only = new_user(api, name="Sender"), new_user(api), new_user(api)
    hook.subscribe(sender)
    hook.subscribe(recipient)
    hook.subscribe(reader_only, access_level="read-write")
    response = api.post(
        f"/2/dm_conversations/with/{recipient['id']}/messages",
        auth="none",
        headers=bearer(sender),
        json={"text": "hi #there"},
    )
    assert response.status_code == 201, response.text
    event_id = response.json()["data"]["dm_event_id"]
    for user in (sender, recipient):
        [envelope] = hook.wait(of(user, "direct_message_events"))
        [event] = envelope["direct_message_events"]
        assert event["type"] == "message_create" and event["id"] == event_id
        assert event["created_timestamp"].isdigit()
        create = event["message_create"]
        assert create["target"] == {"recipient_id": recipient["id"]}
        assert create["sender_id"] == sender["id"]
        assert create["message_data"]["text"] == "hi #there"
        assert create["message_data"]["entities"]["hashtags"] == [{"text": "there", "indices": [3, 9]}]
        assert set(envelope["users"]) == {sender["id"], recipient["id"]}
        assert envelope["users"][sender["id"]]["name"] == "Sender"
        assert envelope["users"][sender["id"]]["screen_name"] == sender["username"]
    # A DM with the read-write subscriber: not delivered to them (their subscription lacks DM access).
    response = api.post(
        f"/2/dm_conversations/with/{reader_only['id']}/messages",
        auth="none",
        headers=bearer(sender),
        json={"text": "you will not see this on the webhook"},
    )
    assert response.status_code == 201, response.text
    # The sender's copy of that message was made with any copy for the reader: none was.
    hook.wait(of(sender, "direct_message_events"), count=2)
    assert hook.events_for(reader_only) == []
    assert not [e for e in hook.envelopes() if e.get("for_user_id") == reader_only["id"]]


def test_like_reaches_liker_and_author(api: Api, receiver: Receiver) -> None:
    hook = Hook(api, receiver)
    author, liker = new_user(api), new_user(api, name="Liker")
    hook.subscribe(author)
    hook.subscribe(liker)
    post = create_ok(api, author)
    response = api.post(
        f"/2/users/{liker['id']}/likes",
        auth="none",
        headers=bearer(liker),
        json={"tweet_id": post["id"]},
        conform=False,
    )
    assert response.status_code == 200, response.text
    [to_author] = hook.wait(of(author, "favorite_events"))
    [to_liker] = hook.wait(of(liker, "favorite_events"))
    [favorite] = to_author["favorite_events"]
    assert re.fullmatch(r"[0-9a-f]{32}", favorite["id"])
    assert V1_TIME.match(favorite["created_at"]) and isinstance(favorite["timestamp_ms"], int)
    assert favorite["favorited_status"]["id_str"] == post["id"]
    check_v1_user(favorite["favorited_status"]["user"], author)
    check_v1_user(favorite["user"], liker)
    assert to_liker["favorite_events"] == [favorite]
    unliked = api.delete(
        f"/2/users/{liker['id']}/likes/{post['id']}", auth="none", headers=bearer(liker), conform=False
    )
    assert unliked.status_code == 200, unliked.text
    # A later write that is delivered: once its row is there, the unlike has been processed.
    marker = create_ok(api, liker)
    hook.wait(
        lambda e: (
            of(liker, "tweet_create_events")(e) and e["tweet_create_events"][0]["id_str"] == marker["id"]
        )
    )
    assert hook.events_for(author) == ["tweet_create_events", "favorite_events"]  # no unfavorite event
    assert hook.events_for(liker) == ["favorite_events", "tweet_create_events"]
    assert len([e for e in hook.envelopes() if "favorite_events" in e]) == 2


def test_follow_and_unfollow(api: Api, receiver: Receiver) -> None:
    hook = Hook(api, receiver)
    source, target = new_user(api), new_user(api)
    hook.subscribe(source)
    hook.subscribe(target)
    response = api.post(
        f"/2/users/{source['id']}/following",
        auth="none",
        headers=bearer(source),
        json={"target_user_id": target["id"]},
        conform=False,
    )
    assert response.status_code == 200, response.text
    for user in (source, target):
        [envelope] = hook.wait(of(user, "follow_events"))
        [item] = envelope["follow_events"]
        assert item["type"] == "follow" and item["created_timestamp"].isdigit()
        check_v1_user(item["source"], source)
        check_v1_user(item["target"], target)
    response = api.delete(
        f"/2/users/{source['id']}/following/{target['id']}",
        auth="none",
        headers=bearer(source),
        conform=False,
    )
    assert response.status_code == 200, response.text
    # Unfollows are "by user or of user" (the v2 introduction): both ends are told.
    for user in (source, target):
        [envelope] = hook.wait(
            lambda e, user=user: of(user, "follow_events")(e) and e["follow_events"][0]["type"] == "unfollow"
        )
        check_v1_user(envelope["follow_events"][0]["target"], target)
    assert hook.events_for(target) == ["follow_events", "follow_events"]


def test_mute_and_unmute(api: Api, receiver: Receiver) -> None:
    hook = Hook(api, receiver)
    source, target = new_user(api), new_user(api)
    hook.subscribe(source)
    hook.subscribe(target)
    response = api.post(
        f"/2/users/{source['id']}/muting",
        auth="none",
        headers=bearer(source),
        json={"target_user_id": target["id"]},
        conform=False,
    )
    assert response.status_code == 200, response.text
    response = api.delete(
        f"/2/users/{source['id']}/muting/{target['id']}", auth="none", headers=bearer(source), conform=False
    )
    assert response.status_code == 200, response.text
    # Mutes and unmutes are "by user or of user" (the v2 introduction): the target is told too.
    for user in (source, target):
        found = hook.wait(of(user, "mute_events"), count=2)
        # Deliveries are concurrent: the two may arrive in either order.
        by_type = {e["mute_events"][0]["type"]: e["mute_events"][0] for e in found}
        assert sorted(by_type) == ["mute", "unmute"]
        check_v1_user(by_type["mute"]["target"], target)
        check_v1_user(by_type["unmute"]["source"], source)


def test_read_receipts_and_typing_reach_the_other_participant(api: Api, receiver: Receiver) -> None:
    hook = Hook(api, receiver)
    sender, recipient = new_user(api), new_user(api)
    hook.subscribe(sender)
    hook.subscribe(recipient)
    response = api.post(
        f"/2/dm_conversations/with/{recipient['id']}/messages",
        auth="none",
        headers=bearer(sender),
        json={"text": "did you see this?"},
    )
    assert response.status_code == 201, response.text
    message = response.json()["data"]
    conversation = message["dm_conversation_id"]
    read = api.http.post(
        f"/_roost/dm_conversations/{conversation}/read",
        json={"user_id": recipient["id"], "last_read_event_id": message["dm_event_id"]},
    )
    assert read.status_code == 200, read.text
    typing_path = f"/_roost/dm_conversations/{conversation}/typing"
    typing = api.http.post(typing_path, json={"user_id": recipient["id"]})
    assert typing.status_code == 200, typing.text
    [receipt] = hook.wait(of(sender, "direct_message_mark_read_events"))
    [item] = receipt["direct_message_mark_read_events"]
    assert item["sender_id"] == recipient["id"] and item["target"] == {"recipient_id": sender["id"]}
    assert item["last_read_event_id"] == message["dm_event_id"] and item["created_timestamp"].isdigit()
    [indicator] = hook.wait(of(sender, "direct_message_indicate_typing_events"))
    assert indicator["direct_message_indicate_typing_events"][0]["sender_id"] == recipient["id"]
    # The reader is not told about their own receipt or typing: their rows for those events would have
    # been made with the sender's, which are there; they have the message only.
    assert hook.events_for(recipient) == ["direct_message_events"]
    to_recipient = [e for e in hook.envelopes() if e.get("for_user_id") == recipient["id"]]
    assert not [e for e in to_recipient if "direct_message_mark_read_events" in e]
    assert not [e for e in to_recipient if "direct_message_indicate_typing_events" in e]
    outsider = new_user(api)
    refused = api.http.post(typing_path, json={"user_id": outsider["id"]})
    assert refused.status_code == 403
    missing = api.http.post("/_roost/dm_conversations/1-2/typing", json={"user_id": outsider["id"]})
    assert missing.status_code == 404
