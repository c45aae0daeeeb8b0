"""Activity events read a dispatcher batch's new posts ahead (`ActivityEvents.prepare`): whom they
mention and the post subscriptions of everyone concerned, in two queries per batch. Every event must
still match exactly what it matches on its own (SQLite, or PostgreSQL with ROOST_TEST_DATABASE_URL)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.unit.test_aaa import Harness

from roost.core import jsonio
from roost.events.xaa import ActivityEvents
from roost.storage import activity as activity_rows
from roost.storage.aaa import AaaStore
from roost.storage.activity import ActivityStore
from roost.storage.news import NewsStore


class ActivityHarness(Harness):
    def subscribe_to(self, hook_id: int, event_type: str, user: dict[str, Any], **filters: Any) -> int:
        now = self.services.clock.now_ms()
        row = {
            "id": self.services.ids.next_id(),
            "app_id": self.app["id"],
            "event_type": event_type,
            "filter_user_id": user["id"],
            "filter_keyword": filters.get("keyword"),
            "filter_direction": filters.get("direction"),
            "tag": filters.get("tag"),
            "webhook_id": hook_id,
            "created_at": now,
            "updated_at": now,
        }

        async def make() -> None:
            async with self.services.db.transaction() as tx:
                await activity_rows.insert_subscription(tx, row)

        self.run(make())
        return int(row["id"])

    def events(self) -> ActivityEvents:
        stores = self.services
        db = stores.db
        return ActivityEvents(
            ActivityStore(db), AaaStore(db), stores.users, stores.posts, stores.dms, NewsStore(db)
        )


@pytest.fixture(scope="module")
def h() -> Iterator[ActivityHarness]:
    harness = ActivityHarness()
    yield harness
    harness.close()


def routed(items: list[Any]) -> list[tuple[int, str, str]]:
    """(webhook, route, event type) of each delivery, in order."""
    return [(i.webhook_id, i.route, jsonio.loads(i.body)["data"]["event_type"]) for i in items]


def test_a_batch_read_ahead_matches_as_each_event_alone(h: ActivityHarness) -> None:
    hook, other_hook = h.hook(), h.hook()
    author, fan, shy, idle = (h.user() for _ in range(4))
    locked = h.user(protected=True)
    h.subscribe_to(hook, "post.create", author)
    h.subscribe_to(other_hook, "post.create", author, keyword="hello", tag="greetings")
    h.subscribe_to(hook, "post.mention.create", fan)
    h.subscribe_to(other_hook, "post.mention.create", shy, tag="shy")
    h.subscribe_to(hook, "post.repost.create", author)
    h.subscribe_to(hook, "post.delete", author)  # another event type of the same user: not a match
    h.subscribe_to(hook, "post.create", locked)
    h.subscribe_to(hook, "follow.follow", author, direction="inbound")
    posts = [
        h.post(author, "hello world"),
        h.post(author, f"hi @{fan['username']} and @{shy['username']}"),
        h.post(idle, f"only @{fan['username']}"),
        h.post(idle, "nobody listens"),
        h.post(locked, f"@{fan['username']} from a protected account"),
    ]
    events = [
        h.event("post.create", p["author_id"], post_id=p["id"], author_id=p["author_id"]) for p in posts
    ]
    events.insert(2, h.event("follow.follow", fan["id"], source_id=fan["id"], target_id=author["id"]))
    events.append(
        h.event(
            "post.create",
            author["id"],
            post_id=posts[3]["id"],
            author_id=author["id"],
            reposted_post_id=posts[3]["id"],
        )
    )
    alone = [routed(h.run(h.events().outgoing(event))) for event in events]
    activity = h.events()
    h.run(activity.prepare(events))
    together = [routed(h.run(activity.outgoing(event))) for event in events]
    h.run(activity.prepare(()))
    assert together == alone
    assert [len(items) for items in alone] == [2, 3, 1, 1, 0, 0, 2]
    assert {kind for items in alone for _, _, kind in items} == {
        "post.create",
        "post.mention.create",
        "post.repost.create",
        "follow.follow",
    }


def test_a_read_ahead_serves_only_its_batch(h: ActivityHarness) -> None:
    first, later = h.hook(), h.hook()
    author = h.user()
    h.subscribe_to(first, "post.create", author)
    post = h.post(author)
    event = h.event("post.create", author["id"], post_id=post["id"], author_id=author["id"])
    activity = h.events()
    h.run(activity.prepare([event]))
    h.subscribe_to(later, "post.create", author)
    # The batch's own event matches what was read for the batch; the same event afterwards (a replay,
    # or an activity stream reading the log) reads afresh.
    assert [item.webhook_id for item in h.run(activity.outgoing(event))] == [first]
    h.run(activity.prepare(()))
    assert [item.webhook_id for item in h.run(activity.outgoing(event))] == [first, later]
