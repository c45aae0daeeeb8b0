"""Account-activity envelopes held to reference shapes written from the platform's samples (the AAA
introduction's payload examples, the enterprise data dictionary's v1.1 Tweet and User), through the
real server: writes through the API, signed deliveries to a loopback receiver. A key dropped, renamed,
added or retyped fails with its path. (The `user_event` of a revocation: tests/unit/test_aaa.py.)"""

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
from tests.support.shapes import DIGITS, Either, MapOf, Opt, Text, assert_shape

# ---- reference shapes (from the samples) --------------------------------------------------------

V1_TIME = Text(r"[A-Z][a-z]{2} [A-Z][a-z]{2} [0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} \+0000 [0-9]{4}")
TCO = Text(r"https://t\.co/[A-Za-z0-9]{10}")
NULLABLE_STR = Either(str, None)
INDICES = [int]

USER = {  # the data dictionary's User object
    "id": int,
    "id_str": DIGITS,
    "name": str,
    "screen_name": str,
    "location": NULLABLE_STR,
    "url": NULLABLE_STR,
    "description": NULLABLE_STR,
    "translator_type": str,
    "protected": bool,
    "verified": bool,
    "followers_count": int,
    "friends_count": int,
    "listed_count": int,
    "favourites_count": int,
    "statuses_count": int,
    "created_at": V1_TIME,
    "utc_offset": None,
    "time_zone": None,
    "geo_enabled": bool,
    "lang": NULLABLE_STR,
    "contributors_enabled": bool,
    "is_translator": bool,
    "profile_background_color": str,
    "profile_background_image_url": str,
    "profile_background_image_url_https": str,
    "profile_background_tile": bool,
    "profile_link_color": str,
    "profile_sidebar_border_color": str,
    "profile_sidebar_fill_color": str,
    "profile_text_color": str,
    "profile_use_background_image": bool,
    "profile_image_url": str,
    "profile_image_url_https": str,
    "profile_banner_url": Opt(str),
    "default_profile": bool,
    "default_profile_image": bool,
    "following": None,
    "follow_request_sent": None,
    "notifications": None,
    "withheld_in_countries": Opt([str]),
}
URL_ENTITY = {"url": TCO, "expanded_url": str, "display_url": str, "indices": INDICES}
ENTITIES = {
    "hashtags": [{"text": str, "indices": INDICES}],
    "urls": [URL_ENTITY],
    "user_mentions": [{"screen_name": str, "name": str, "id": int, "id_str": DIGITS, "indices": INDICES}],
    "symbols": [{"text": str, "indices": INDICES}],
}
PERMALINK = {"url": TCO, "expanded": Text(r"https://twitter\.com/\w+/status/[0-9]+"), "display": str}


def tweet(nested: Any) -> dict[str, Any]:
    """The v1.1 Tweet (data dictionary and the long-form AAA sample); `nested`: quoted or reposted."""
    return {
        "created_at": V1_TIME,
        "id": int,
        "id_str": DIGITS,
        "text": str,
        "display_text_range": Opt(INDICES),  # truncated text only
        "source": Text(r"<a href=.*</a>"),
        "truncated": bool,
        "in_reply_to_status_id": Either(int, None),
        "in_reply_to_status_id_str": Either(DIGITS, None),
        "in_reply_to_user_id": Either(int, None),
        "in_reply_to_user_id_str": Either(DIGITS, None),
        "in_reply_to_screen_name": NULLABLE_STR,
        "user": USER,
        "geo": None,
        "coordinates": None,
        "place": None,
        "contributors": None,
        "retweeted_status": Opt(nested),
        "quoted_status_id": Opt(int),
        "quoted_status_id_str": Opt(DIGITS),
        "quoted_status": Opt(nested),
        "quoted_status_permalink": Opt(PERMALINK),
        "is_quote_status": bool,
        "extended_tweet": Opt({"full_text": str, "display_text_range": INDICES, "entities": ENTITIES}),
        "quote_count": int,
        "reply_count": int,
        "retweet_count": int,
        "favorite_count": int,
        "entities": ENTITIES,
        "favorited": bool,
        "retweeted": bool,
        "possibly_sensitive": Opt(bool),
        "filter_level": "low",
        "lang": NULLABLE_STR,
        "timestamp_ms": DIGITS,
        "edit_history": Opt({"initial_tweet_id": DIGITS, "edit_tweet_ids": [DIGITS]}),
        "edit_controls": Opt({"edits_remaining": int, "is_edit_eligible": bool, "editable_until_ms": int}),
        "editable": Opt(bool),
    }


TWEET = tweet(tweet(tweet(dict)))  # a repost of a quote nests two deep; deeper is never rendered
DM_USER = {  # the DM samples' `users` entries, exactly
    "id": DIGITS,
    "created_timestamp": DIGITS,
    "name": str,
    "screen_name": str,
    "location": Opt(str),
    "description": Opt(str),
    "url": Opt(str),
    "protected": bool,
    "verified": bool,
    "followers_count": int,
    "friends_count": int,
    "statuses_count": int,
    "profile_image_url_https": str,
}
USERS = MapOf(DIGITS, DM_USER)
TWEET_CREATE = {
    "for_user_id": DIGITS,
    "user_has_blocked": Opt(Either("true", "false")),
    "tweet_create_events": [TWEET],
}
FAVORITE = {
    "for_user_id": DIGITS,
    "favorite_events": [
        {
            "id": Text(r"[0-9a-f]{32}"),
            "created_at": V1_TIME,
            "timestamp_ms": int,
            "favorited_status": TWEET,
            "user": USER,
        }
    ],
}


def edge(key: str, *types: str) -> dict[str, Any]:
    item = {"type": Either(*types), "created_timestamp": DIGITS, "target": USER, "source": USER}
    return {"for_user_id": DIGITS, key: [item]}


DM_EVENT = {
    "type": "message_create",
    "id": DIGITS,
    "created_timestamp": DIGITS,
    "message_create": {
        "target": {"recipient_id": DIGITS},
        "sender_id": DIGITS,
        "source_app_id": DIGITS,
        "message_data": {"text": str, "entities": ENTITIES, "attachment": Opt(dict)},
    },
}
DIRECT_MESSAGE = {
    "for_user_id": DIGITS,
    "direct_message_events": [DM_EVENT],
    "apps": MapOf(DIGITS, {"id": DIGITS, "name": str, "url": str}),
    "users": USERS,
}
SIGNAL = {"created_timestamp": DIGITS, "sender_id": DIGITS, "target": {"recipient_id": DIGITS}}
TYPING = {"for_user_id": DIGITS, "direct_message_indicate_typing_events": [SIGNAL], "users": USERS}
READ = {
    "for_user_id": DIGITS,
    "direct_message_mark_read_events": [{**SIGNAL, "last_read_event_id": DIGITS}],
    "users": USERS,
}
DELETE = {
    "for_user_id": DIGITS,
    "tweet_delete_events": [{"status": {"id": DIGITS, "user_id": DIGITS}, "timestamp_ms": DIGITS}],
}


# ---- the server ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    extra = {"webhook_limit": "20", "subscription_limit": "100"}
    live = LiveServer(tag="aaa-shapes", rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


@pytest.fixture()
def hook(api: Api, receiver: Receiver) -> Hook:
    return Hook(api, receiver)


def one(hook: Hook, user: User, key: str, type_: str | None = None) -> dict[str, Any]:
    """The envelope of `key` delivered for `user` (of that `type` for follow/block/mute events)."""

    def check(envelope: dict[str, Any]) -> bool:
        return of(user, key)(envelope) and (type_ is None or envelope[key][0]["type"] == type_)

    [envelope] = hook.wait(check)
    return envelope


def status_of(hook: Hook, user: User, post_id: str) -> dict[str, Any]:
    [envelope] = hook.wait(
        lambda e: of(user, "tweet_create_events")(e) and e["tweet_create_events"][0]["id_str"] == post_id
    )
    assert_shape(envelope, TWEET_CREATE)
    status: dict[str, Any] = envelope["tweet_create_events"][0]
    return status


def as_user(api: Api, method: str, path: str, user: User, body: dict[str, Any] | None = None) -> None:
    response = api.request(method, path, auth="none", headers=bearer(user), json=body, conform=False)
    assert response.status_code in (200, 201), response.text


# ---- posts --------------------------------------------------------------------------------------


def test_post_and_long_post(api: Api, hook: Hook) -> None:
    author = new_user(api, premium=True, description="shapes")
    hook.subscribe(author)
    short = create_ok(api, author, text="a short post #shapes")
    status = status_of(hook, author, short["id"])
    assert "display_text_range" not in status and "extended_tweet" not in status
    assert status["truncated"] is False and status["entities"]["urls"] == []

    text = "The long post starts here and runs on " + "and on " * 30 + "@nobody_here #tail"
    long = create_ok(api, author, text=text)
    status = status_of(hook, author, long["id"])
    # The long-form sample: 115 characters, "…", a space, a t.co link to the post itself (140 in all).
    kept = text[:115].rstrip()
    assert status["truncated"] is True
    assert re.fullmatch(re.escape(kept) + r"\u2026 https://t\.co/[A-Za-z0-9]{10}", status["text"])
    assert status["display_text_range"] == [0, len(status["text"])] == [0, len(kept) + 25]
    assert status["entities"]["urls"] == [
        {
            "url": status["text"][-23:],
            "expanded_url": f"https://twitter.com/i/web/status/{long['id']}",
            "display_url": f"twitter.com/i/web/status/{long['id'][0]}\u2026",
            "indices": [len(kept) + 2, len(kept) + 25],
        }
    ]
    assert status["entities"]["hashtags"] == []
    extended = status["extended_tweet"]
    assert extended["full_text"] == text and extended["display_text_range"] == [0, len(text)]
    assert extended["entities"]["hashtags"] == [{"text": "tail", "indices": [len(text) - 5, len(text)]}]


def test_reply_mention_quote_and_repost(api: Api, hook: Hook) -> None:
    author, friend, quoted, reposter = (new_user(api) for _ in range(4))
    for user in (author, friend, quoted, reposter):
        hook.subscribe(user)
    original = create_ok(api, quoted, text="the quoted post")
    status_of(hook, quoted, original["id"])
    quote = create_ok(
        api,
        author,
        text=f"@{friend['username']} look at this",
        quote_tweet_id=original["id"],
        reply={"in_reply_to_tweet_id": original["id"]},
    )
    to_friend = one(hook, friend, "tweet_create_events")
    assert_shape(to_friend, TWEET_CREATE)
    assert to_friend["user_has_blocked"] == "false"
    status = status_of(hook, quoted, quote["id"])
    assert status["in_reply_to_status_id_str"] == original["id"]
    assert status["in_reply_to_screen_name"] == quoted["username"]
    assert status["is_quote_status"] is True and status["quoted_status"]["id_str"] == original["id"]
    permalink = status["quoted_status_permalink"]
    expanded = f"https://twitter.com/{quoted['username']}/status/{original['id']}"
    assert permalink["expanded"] == expanded
    shown = expanded.removeprefix("https://")
    assert permalink["display"] == shown[: len("twitter.com") + 15] + "\u2026"
    assert permalink["url"] not in status["text"]  # kept out of the text since 2018

    as_user(api, "POST", f"/2/users/{reposter['id']}/retweets", reposter, {"tweet_id": quote["id"]})
    [envelope] = hook.wait(
        lambda e: (
            of(reposter, "tweet_create_events")(e)
            and e["tweet_create_events"][0].get("retweeted_status", {}).get("id_str") == quote["id"]
        )
    )
    assert_shape(envelope, TWEET_CREATE)
    [repost] = envelope["tweet_create_events"]
    # The "Retweeted Quote Tweet" sample: the quoted post at the top and inside the reposted quote.
    assert repost["text"].startswith(f"RT @{author['username']}: ")
    assert repost["is_quote_status"] is True and repost["quoted_status_id_str"] == original["id"]
    assert repost["quoted_status"]["id_str"] == original["id"]
    assert repost["quoted_status_permalink"] == permalink
    inner = repost["retweeted_status"]
    assert (
        inner["quoted_status"]["id_str"] == original["id"] and inner["quoted_status_permalink"] == permalink
    )
    assert repost["entities"]["user_mentions"][0]["indices"] == [3, 4 + len(author["username"])]


def test_like(api: Api, hook: Hook) -> None:
    author, liker = new_user(api), new_user(api)
    hook.subscribe(author)
    post = create_ok(api, author)
    as_user(api, "POST", f"/2/users/{liker['id']}/likes", liker, {"tweet_id": post["id"]})
    assert_shape(one(hook, author, "favorite_events"), FAVORITE)


def test_delete(api: Api, hook: Hook) -> None:
    author = new_user(api)
    hook.subscribe(author)
    post = create_ok(api, author)
    as_user(api, "DELETE", f"/2/tweets/{post['id']}", author)
    envelope = one(hook, author, "tweet_delete_events")
    assert_shape(envelope, DELETE)
    assert envelope["tweet_delete_events"][0]["status"] == {"id": post["id"], "user_id": author["id"]}


# ---- follows, blocks, mutes: both ends ----------------------------------------------------------


def test_follow_block_and_mute_reach_both_ends(api: Api, hook: Hook) -> None:
    source, target = new_user(api), new_user(api)
    hook.subscribe(source)
    hook.subscribe(target)
    as_user(api, "POST", f"/2/users/{source['id']}/following", source, {"target_user_id": target["id"]})
    as_user(api, "DELETE", f"/2/users/{source['id']}/following/{target['id']}", source)
    as_user(api, "POST", f"/2/users/{source['id']}/muting", source, {"target_user_id": target["id"]})
    as_user(api, "DELETE", f"/2/users/{source['id']}/muting/{target['id']}", source)
    blocked = api.http.post(
        "/_roost/blocks", json={"source_user_id": source["id"], "target_user_id": target["id"]}
    )
    assert blocked.status_code == 201, blocked.text
    unblocked = api.http.delete(f"/_roost/blocks/{source['id']}/{target['id']}")
    assert unblocked.status_code == 200, unblocked.text
    for key, types in (
        ("follow_events", ("follow", "unfollow")),
        ("mute_events", ("mute", "unmute")),
        ("block_events", ("block", "unblock")),
    ):
        for user in (source, target):
            for type_ in types:
                envelope = one(hook, user, key, type_)
                assert_shape(envelope, edge(key, *types))
                [item] = envelope[key]
                assert (item["source"]["id_str"], item["target"]["id_str"]) == (source["id"], target["id"])


# ---- direct messages ----------------------------------------------------------------------------


def app_of(api: Api, hook: Hook) -> str:
    listed = api.get(f"/2/account_activity/webhooks/{hook.id}/subscriptions/all/list", conform=False)
    assert listed.status_code == 200, listed.text
    app_id: str = listed.json()["data"]["application_id"]
    return app_id


def test_direct_message_typing_and_read(api: Api, hook: Hook, credentials: dict[str, Any]) -> None:
    sender = new_user(api, name="Sender", location="Lisbon")
    recipient = new_user(api)
    hook.subscribe(sender)
    hook.subscribe(recipient)
    sent = api.post(
        f"/2/dm_conversations/with/{recipient['id']}/messages",
        auth="none",
        headers=bearer(sender),
        json={"text": "hello #there"},
    )
    assert sent.status_code == 201, sent.text
    message = sent.json()["data"]
    app_id = app_of(api, hook)
    for user in (sender, recipient):
        envelope = one(hook, user, "direct_message_events")
        assert_shape(envelope, DIRECT_MESSAGE)
        assert list(envelope) == ["for_user_id", "direct_message_events", "apps", "users"]
        [event] = envelope["direct_message_events"]
        assert event["id"] == message["dm_event_id"]
        assert event["message_create"]["source_app_id"] == app_id
        assert list(event["message_create"]) == ["target", "sender_id", "source_app_id", "message_data"]
        [app] = envelope["apps"].values()
        assert app["id"] == app_id and app["url"] == f"https://x.com/{credentials['username']}"
        assert set(envelope["users"]) == {sender["id"], recipient["id"]}
        assert envelope["users"][sender["id"]]["location"] == "Lisbon"

    conversation = message["dm_conversation_id"]
    read = api.http.post(
        f"/_roost/dm_conversations/{conversation}/read",
        json={"user_id": recipient["id"], "last_read_event_id": message["dm_event_id"]},
    )
    assert read.status_code == 200, read.text
    typing = api.http.post(
        f"/_roost/dm_conversations/{conversation}/typing", json={"user_id": recipient["id"]}
    )
    assert typing.status_code == 200, typing.text
    receipt = one(hook, sender, "direct_message_mark_read_events")
    assert_shape(receipt, READ)
    assert receipt["direct_message_mark_read_events"][0]["last_read_event_id"] == message["dm_event_id"]
    assert_shape(one(hook, sender, "direct_message_indicate_typing_events"), TYPING)


USER_EVENT = {
    "user_event": {
        "revoke": {
            "date_time": Text(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\+00:00"),
            "target": {"app_id": DIGITS},
            "source": {"user_id": DIGITS},
        }
    }
}


def subscribed_ids(api: Api, hook: Hook) -> list[str]:
    listed = api.get(f"/2/account_activity/webhooks/{hook.id}/subscriptions/all/list", conform=False)
    assert listed.status_code == 200, listed.text
    return [item["user_id"] for item in listed.json()["data"]["subscriptions"]]


def test_revoking_the_app_sends_user_event_and_ends_the_subscription(
    api: Api, hook: Hook, credentials: dict[str, Any]
) -> None:
    user = new_user(api)
    hook.subscribe(user)
    assert user["id"] in subscribed_ids(api, hook)
    # Revoking the OAuth 1.0a token leaves the OAuth 2.0 one: the app keeps its access.
    path = "/1.1/oauth/invalidate_token"
    headers = api.oauth1("POST", path, token=user["token"], secret=user["secret"])
    assert api.http.post(path, headers=headers).status_code == 200
    assert user["id"] in subscribed_ids(api, hook)
    revoked = api.http.post(
        "/2/oauth2/revoke",
        data={"token": user["oauth2"]},
        auth=(credentials["client_id"], credentials["client_secret"]),
    )
    assert revoked.status_code == 200, revoked.text
    assert user["id"] not in subscribed_ids(api, hook)
    [envelope] = hook.wait(lambda e: "user_event" in e)
    assert_shape(envelope, USER_EVENT)
    assert envelope["user_event"]["revoke"]["source"] == {"user_id": user["id"]}
