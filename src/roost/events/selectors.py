"""What each stream sends (its `Selector`, run by `events/connections.StreamConnection`):

- `RuleSelector`: the filtered stream, posts matching any of the app's rules with `matching_rules`;
- `PostSelector`: the sample, sample10 and firehose streams (and the language firehoses): public
  posts chosen by a stable hash of the post id, so every connection (and every server) picks the
  same posts;
- `LikeSelector`: the likes firehose and sample10 streams, chosen the same way by the like's id;
- `ComplianceSelector`: post deletes (and their quotes) and edits, profile changes, unlikes (and
  labels: none);
- `ActivitySelector`: `/2/activity/stream`, the activity-event envelopes of the app's subscriptions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.fields import Selection
from roost.core.records import Row
from roost.domain.like_objects import like_id
from roost.domain.stream_rules import RULES_EVENT
from roost.domain.stream_ruleset import RuleSet
from roost.events.stream_posts import POST_KINDS, StreamObjects, event_object_id, line
from roost.events.xaa import ActivityEvents

NOTHING: tuple[bytes, ...] = ()
LIKE_EVENTS = frozenset({"like.create"})  # event kinds the likes streams read (the object kind is `like`)


def stable_hash(object_id: int | str) -> int:
    """A hash of an id that is the same in every process and run (Python's `hash` is salted)."""
    digest = hashlib.blake2b(str(object_id).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def in_sample(object_id: int | str, percent: int) -> bool:
    """Whether a post (or like) is in a `percent` sample; the 1% sample is a subset of the 10% sample."""
    return stable_hash(object_id) % 100 < percent


def partition_of(object_id: int | str, partitions: int) -> int:
    """The partition (1-based) an object's events go to; independent of the sampling bucket."""
    return (stable_hash(object_id) // 100) % partitions + 1


# ---- posts ----------------------------------------------------------------------------------------


class RuleSelector:
    """The filtered stream's selection: posts matching any of the app's rules, sent once with every
    matching rule; the rules are reloaded when a `stream_rules.update` event names the app."""

    kinds: frozenset[str] | None = POST_KINDS | {RULES_EVENT}
    counts_posts = True

    def __init__(self, objects: StreamObjects, rules: RuleSet, app_id: int, selection: Selection) -> None:
        self.objects = objects
        self.rules = rules
        self.app_id = app_id
        self.selection = selection

    async def start(self) -> None:
        await self.rules.load()

    async def lines(self, event: Row) -> Sequence[bytes]:
        if str(event["kind"]) == RULES_EVENT:
            if event["object_id"] is not None and int(event["object_id"]) == self.app_id:
                await self.rules.load()
            return NOTHING
        if not len(self.rules.index):
            return NOTHING
        objects = self.objects
        post = await objects.public_post(event)
        if post is None:
            return NOTHING
        hits = self.rules.match(await objects.post_view(post))
        if not hits:
            return NOTHING
        body = await objects.render_post(self.selection, post)
        body["matching_rules"] = self.rules.matching_rules(hits)
        return (line(body),)


class PostSelector:
    """Public posts passing `keep(post)`, rendered with the connection's fields (no matching_rules)."""

    kinds: frozenset[str] | None = POST_KINDS
    counts_posts = True

    def __init__(self, objects: StreamObjects, selection: Selection, keep: Callable[[Row], bool]) -> None:
        self.objects = objects
        self.selection = selection
        self.keep = keep

    async def start(self) -> None:
        return None

    async def lines(self, event: Row) -> Sequence[bytes]:
        post = await self.objects.public_post(event)
        if post is None or not self.keep(post):
            return NOTHING
        return (line(await self.objects.render_post(self.selection, post)),)


def sampled(percent: int, partition: tuple[int, int] | None = None) -> Callable[[Row], bool]:
    """Posts in the `percent` sample (and of partition `(number, partitions)`, when given)."""

    def keep(post: Row) -> bool:
        post_id = int(post["id"])
        if not in_sample(post_id, percent):
            return False
        return partition is None or partition_of(post_id, partition[1]) == partition[0]

    return keep


def partitioned(partition: int, partitions: int, lang: str | None = None) -> Callable[[Row], bool]:
    """Every post of one partition (of one language, when given)."""

    def keep(post: Row) -> bool:
        if lang is not None and post["lang"] != lang:
            return False
        return partition_of(int(post["id"]), partitions) == partition

    return keep


# ---- likes ----------------------------------------------------------------------------------------


class LikeSelector:
    """Public likes whose id passes `keep`; they are not posts, so they count no usage."""

    kinds: frozenset[str] | None = LIKE_EVENTS
    counts_posts = False

    def __init__(self, objects: StreamObjects, selection: Selection, keep: Callable[[str], bool]) -> None:
        self.objects = objects
        self.selection = selection
        self.keep = keep

    async def start(self) -> None:
        return None

    async def lines(self, event: Row) -> Sequence[bytes]:
        # The id alone decides sample and partition: skip before loading the post.
        if not self.keep(like_id(int(event["id"]))):
            return NOTHING
        like = await self.objects.public_like(event)
        if like is None:
            return NOTHING
        return (line(await self.objects.render(self.selection, "like", like)),)


# ---- compliance -----------------------------------------------------------------------------------

# `profile.update.<suffix>` -> the `profile_field` the users compliance stream names it by (the
# platform's list of values: docs/streams.md). The list has nothing for the @username (`handle`), the
# verified badge or the affiliation, so those changes are not compliance events.
PROFILE_FIELDS = {
    "bio": "profile.description",
    "screenname": "profile.name",  # the display name
    "geo": "profile.location",
    "url": "profile.url",
    "profile_picture": "profile.profileImage",
    "banner_picture": "profile.profileBanner",
}
POST_COMPLIANCE_EVENTS = frozenset({"post.delete", "post.edit"})
# Standing events (`domain/compliance.py`, set through the control plane) -> the stream's key.
STANDING_KEYS = {
    "user.suspend": "user_suspend",
    "user.unsuspend": "user_unsuspend",
    "user.delete": "user_delete",
    "user.undelete": "user_undelete",
    "user.scrub_geo": "scrub_geo",
}
USER_COMPLIANCE_EVENTS = frozenset(f"profile.update.{name}" for name in PROFILE_FIELDS) | frozenset(
    STANDING_KEYS
)
LIKE_COMPLIANCE_EVENTS = frozenset({"like.delete"})

# What one event becomes: the `data` of each line it sends (none, one, or a delete and its quotes').
Build = Callable[[StreamObjects, Row], Awaitable[list[dict[str, Any]]]]


class ComplianceSelector:
    """Compliance events of one kind of object, one `{"data": …}` line each."""

    counts_posts = False

    def __init__(
        self,
        objects: StreamObjects,
        kinds: frozenset[str],
        build: Build,
        partition: tuple[int, int] | None = None,  # (partition, partitions)
        key: str = "post_id",
    ) -> None:
        self.objects = objects
        self.kinds: frozenset[str] | None = kinds
        self.build = build
        self.partition = partition
        self.key = key

    async def start(self) -> None:
        return None

    async def lines(self, event: Row) -> Sequence[bytes]:
        if self.partition is not None:
            object_id = event_object_id(event, self.key)
            if object_id is None or partition_of(object_id, self.partition[1]) != self.partition[0]:
                return NOTHING
        return [line({"data": data}) for data in await self.build(self.objects, event)]


def _payload(event: Row) -> dict[str, Any]:
    try:
        payload = jsonio.loads(event["payload"])
    except (TypeError, ValueError):
        return {}
    return payload if isinstance(payload, dict) else {}


def _versions(post: Row | None, post_id: object) -> list[str]:
    """A post's versions, first to last (just the post itself when it was never edited)."""
    if post is None or not post["edit_history"]:
        return [str(post_id)]
    return [str(i) for i in jsonio.loads(post["edit_history"])]


async def post_compliance(objects: StreamObjects, event: Row) -> list[dict[str, Any]]:
    """`post.delete`: a `delete`, then one more `delete` with `quote_tweet_id` per live post quoting
    the deleted one (any of its versions; all in the deleted post's partition); `post.edit`: a
    `tweet_edit` naming the new version, the first one and every version up to the new one."""
    payload, at = _payload(event), iso_ms(int(event["created_at"]))
    post_id, author_id = payload.get("post_id"), payload.get("author_id")
    if post_id is None or author_id is None:
        return []
    post = await objects.post(int(post_id))
    versions = _versions(post, post_id)
    if event["kind"] == "post.delete":
        tweet = {"id": str(post_id), "author_id": str(author_id)}
        quotes = sorted({quote for version in versions for quote in await objects.quote_ids(int(version))})
        return [
            {"delete": {"tweet": tweet, "event_at": at}},
            *({"delete": {"tweet": tweet, "quote_tweet_id": str(q), "event_at": at}} for q in quotes),
        ]
    if post is None:
        return []
    if str(post_id) in versions:  # read later, the history has the versions since: they are their own events
        versions = versions[: versions.index(str(post_id)) + 1]
    return [
        {
            "tweet_edit": {
                "tweet": {"id": str(post_id)},
                "initial_tweet_id": versions[0],
                "edit_tweet_ids": versions,
                "event_at": at,
            }
        }
    ]


async def user_compliance(objects: StreamObjects, event: Row) -> list[dict[str, Any]]:
    """`profile.update.<suffix>`: a `user_profile_modification` whose `new_value` is the new value as
    a string (empty when the field was cleared); a standing change: `user_suspend`, `user_delete`,
    their reversals, and `scrub_geo` with the newest post it covers."""
    payload = _payload(event)
    standing = STANDING_KEYS.get(str(event["kind"]))
    if standing is not None and payload.get("user_id") is not None:
        body: dict[str, Any] = {"user": {"id": str(payload["user_id"])}}
        if standing == "scrub_geo":
            body["up_to_tweet_id"] = str(payload.get("up_to_post_id"))
        body["event_at"] = iso_ms(int(event["created_at"]))
        return [{standing: body}]
    field = PROFILE_FIELDS.get(str(event["kind"]).removeprefix("profile.update."))
    if field is None or payload.get("user_id") is None:
        return []
    after = payload.get("after")
    return [
        {
            "user_profile_modification": {
                "user": {"id": str(payload["user_id"])},
                "event_at": iso_ms(int(event["created_at"])),
                "profile_field": field,
                "new_value": "" if after is None else str(after),
            }
        }
    ]


async def like_compliance(objects: StreamObjects, event: Row) -> list[dict[str, Any]]:
    """`like.delete`: a `delete` of the `favorite`, named by the post's id and the liking user's."""
    payload = _payload(event)
    if payload.get("post_id") is None or payload.get("user_id") is None:
        return []
    return [
        {
            "delete": {
                "favorite": {"id": str(payload["post_id"]), "user_id": str(payload["user_id"])},
                "event_at": iso_ms(int(event["created_at"])),
            }
        }
    ]


# ---- activity events ------------------------------------------------------------------------------


class ActivitySelector:
    """`/2/activity/stream`: every event's envelopes for the app's subscriptions, one line each."""

    kinds: frozenset[str] | None = None  # every kind: `ActivityEvents` knows which ones matter
    counts_posts = False

    def __init__(self, activity: ActivityEvents, app_id: int) -> None:
        self.activity = activity
        self.app_id = app_id

    def _of_app(self, subscription: Row) -> bool:
        return int(subscription["app_id"]) == self.app_id

    async def start(self) -> None:
        return None

    async def lines(self, event: Row) -> Sequence[bytes]:
        return [body + b"\r\n" for _, body in await self.activity.matches(event, self._of_app)]
