"""Every activity-event kind roost produces, held against a reference shape written from the
platform's event-payload samples (the activity API's event-payloads page): the envelope, the payload
and `includes`, key for key and type for type."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from tests.api.chat_support import action, one_to_one, participant_keys, post, register_key, send
from tests.api.helpers import User, bearer, create_ok, new_user
from tests.api.webhooks.helpers import make_hook, wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer
from tests.support.shapes import DIGITS, ISO_MS, Opt, Text, assert_shape, twins

SUBS = "/2/activity/subscriptions"

SPAN = {"start": int, "start_str": DIGITS, "end": int, "end_str": DIGITS}
POST_METRICS = twins(
    "retweet_count", "reply_count", "like_count", "quote_count", "bookmark_count", "impression_count"
)
POST = {
    "id": DIGITS,
    "text": str,
    "author_id": DIGITS,
    "conversation_id": DIGITS,
    "created_at": ISO_MS,
    "lang": str,
    "reply_settings": str,
    "display_text_range": [int],
    "paid_partnership": bool,
    "possibly_sensitive": bool,
    "edit_history_tweet_ids": [DIGITS],
    "edit_controls": {
        **twins("edits_remaining"),
        "is_edit_eligible": bool,
        "editable_until": ISO_MS,
    },
    "public_metrics": POST_METRICS,
    "entities": Opt(
        {
            "mentions": Opt([{**SPAN, "username": str, "id": DIGITS}]),
            "hashtags": Opt([{**SPAN, "tag": str}]),
            "cashtags": Opt([{**SPAN, "tag": str}]),
            "urls": Opt([{**SPAN, "url": str, "expanded_url": str, "display_url": str}]),
        }
    ),
    "referenced_tweets": Opt([{"type": str, "id": DIGITS}]),
    "in_reply_to_user_id": Opt(DIGITS),
    "attachments": Opt(dict),
    "note_tweet": Opt(dict),
}
USER = {
    "id": DIGITS,
    "name": str,
    "username": str,
    "created_at": ISO_MS,
    "description": str,
    "url": str,
    "profile_image_url": str,
    "profile_banner_url": str,
    "protected": bool,
    "verified": bool,
    "verified_type": str,
    "is_identity_verified": bool,
    "public_metrics": twins(
        "followers_count", "following_count", "tweet_count", "listed_count", "like_count", "media_count"
    ),
    "entities": Opt(
        {
            "url": Opt({"urls": [{**SPAN, "url": str, "expanded_url": str, "display_url": str}]}),
            "description": Opt(dict),
        }
    ),
    "location": Opt(str),
    "pinned_tweet_id": Opt(DIGITS),
    "most_recent_tweet_id": Opt(DIGITS),
    "affiliation": Opt(dict),
}
WRAPPED_USER = {"data": USER}
LEGACY_ENTITIES = {"hashtags": list, "symbols": list, "user_mentions": list, "urls": list}
MESSAGE_CREATE = {
    "type": "message_create",
    "id": DIGITS,
    "created_timestamp": DIGITS,
    "message_create": {
        "target": {"recipient_id": DIGITS},
        "sender_id": DIGITS,
        "message_data": {"text": str, "entities": LEGACY_ENTITIES},
    },
}
SIGNAL = {"created_timestamp": DIGITS, "sender_id": DIGITS, "target": {"recipient_id": DIGITS}}


def envelope(event_type: str, filter_shape: Any, payload: Any, includes: Any = None) -> dict[str, Any]:
    shape: dict[str, Any] = {
        "event_uuid": DIGITS,
        "filter": filter_shape,
        "event_type": Text(event_type.replace(".", r"\.")),
        "tag": str,
        "payload": payload,
    }
    if includes is not None:
        shape["includes"] = includes
    return {"data": shape}


BY_USER = {"user_id": DIGITS}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="activity_shapes", rate_limits=False, extra={"webhook_limit": "20"})
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


class Watch:
    """One webhook and the subscriptions on it; `event(type)` waits for that kind's envelope."""

    def __init__(self, api: Api, receiver: Receiver) -> None:
        self.api = api
        self.receiver = receiver
        self.hook = make_hook(api, receiver)

    def subscribe(self, event_type: str, filter_: dict[str, str], user: User | None = None) -> None:
        body = {"event_type": event_type, "filter": filter_, "tag": event_type, "webhook_id": self.hook["id"]}
        headers = bearer(user) if user is not None else None
        response = self.api.post(
            SUBS, json=body, auth="none" if user else "app", headers=headers, conform=False
        )
        assert response.status_code == 200, response.text

    def envelopes(self) -> list[dict[str, Any]]:
        posts = self.receiver.received(urlsplit(self.hook["url"]).path)
        # Account activity's envelopes (a revocation's `user_event`) reach the app's webhooks too.
        return [body for body in (json.loads(post["raw"]) for post in posts) if "data" in body]

    def event(self, event_type: str) -> dict[str, Any]:
        found = wait_for(lambda: [e for e in self.envelopes() if e["data"]["event_type"] == event_type])
        got: dict[str, Any] = found[0]
        return got


@pytest.fixture()
def watch(api: Api, receiver: Receiver) -> Watch:
    return Watch(api, receiver)


def test_post_create_mention_and_delete(api: Api, watch: Watch) -> None:
    author, mentioned = new_user(api), new_user(api)
    watch.subscribe("post.create", {"user_id": author["id"]})
    watch.subscribe("post.mention.create", {"user_id": mentioned["id"]})
    watch.subscribe("post.delete", {"user_id": author["id"]})
    post = create_ok(api, author, {"text": f"hey @{mentioned['username']} #shapes https://example.com/a"})

    includes = {"tweets": [POST], "users": [USER]}
    for kind in ("post.create", "post.mention.create"):
        got = watch.event(kind)
        assert_shape(got, envelope(kind, BY_USER, POST, includes))
        data = got["data"]
        assert data["payload"]["id"] == post["id"]
        assert data["payload"]["edit_controls"]["edits_remaining_str"] == "5"
        mention = data["payload"]["entities"]["mentions"][0]
        end = str(len("hey @") + len(mentioned["username"]))
        assert (mention["id"], mention["start_str"], mention["end_str"]) == (mentioned["id"], "4", end)
        assert [t["id"] for t in data["includes"]["tweets"]] == [post["id"]]
        assert [u["id"] for u in data["includes"]["users"]] == [author["id"], mentioned["id"]]
        assert "post_count" not in data["includes"]["users"][0]["public_metrics"]

    response = api.delete(f"/2/tweets/{post['id']}", auth="none", headers=bearer(author), conform=False)
    assert response.status_code == 200, response.text
    got = watch.event("post.delete")
    payload = {"id": DIGITS, "author_id": DIGITS}
    assert_shape(got, envelope("post.delete", BY_USER, payload, {"users": [WRAPPED_USER]}))
    assert got["data"]["payload"] == {"id": post["id"], "author_id": author["id"]}


def test_like_create(api: Api, watch: Watch) -> None:
    liker, author = new_user(api), new_user(api)
    post = create_ok(api, author)
    watch.subscribe("like.create", {"user_id": liker["id"], "direction": "outbound"}, liker)
    response = api.post(
        f"/2/users/{liker['id']}/likes",
        auth="none",
        headers=bearer(liker),
        json={"tweet_id": post["id"]},
        conform=False,
    )
    assert response.status_code == 200, response.text
    got = watch.event("like.create")
    payload = {
        "id": Text("[0-9a-f]{32}"),
        "created_at": ISO_MS,
        "timestamp_ms": DIGITS,
        "liked_tweet_id": DIGITS,
        "liked_tweet_author_id": DIGITS,
    }
    by_direction = {"user_id": DIGITS, "direction": Text("outbound")}
    assert_shape(got, envelope("like.create", by_direction, payload, {"users": [USER], "tweets": [POST]}))
    data = got["data"]
    assert (data["payload"]["liked_tweet_id"], data["payload"]["liked_tweet_author_id"]) == (
        post["id"],
        author["id"],
    )
    assert [u["id"] for u in data["includes"]["users"]] == [author["id"]]


def _edge(api: Api, method: str, path: str, actor: User, body: dict[str, Any] | None = None) -> None:
    response = api.request(method, path, auth="none", headers=bearer(actor), json=body, conform=False)
    assert response.status_code == 200, response.text


def test_follow_mute_and_block(api: Api, watch: Watch) -> None:
    source, target = new_user(api), new_user(api)
    for kind in ("follow.follow", "follow.unfollow"):
        watch.subscribe(kind, {"user_id": source["id"]})
    for kind in ("mute.mute", "mute.unmute", "block.block", "block.unblock"):
        watch.subscribe(kind, {"user_id": source["id"]}, source)
    base = f"/2/users/{source['id']}"
    _edge(api, "POST", f"{base}/following", source, {"target_user_id": target["id"]})
    _edge(api, "DELETE", f"{base}/following/{target['id']}", source)
    _edge(api, "POST", f"{base}/muting", source, {"target_user_id": target["id"]})
    _edge(api, "DELETE", f"{base}/muting/{target['id']}", source)
    pair = {"source_user_id": source["id"], "target_user_id": target["id"]}
    assert api.http.post("/_roost/blocks", json=pair).status_code == 201
    assert api.http.delete(f"/_roost/blocks/{source['id']}/{target['id']}").status_code == 200
    payload = {"source": WRAPPED_USER, "target": WRAPPED_USER}
    for kind in (
        "follow.follow",
        "follow.unfollow",
        "mute.mute",
        "mute.unmute",
        "block.block",
        "block.unblock",
    ):
        got = watch.event(kind)
        assert_shape(got, envelope(kind, BY_USER, payload))
        body = got["data"]["payload"]
        assert (body["source"]["data"]["id"], body["target"]["data"]["id"]) == (source["id"], target["id"])


def test_profile_updates(api: Api, watch: Watch) -> None:
    user = new_user(api, name="Before Name", description="before")
    kinds = {
        "profile.update.bio": ("description", "after bio"),
        "profile.update.screenname": ("name", "After Name"),
        "profile.update.handle": ("username", "h" + uuid.uuid4().hex[:12]),
        "profile.update.geo": ("location", "Berlin"),
        "profile.update.url": ("url", "https://example.com/me"),
        "profile.update.profile_picture": ("profile_image_url", "https://pbs.twimg.com/p/new.jpg"),
        "profile.update.banner_picture": ("profile_banner_url", "https://pbs.twimg.com/b/new"),
        "profile.update.verified_badge": ("verified", True),
        "profile.update.affiliate_badge": ("affiliation", {"description": "Roost", "url": "https://r.dev"}),
    }
    for kind in kinds:
        watch.subscribe(kind, {"user_id": user["id"]})
    changes = {field: value for field, value in kinds.values()}
    response = api.http.patch(f"/_roost/users/{user['id']}/profile", json=changes)
    assert response.status_code == 200, response.text
    expected_after = {
        "profile.update.screenname": "After Name",
        "profile.update.handle": changes["username"],
        "profile.update.verified_badge": "blue",
        "profile.update.affiliate_badge": "Roost",
    }
    for kind in kinds:
        got = watch.event(kind)
        assert_shape(got, envelope(kind, BY_USER, {"before": str, "after": str}))
        if kind in expected_after:
            assert got["data"]["payload"]["after"] == expected_after[kind]
    screenname = watch.event("profile.update.screenname")["data"]["payload"]
    assert screenname == {"before": "Before Name", "after": "After Name"}
    assert watch.event("profile.update.verified_badge")["data"]["payload"]["before"] == "none"


def test_direct_messages(api: Api, watch: Watch) -> None:
    sender, recipient = new_user(api), new_user(api)
    watch.subscribe("dm.sent", {"user_id": sender["id"]}, sender)
    watch.subscribe("dm.received", {"user_id": recipient["id"]}, recipient)
    watch.subscribe("dm.read", {"user_id": sender["id"]}, sender)
    watch.subscribe("dm.indicate_typing", {"user_id": sender["id"]}, sender)
    response = api.post(
        f"/2/dm_conversations/with/{recipient['id']}/messages",
        auth="none",
        headers=bearer(sender),
        json={"text": "hello there"},
        conform=False,
    )
    assert response.status_code == 201, response.text
    message = response.json()["data"]
    users = {sender["id"]: WRAPPED_USER, recipient["id"]: WRAPPED_USER}
    for kind in ("dm.sent", "dm.received"):
        got = watch.event(kind)
        payload = {"direct_message_events": [MESSAGE_CREATE], "users": users}
        assert_shape(got, envelope(kind, BY_USER, payload))
        created = got["data"]["payload"]["direct_message_events"][0]["message_create"]
        assert (created["sender_id"], created["target"]["recipient_id"]) == (sender["id"], recipient["id"])

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
    got = watch.event("dm.read")
    payload = {"direct_message_mark_read_events": [{**SIGNAL, "last_read_event_id": DIGITS}], "users": users}
    assert_shape(got, envelope("dm.read", BY_USER, payload))
    item = got["data"]["payload"]["direct_message_mark_read_events"][0]
    assert (item["sender_id"], item["target"]["recipient_id"]) == (recipient["id"], sender["id"])
    got = watch.event("dm.indicate_typing")
    payload = {"direct_message_indicate_typing_events": [SIGNAL], "users": users}
    assert_shape(got, envelope("dm.indicate_typing", BY_USER, payload))


def test_spaces_start_and_end(api: Api, watch: Watch) -> None:
    host = new_user(api)
    watch.subscribe("spaces.start", {"user_id": host["id"]})
    watch.subscribe("spaces.end", {"user_id": host["id"]})
    created = api.http.post("/_roost/spaces", json={"creator_id": host["id"], "title": "Shapes"})
    assert created.status_code == 201, created.text
    space = created.json()
    if space.get("state") != "live":
        assert api.http.post(f"/_roost/spaces/{space['id']}/start").status_code == 200
    assert api.http.post(f"/_roost/spaces/{space['id']}/end").status_code == 200
    for kind in ("spaces.start", "spaces.end"):
        got = watch.event(kind)
        payload = {"user": WRAPPED_USER, "broadcast_id": str, "event_type": Text(kind.replace(".", "_"))}
        assert_shape(got, envelope(kind, BY_USER, payload))
        assert got["data"]["payload"]["broadcast_id"] == space["id"]


def test_oauth_revoke_when_the_user_holds_no_token_of_the_app(
    api: Api, watch: Watch, credentials: dict[str, Any]
) -> None:
    user = new_user(api)
    watch.subscribe("oauth.revoke", {})
    # The user's OAuth 1.0a token goes first: the OAuth 2.0 one still gives the app access.
    path = "/1.1/oauth/invalidate_token"
    headers = api.oauth1("POST", path, token=user["token"], secret=user["secret"])
    assert api.http.post(path, headers=headers).status_code == 200
    revoked = api.http.post(
        "/2/oauth2/revoke",
        data={"token": user["oauth2"]},
        auth=(credentials["client_id"], credentials["client_secret"]),
    )
    assert revoked.status_code == 200, revoked.text
    got = watch.event("oauth.revoke")
    payload = {
        "date_time": Text(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\+00:00"),
        "user_id": DIGITS,
        "app_id": DIGITS,
    }
    assert_shape(got, envelope("oauth.revoke", {}, payload))
    assert got["data"]["payload"]["user_id"] == user["id"]
    apps = api.http.get("/_roost/usage").json()["data"]["apps"]
    [app] = [app for app in apps if app["consumer_key"] == credentials["consumer_key"]]
    assert got["data"]["payload"]["app_id"] == app["app_id"]
    # Exactly one event: the first revocation left the app its access.
    assert len([e for e in watch.envelopes() if e["data"]["event_type"] == "oauth.revoke"]) == 1


def test_post_repost_create(api: Api, watch: Watch) -> None:
    author, fan = new_user(api), new_user(api)
    source = create_ok(api, author)
    watch.subscribe("post.repost.create", {"user_id": fan["id"]})
    response = api.post(
        f"/2/users/{fan['id']}/retweets",
        auth="none",
        headers=bearer(fan),
        json={"tweet_id": source["id"]},
        conform=False,
    )
    assert response.status_code == 200, response.text
    got = watch.event("post.repost.create")
    assert_shape(got, envelope("post.repost.create", BY_USER, POST, {"tweets": [POST], "users": [USER]}))
    data = got["data"]
    assert data["payload"]["referenced_tweets"] == [{"type": "retweeted", "id": source["id"]}]
    # The repost, then the reposted post; the reposting user.
    assert [t["id"] for t in data["includes"]["tweets"]][1:] == [source["id"]]
    assert [u["id"] for u in data["includes"]["users"]] == [fan["id"]]


def test_news_new(api: Api, watch: Watch) -> None:
    keyword = "kw" + uuid.uuid4().hex[:8]
    watch.subscribe("news.new", {"keyword": keyword})
    story = {"name": f"A story of {keyword}", "summary": "Told in full.", "category": "Science"}
    assert api.http.post("/_roost/news", json=story).status_code == 201
    got = watch.event("news.new")
    contexts = {
        "entities": {name: [str] for name in ("events", "organizations", "people", "places", "products")},
        "topics": [str],
        "finance": {"tickers": [str]},
        "sports": {"teams": [str]},
    }
    payload = {
        "id": DIGITS,
        "name": str,
        "category": str,
        "hook": str,
        "summary": str,
        "disclaimer": str,
        "updated_at": ISO_MS,
        "contexts": contexts,
        "cluster_posts_results": [{"post_id": DIGITS}],
    }
    assert_shape(got, envelope("news.new", {"keyword": Text(keyword)}, payload))


# Encrypted chat: the samples' payload (conversation identity and the encoded crypto material).
CHAT = {
    "conversation_token": Opt(str),
    "id": str,
    "created_at_msec": DIGITS,
    "sender_id": DIGITS,
    "conversation_id": Text(r"[0-9]{1,19}:[0-9]{1,19}|g[0-9]{1,19}"),
    "conversation_key_version": DIGITS,
    "encoded_event": Text(r"[A-Za-z0-9+/=]+"),
    "conversation_key_change_event": Text(r"[A-Za-z0-9+/=]+"),
    "message_event_signature": {
        "public_key_version": DIGITS,
        "signature": str,
        "signature_version": DIGITS,
        "signing_public_key": Opt(str),
    },
}


def test_chat_sent_received_and_conversation_join(api: Api, watch: Watch) -> None:
    sender, recipient, joiner = new_user(api), new_user(api), new_user(api)
    watch.subscribe("chat.sent", {"user_id": sender["id"], "direction": "outbound"}, sender)
    watch.subscribe("chat.received", {"user_id": recipient["id"]}, recipient)
    watch.subscribe("chat.conversation_join", {"user_id": joiner["id"]}, joiner)
    assert register_key(api, sender, "1").status_code == 200
    conversation = one_to_one(api, sender, recipient)
    response = send(api, sender, conversation, conversation_token="eyJhbGciOiJIUzI1NiJ9.e30.c2ln")
    assert response.status_code == 201, response.text
    for kind in ("chat.sent", "chat.received"):
        got = watch.event(kind)
        filter_shape = {"user_id": DIGITS, "direction": Text("outbound")} if kind == "chat.sent" else BY_USER
        assert_shape(got, envelope(kind, filter_shape, CHAT))
        payload = got["data"]["payload"]
        assert payload["encoded_event"] == response.json()["data"]["encoded_message_event"]
        assert payload["sender_id"] == sender["id"]
        assert payload["conversation_id"] == conversation.replace("-", ":")
        # The signing key the client left out, from the sender's registered key of that version.
        assert payload["message_event_signature"]["signing_public_key"]

    group = post(api, sender, "/2/chat/conversations/group/initialize").json()["data"]["conversation_id"]
    body = {
        "conversation_id": group,
        "conversation_key_version": "1",
        "conversation_participant_keys": participant_keys(sender, joiner),
        "group_members": [joiner["id"]],
        "action_signatures": [action(4), action(3)],
    }
    assert post(api, sender, "/2/chat/conversations/group", body).status_code == 201
    got = watch.event("chat.conversation_join")
    assert_shape(got, envelope("chat.conversation_join", BY_USER, {**CHAT, "conversation_token": Opt(str)}))
    assert (got["data"]["payload"]["conversation_id"], got["data"]["payload"]["sender_id"]) == (
        group,
        sender["id"],
    )
