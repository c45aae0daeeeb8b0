"""Account-activity fan-out from hand-built event rows, against real services on a fresh database
(SQLite, or PostgreSQL with ROOST_TEST_DATABASE_URL)."""

from __future__ import annotations

import asyncio
import itertools
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.server import fresh_database_url

from roost.config import Settings
from roost.core import jsonio
from roost.domain.posts import PostService
from roost.domain.webhooks import DM_LEVEL
from roost.events.aaa import AccountActivity, aaa_outgoing
from roost.events.outgoing import Outgoing
from roost.storage import dms as dm_rows
from roost.storage import social as social_rows
from roost.storage import webhooks as hook_rows
from roost.storage.aaa import AaaStore
from roost.storage.db import open_database
from roost.storage.migrate import upgrade
from roost.wiring import assemble

V1_TIME = re.compile(r"^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2} \+0000 \d{4}$")
_positions = itertools.count(1)


class Harness:
    """A real server's stores on their own database, driven from synchronous tests on one event loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        url = fresh_database_url("aaa-unit")
        upgrade(url)
        db = self.run(open_database(url))
        server = assemble(Settings(db_url=url, demo=False), db)
        self.services = server.stores
        self.settings = server.settings
        self.accounts = server.domain.accounts
        self.app = self.run(self._app())

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    def close(self) -> None:
        self.run(self.services.db.close())
        self.loop.close()

    async def _app(self) -> dict[str, Any]:
        async with self.services.db.transaction() as tx:
            return await self.accounts.create_app_in(
                tx, name=f"app-{uuid.uuid4().hex[:6]}", owner_user_id=None
            )

    def user(self, **fields: Any) -> dict[str, Any]:
        async def make() -> dict[str, Any]:
            async with self.services.db.transaction() as tx:
                return await self.accounts.create_user_in(tx, username=f"u_{uuid.uuid4().hex[:12]}", **fields)

        return dict(self.run(make()))

    def hook(self, valid: bool = True) -> int:
        hook_id = self.services.ids.next_id()
        row = {
            "id": hook_id,
            "app_id": self.app["id"],
            "project_id": self.app["project_id"],
            "url": f"http://127.0.0.1:9/{hook_id}",
            "valid": int(valid),
            "created_at": self.services.clock.now_ms(),
            "validated_at": None,
            "crc_attempted_at": None,
        }

        async def make() -> None:
            async with self.services.db.transaction() as tx:
                await hook_rows.insert_webhook(tx, row)

        self.run(make())
        return hook_id

    def subscribe(self, hook_id: int, user: dict[str, Any], level: str = DM_LEVEL) -> None:
        row = {
            "webhook_id": hook_id,
            "user_id": user["id"],
            "app_id": self.app["id"],
            "access_level": level,
            "created_at": self.services.clock.now_ms(),
        }

        async def make() -> None:
            async with self.services.db.transaction() as tx:
                await hook_rows.insert_subscription(tx, row)

        self.run(make())

    def post(self, author: dict[str, Any], text: str | None = None, **body: Any) -> dict[str, Any]:
        payload = {"text": text if text is not None else f"post {uuid.uuid4().hex[:8]}", **body}
        service = PostService(self.services.db, self.services.clock, self.services.ids, self.settings.seed)
        return dict(self.run(service.create(author["id"], payload)))

    def edge(self, kind: str, source: dict[str, Any], target: dict[str, Any]) -> None:
        async def make() -> None:
            async with self.services.db.transaction() as tx:
                await social_rows.insert_edge(
                    tx, kind, source["id"], target["id"], self.services.clock.now_ms()
                )

        self.run(make())

    def dm(self, sender: dict[str, Any], recipient: dict[str, Any], text: str) -> dict[str, Any]:
        low, high = sorted((sender["id"], recipient["id"]))
        row = {
            "id": self.services.ids.next_id(),
            "conversation_id": f"{low}-{high}",
            "event_type": "MessageCreate",
            "sender_id": sender["id"],
            "text": text,
            "created_at": self.services.clock.now_ms(),
            "entities": jsonio.dumps({"hashtags": [{"start": 0, "end": 4, "tag": "hey"}]}).decode(),
            "attachments": None,
            "referenced_post_ids": None,
            "participant_ids": None,
        }

        async def make() -> None:
            async with self.services.db.transaction() as tx:
                await dm_rows.insert_event(tx, row)

        self.run(make())
        return row

    def event(self, kind: str, actor_id: int | None, /, **payload: Any) -> dict[str, Any]:
        return {
            "position": next(_positions),
            "id": self.services.ids.next_id(),
            "kind": kind,
            "created_at": 1522082006140,
            "user_id": actor_id,
            "object_id": None,
            "payload": jsonio.dumps({k: str(v) for k, v in payload.items()}).decode(),
        }

    def fan_out(self, kind: str, actor_id: int | None, /, **payload: Any) -> list[Outgoing]:
        """One event on its own, as a replay fans it out (nothing read ahead)."""
        result: list[Outgoing] = self.run(aaa_outgoing(self.services, self.event(kind, actor_id, **payload)))
        return result

    def activity(self) -> AccountActivity:
        stores = self.services
        return AccountActivity(
            AaaStore(stores.db), stores.users, stores.posts, stores.dms, self.settings.seed
        )


@pytest.fixture(scope="module")
def h() -> Iterator[Harness]:
    harness = Harness()
    yield harness
    harness.close()


def bodies(items: list[Outgoing]) -> dict[str, dict[str, Any]]:
    """Envelope per for_user_id (every item of one user carries the same body)."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        envelope = jsonio.loads(item.body)
        assert item.route == f"aaa:{item.for_user_id}"
        assert envelope.get("for_user_id", str(item.for_user_id)) == str(item.for_user_id)
        out[str(item.for_user_id)] = envelope
    return out


def test_post_create_goes_to_the_author_with_a_full_status(h: Harness) -> None:
    hook = h.hook()
    author = h.user(name="Ann Author", description="bio here", location="Lisbon")
    h.subscribe(hook, author)
    post = h.post(author, "hello #roost $ROO https://example.com/page")
    items = h.fan_out("post.create", author["id"], post_id=post["id"], author_id=author["id"])
    assert [(i.webhook_id, i.for_user_id) for i in items] == [(hook, author["id"])]
    envelope = jsonio.loads(items[0].body)
    assert list(envelope) == ["for_user_id", "tweet_create_events"]
    [status] = envelope["tweet_create_events"]
    assert status["id"] == post["id"] and status["id_str"] == str(post["id"])
    assert V1_TIME.match(status["created_at"])
    assert status["timestamp_ms"] == str(post["created_at"])
    assert status["truncated"] is False and "extended_tweet" not in status
    assert status["in_reply_to_status_id"] is None and status["is_quote_status"] is False
    assert status["geo"] is None and status["coordinates"] is None and status["place"] is None
    assert status["filter_level"] == "low" and status["lang"] == "en"
    assert status["source"].startswith("<a href=")
    assert status["favorite_count"] == 0 and status["retweet_count"] == 0
    entities = status["entities"]
    assert entities["hashtags"] == [{"text": "roost", "indices": [6, 12]}]
    assert entities["symbols"] == [{"text": "ROO", "indices": [13, 17]}]
    [url] = entities["urls"]
    assert url["url"].startswith("https://t.co/") and url["expanded_url"] == "https://example.com/page"
    assert url["indices"] == [18, 18 + len(url["url"])]
    assert entities["user_mentions"] == []
    user = status["user"]
    assert user["id"] == author["id"] and user["id_str"] == str(author["id"])
    assert user["name"] == "Ann Author" and user["screen_name"] == author["username"]
    assert user["description"] == "bio here" and user["location"] == "Lisbon"
    assert user["statuses_count"] == 1 and user["friends_count"] == 0 and user["favourites_count"] == 0
    assert V1_TIME.match(user["created_at"]) and user["profile_image_url_https"].startswith("https://")
    for key in ("protected", "verified", "default_profile", "default_profile_image"):
        assert isinstance(user[key], bool)
    assert status["edit_history"] == {
        "initial_tweet_id": str(post["id"]),
        "edit_tweet_ids": [str(post["id"])],
    }


def test_nothing_for_unsubscribed_or_invalid(h: Harness) -> None:
    author = h.user()
    post = h.post(author)
    assert h.fan_out("post.create", author["id"], post_id=post["id"], author_id=author["id"]) == []
    invalid = h.hook(valid=False)
    h.subscribe(invalid, author)
    assert h.fan_out("post.create", author["id"], post_id=post["id"], author_id=author["id"]) == []


def test_long_post_is_truncated_with_extended_tweet(h: Harness) -> None:
    hook = h.hook()
    author = h.user(subscription_type="Premium")
    h.subscribe(hook, author)
    text = ("word " * 40) + "#tail"
    post = h.post(author, text)
    [item] = h.fan_out("post.create", author["id"], post_id=post["id"], author_id=author["id"])
    [status] = jsonio.loads(item.body)["tweet_create_events"]
    assert status["truncated"] is True
    # The samples' form: 115 characters at most (trailing spaces dropped), "…", a space, the self-link.
    kept, link = status["text"].split("\u2026 ")
    assert kept == text[:115].rstrip() and re.fullmatch(r"https://t\.co/[A-Za-z0-9]{10}", link)
    assert status["display_text_range"] == [0, len(status["text"])]
    assert status["entities"]["urls"] == [
        {
            "url": link,
            "expanded_url": f"https://twitter.com/i/web/status/{post['id']}",
            "display_url": f"twitter.com/i/web/status/{str(post['id'])[0]}\u2026",
            "indices": [len(kept) + 2, len(kept) + 25],
        }
    ]
    extended = status["extended_tweet"]
    assert extended["full_text"] == text and extended["display_text_range"] == [0, len(text)]
    assert extended["entities"]["hashtags"] == [{"text": "tail", "indices": [200, 205]}]
    assert extended["entities"]["urls"] == []
    assert status["entities"]["hashtags"] == []


def test_truncation_keeps_urls_whole(h: Harness) -> None:
    hook = h.hook()
    author = h.user(subscription_type="Premium")
    h.subscribe(hook, author)
    text = ("x" * 100) + " https://example.com/a/long/path " + ("y " * 30)
    post = h.post(author, text)
    [item] = h.fan_out("post.create", author["id"], post_id=post["id"], author_id=author["id"])
    [status] = jsonio.loads(item.body)["tweet_create_events"]
    # The stored link (t.co, 23 characters) would straddle the cut at 115: the text stops before it.
    assert status["text"].startswith("x" * 100 + "\u2026 https://t.co/")
    [link] = status["entities"]["urls"]
    assert link["indices"] == [102, 125] and link["expanded_url"].endswith(str(post["id"]))


def test_mentions_replies_and_quotes_reach_the_other_users(h: Harness) -> None:
    hook = h.hook()
    author, fan, hater, replied, quoted = (h.user() for _ in range(5))
    for user in (fan, hater, replied, quoted):
        h.subscribe(hook, user)
    h.edge("block", hater, author)
    parent = h.post(replied)
    original = h.post(quoted)
    post = h.post(
        author,
        f"@{fan['username']} and @{hater['username']} look",
        reply={"in_reply_to_tweet_id": str(parent["id"])},
        quote_tweet_id=str(original["id"]),
    )
    got = bodies(h.fan_out("post.create", author["id"], post_id=post["id"], author_id=author["id"]))
    assert set(got) == {str(fan["id"]), str(hater["id"]), str(replied["id"]), str(quoted["id"])}
    assert list(got[str(fan["id"])]) == ["for_user_id", "user_has_blocked", "tweet_create_events"]
    assert got[str(fan["id"])]["user_has_blocked"] == "false"
    assert got[str(hater["id"])]["user_has_blocked"] == "true"
    assert "user_has_blocked" not in got[str(replied["id"])]
    assert "user_has_blocked" not in got[str(quoted["id"])]
    [status] = got[str(fan["id"])]["tweet_create_events"]
    assert status["in_reply_to_status_id_str"] == str(parent["id"])
    assert status["in_reply_to_user_id"] == replied["id"]
    assert status["in_reply_to_screen_name"] == replied["username"]
    assert status["is_quote_status"] is True and status["quoted_status_id_str"] == str(original["id"])
    assert status["quoted_status"]["id"] == original["id"]
    assert status["quoted_status"]["user"]["screen_name"] == quoted["username"]
    mentions = status["entities"]["user_mentions"]
    assert [(m["id_str"], m["screen_name"], m["indices"][0]) for m in mentions] == [
        (str(fan["id"]), fan["username"], 0),
        (str(hater["id"]), hater["username"], len(fan["username"]) + 6),
    ]


def test_a_batch_read_ahead_fans_out_as_each_event_alone(h: Harness) -> None:
    """The dispatcher reads a batch's new posts, mentions and subscriptions at once (`prepare`): every
    event's deliveries are the ones it makes on its own."""
    hook, other_hook = h.hook(), h.hook()
    author, fan, replied, quoted, shy, idle = (h.user() for _ in range(6))
    locked = h.user(protected=True)
    for user in (author, fan, replied, quoted, locked):
        h.subscribe(hook, user)
    h.subscribe(other_hook, fan)
    h.edge("follow", fan, locked)
    parent, original = h.post(replied), h.post(quoted)
    posts = [
        h.post(author),
        h.post(author, f"hi @{fan['username']} and @{shy['username']}"),
        h.post(idle, "nobody listens", reply={"in_reply_to_tweet_id": str(parent["id"])}),
        h.post(idle, "a quote", quote_tweet_id=str(original["id"])),
        h.post(locked, f"@{fan['username']} @{author['username']} for followers only"),
        h.post(shy),
    ]
    events = [
        h.event("post.create", p["author_id"], post_id=p["id"], author_id=p["author_id"]) for p in posts
    ]
    events.insert(2, h.event("follow.follow", fan["id"], source_id=fan["id"], target_id=author["id"]))
    alone = [h.run(h.activity().outgoing(event)) for event in events]
    activity = h.activity()
    h.run(activity.prepare(events))
    together = [h.run(activity.outgoing(event)) for event in events]
    h.run(activity.prepare(()))
    assert together == alone
    assert sum(map(len, alone)) >= 8  # the batch has deliveries to compare
    assert {item.for_user_id for item in alone[5]} == {locked["id"], fan["id"]}  # protected: followers


def test_a_read_ahead_serves_only_its_batch(h: Harness) -> None:
    first, later = h.hook(), h.hook()
    author = h.user()
    h.subscribe(first, author)
    post = h.post(author)
    event = h.event("post.create", author["id"], post_id=post["id"], author_id=author["id"])
    activity = h.activity()
    h.run(activity.prepare([event]))
    h.subscribe(later, author)
    # The batch's own event reads what was read for the batch; the same event after the batch (a
    # replay) reads afresh.
    assert [item.webhook_id for item in h.run(activity.outgoing(event))] == [first]
    h.run(activity.prepare(()))
    assert [item.webhook_id for item in h.run(activity.outgoing(event))] == [first, later]


def test_post_delete(h: Harness) -> None:
    hook = h.hook()
    author = h.user()
    h.subscribe(hook, author)
    [item] = h.fan_out("post.delete", author["id"], post_id=42, author_id=author["id"])
    assert jsonio.loads(item.body) == {
        "for_user_id": str(author["id"]),
        "tweet_delete_events": [
            {"status": {"id": "42", "user_id": str(author["id"])}, "timestamp_ms": "1522082006140"}
        ],
    }


def test_like_goes_to_liker_and_author(h: Harness) -> None:
    hook = h.hook()
    liker, author = h.user(name="Liker"), h.user()
    h.subscribe(hook, liker)
    h.subscribe(hook, author)
    post = h.post(author)
    items = h.fan_out(
        "like.create", liker["id"], user_id=liker["id"], post_id=post["id"], post_author_id=author["id"]
    )
    got = bodies(items)
    assert set(got) == {str(liker["id"]), str(author["id"])}
    [favorite] = got[str(author["id"])]["favorite_events"]
    assert re.fullmatch(r"[0-9a-f]{32}", favorite["id"])
    assert favorite["created_at"] == "Mon Mar 26 16:33:26 +0000 2018"
    assert favorite["timestamp_ms"] == 1522082006140
    assert favorite["favorited_status"]["id_str"] == str(post["id"])
    assert favorite["user"]["id_str"] == str(liker["id"]) and favorite["user"]["name"] == "Liker"
    assert got[str(liker["id"])]["favorite_events"] == [favorite]
    # Liking one's own post: one delivery. Unliking: none.
    own = h.fan_out(
        "like.create", author["id"], user_id=author["id"], post_id=post["id"], post_author_id=author["id"]
    )
    assert [i.for_user_id for i in own] == [author["id"]]
    assert (
        h.fan_out(
            "like.delete", liker["id"], user_id=liker["id"], post_id=post["id"], post_author_id=author["id"]
        )
        == []
    )


def test_follow_unfollow_block_mute(h: Harness) -> None:
    hook = h.hook()
    source, target = h.user(), h.user()
    h.subscribe(hook, source)
    h.subscribe(hook, target)
    ids = {"source_id": source["id"], "target_id": target["id"]}
    follow = bodies(h.fan_out("follow.follow", source["id"], **ids))
    assert set(follow) == {str(source["id"]), str(target["id"])}
    [item] = follow[str(target["id"])]["follow_events"]
    assert item["type"] == "follow" and item["created_timestamp"] == "1522082006140"
    assert item["source"]["id_str"] == str(source["id"]) and item["target"]["id_str"] == str(target["id"])
    assert item["source"]["screen_name"] == source["username"]
    # The v2 introduction lists every one of these "by user or of user": both ends receive it.
    for kind, key, kind_name in (
        ("follow.unfollow", "follow_events", "unfollow"),
        ("block.block", "block_events", "block"),
        ("block.unblock", "block_events", "unblock"),
        ("mute.mute", "mute_events", "mute"),
        ("mute.unmute", "mute_events", "unmute"),
    ):
        got = bodies(h.fan_out(kind, source["id"], **ids))
        assert set(got) == {str(source["id"]), str(target["id"])}, kind
        for envelope in got.values():
            [item] = envelope[key]
            assert item["type"] == kind_name and item["target"]["id"] == target["id"]
            assert item["source"]["id"] == source["id"]
    # Acting on oneself (not possible through the API) reaches the user once.
    assert len(h.fan_out("mute.mute", source["id"], source_id=source["id"], target_id=source["id"])) == 1


def test_dm_only_to_dm_level_subscriptions(h: Harness) -> None:
    dm_hook, read_hook = h.hook(), h.hook()
    sender, recipient = h.user(name="Sender"), h.user(name="Recipient")
    h.subscribe(dm_hook, sender)
    h.subscribe(read_hook, sender, level="read-write")
    h.subscribe(dm_hook, recipient)
    row = h.dm(sender, recipient, "#hey you")
    payload = {
        "dm_event_id": row["id"],
        "dm_conversation_id": row["conversation_id"],
        "sender_id": sender["id"],
        "event_type": "MessageCreate",
    }
    sent = h.fan_out("dm.sent", sender["id"], **payload)
    assert [(i.webhook_id, i.for_user_id) for i in sent] == [(dm_hook, sender["id"])]
    received = h.fan_out("dm.received", recipient["id"], **payload)
    assert [(i.webhook_id, i.for_user_id) for i in received] == [(dm_hook, recipient["id"])]
    for item in (*sent, *received):
        envelope = jsonio.loads(item.body)
        [event] = envelope["direct_message_events"]
        assert event["type"] == "message_create" and event["id"] == str(row["id"])
        assert event["created_timestamp"] == str(row["created_at"])
        create = event["message_create"]
        assert create["target"] == {"recipient_id": str(recipient["id"])}
        assert create["sender_id"] == str(sender["id"])
        assert create["message_data"] == {
            "text": "#hey you",
            "entities": {
                "hashtags": [{"text": "hey", "indices": [0, 4]}],
                "urls": [],
                "user_mentions": [],
                "symbols": [],
            },
        }
        users = envelope["users"]
        assert set(users) == {str(sender["id"]), str(recipient["id"])}
        assert users[str(sender["id"])]["name"] == "Sender"
        assert users[str(sender["id"])]["created_timestamp"] == str(sender["created_at"])
        assert set(users[str(recipient["id"])]) >= {
            "id",
            "created_timestamp",
            "name",
            "screen_name",
            "protected",
            "verified",
            "followers_count",
            "friends_count",
            "statuses_count",
            "profile_image_url_https",
        }


def test_dm_read_and_typing(h: Harness) -> None:
    hook = h.hook()
    reader, other = h.user(), h.user()
    h.subscribe(hook, other)
    h.subscribe(hook, reader)
    low, high = sorted((reader["id"], other["id"]))
    conversation = f"{low}-{high}"
    read = h.fan_out(
        "dm.read", other["id"], dm_conversation_id=conversation, last_read_event_id=77, sender_id=reader["id"]
    )
    [envelope] = bodies(read).values()
    assert envelope["for_user_id"] == str(other["id"])
    assert envelope["direct_message_mark_read_events"] == [
        {
            "created_timestamp": "1522082006140",
            "sender_id": str(reader["id"]),
            "target": {"recipient_id": str(other["id"])},
            "last_read_event_id": "77",
        }
    ]
    assert set(envelope["users"]) == {str(reader["id"]), str(other["id"])}
    # The reader's own row: nothing (receipts and typing indicators are shown to the other side).
    assert (
        h.fan_out(
            "dm.read",
            reader["id"],
            dm_conversation_id=conversation,
            last_read_event_id=77,
            sender_id=reader["id"],
        )
        == []
    )
    typing = h.fan_out(
        "dm.indicate_typing", other["id"], dm_conversation_id=conversation, sender_id=reader["id"]
    )
    [envelope] = bodies(typing).values()
    assert envelope["direct_message_indicate_typing_events"] == [
        {
            "created_timestamp": "1522082006140",
            "sender_id": str(reader["id"]),
            "target": {"recipient_id": str(other["id"])},
        }
    ]


def test_activity_only_kinds_are_ignored(h: Harness) -> None:
    hook = h.hook()
    user = h.user()
    h.subscribe(hook, user)
    assert h.fan_out("profile.update.bio", user["id"], user_id=user["id"], before="a", after="b") == []
    assert h.fan_out("spaces.start", user["id"], space_id="1DXxyRYNejbKM", creator_id=user["id"]) == []


def test_revocation_reaches_every_valid_webhook_of_the_app(h: Harness) -> None:
    """`oauth.revoke` (the user's last live token of the app revoked; the subscriptions are gone by
    now): a `user_event` to each valid webhook of that app, whoever was subscribed to it."""
    first, second, invalid = h.hook(), h.hook(), h.hook(valid=False)
    user = h.user()
    when = "2026-07-23T21:44:05+00:00"
    items = h.fan_out("oauth.revoke", user["id"], user_id=user["id"], app_id=h.app["id"], date_time=when)
    assert invalid not in [i.webhook_id for i in items]
    assert {first, second} <= {i.webhook_id for i in items}
    for item in items:
        assert item.route == f"aaa:{user['id']}" and item.for_user_id == user["id"]
        assert jsonio.loads(item.body) == {
            "user_event": {
                "revoke": {
                    "date_time": when,
                    "target": {"app_id": str(h.app["id"])},
                    "source": {"user_id": str(user["id"])},
                }
            }
        }
    # Another app's revocation: none of this app's webhooks.
    assert h.fan_out("oauth.revoke", user["id"], user_id=user["id"], app_id=1, date_time=when) == []
