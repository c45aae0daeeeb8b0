"""The other post streams and the compliance streams, all on the filtered stream's connection
machinery (`events/connections.py`):

- `GET /2/tweets/sample/stream` (1%), `/2/tweets/sample10/stream` (10%, `partition` 1..2),
  `/2/tweets/firehose/stream` (all, `partition` 1..20) and `/lang/{en,ja,ko,pt}` (1..8 for `en`, 1..2
  for the others): public posts, chosen
  by a stable hash of the post id, so every connection (and every server) picks the same posts;
- `GET /2/tweets/compliance/stream` (post deletes and edits), `/2/users/compliance/stream` (profile
  changes), `/2/likes/compliance/stream` (unlikes) and `/2/tweets/label/stream` (roost applies no
  labels: keep-alives only).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.fields import Selection
from roost.core.params import IntRange, Param, Timestamp
from roost.core.records import Row
from roost.events.connections import open_stream
from roost.events.stream_posts import POST_KINDS, event_object_id, public_post, render_post
from roost.events.stream_posts import line as stream_line
from roost.platform.operations import APP, Operation
from roost.platform.pipeline import Call, Stream
from roost.platform.stream import BACKFILL_MAX_MINUTES, STREAM_CONNECT
from roost.services import Services

SAMPLE_PERCENT = 1
SAMPLE10_PERCENT = 10
FIREHOSE_PARTITIONS = 20
SAMPLE10_PARTITIONS = 2
COMPLIANCE_PARTITIONS = 4
# The language firehoses and their partitions (the official document: 8 for English, 2 for the rest).
LANG_PARTITIONS = {"en": 8, "ja": 2, "ko": 2, "pt": 2}


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


# ---- post streams ---------------------------------------------------------------------------------


class PostSelector:
    """Public posts passing `keep(post)`, rendered with the connection's fields (no matching_rules)."""

    kinds = POST_KINDS
    counts_posts = True

    def __init__(self, services: Services, selection: Selection, keep: Callable[[Row], bool]) -> None:
        self.services = services
        self.selection = selection
        self.keep = keep

    async def start(self) -> None:
        return None

    async def line(self, event: Row) -> bytes | None:
        post = await public_post(self.services, event)
        if post is None or not self.keep(post):
            return None
        return stream_line(await render_post(self.services, self.selection, post))


def _percent(services: Services, setting: str, default: int) -> int:
    # A feature setting so tests (and demos) can use a larger sample; the platform's is fixed.
    return min(services.settings.whole(setting, default, positive=True), 100)


async def sample(call: Call) -> Stream:
    assert call.selection is not None
    percent = _percent(call.services, "sample_stream_percent", SAMPLE_PERCENT)
    selector = PostSelector(call.services, call.selection, lambda p: in_sample(int(p["id"]), percent))
    return await open_stream(call, "sample_stream", selector)


async def sample10(call: Call) -> Stream:
    assert call.selection is not None
    percent = _percent(call.services, "sample10_stream_percent", SAMPLE10_PERCENT)
    part = int(call.params["partition"])

    def keep(post: Row) -> bool:
        post_id = int(post["id"])
        return in_sample(post_id, percent) and partition_of(post_id, SAMPLE10_PARTITIONS) == part

    selector = PostSelector(call.services, call.selection, keep)
    return await open_stream(call, "sample10_stream", selector, part)


def firehose(lang: str | None) -> Callable[[Call], Any]:
    endpoint = "firehose_stream" if lang is None else f"firehose_stream_lang_{lang}"
    partitions = FIREHOSE_PARTITIONS if lang is None else LANG_PARTITIONS[lang]

    async def handler(call: Call) -> Stream:
        assert call.selection is not None
        part = int(call.params["partition"])

        def keep(post: Row) -> bool:
            if lang is not None and post["lang"] != lang:
                return False
            return partition_of(int(post["id"]), partitions) == part

        selector = PostSelector(call.services, call.selection, keep)
        return await open_stream(call, endpoint, selector, part)

    return handler


# ---- compliance streams ---------------------------------------------------------------------------

# The profile fields of `profile.update.<field>` events, named as the user object names them.
PROFILE_FIELDS = {
    "bio": "description",
    "screenname": "username",
    "url": "url",
    "geo": "location",
    "profile_picture": "profile_image_url",
    "banner_picture": "profile_banner_url",
    "verified": "verified",
    "affiliate": "affiliation",
}


class ComplianceSelector:
    """Compliance events of one kind of object, one `{"data": …}` line each."""

    counts_posts = False

    def __init__(
        self,
        services: Services,
        kinds: frozenset[str],
        build: Callable[[Services, Row], Any],
        partition: tuple[int, int] | None = None,  # (partition, partitions)
        key: str = "post_id",
    ) -> None:
        self.services = services
        self.kinds = kinds
        self.build = build
        self.partition = partition
        self.key = key

    async def start(self) -> None:
        return None

    async def line(self, event: Row) -> bytes | None:
        if self.partition is not None:
            object_id = event_object_id(event, self.key)
            if object_id is None or partition_of(object_id, self.partition[1]) != self.partition[0]:
                return None
        data = await self.build(self.services, event)
        return None if data is None else stream_line({"data": data})


def _payload(event: Row) -> dict[str, Any]:
    try:
        payload = jsonio.loads(event["payload"])
    except (TypeError, ValueError):
        return {}
    return payload if isinstance(payload, dict) else {}


async def post_compliance(services: Services, event: Row) -> dict[str, Any] | None:
    payload, at = _payload(event), iso_ms(int(event["created_at"]))
    post_id, author_id = payload.get("post_id"), payload.get("author_id")
    if post_id is None or author_id is None:
        return None
    if event["kind"] == "post.delete":
        return {"delete": {"tweet": {"id": str(post_id), "author_id": str(author_id)}, "event_at": at}}
    post = await services.posts.get(int(post_id))
    if post is None:
        return None
    history = [str(i) for i in (jsonio.loads(post["edit_history"]) if post["edit_history"] else [post_id])]
    return {
        "tweet_edit": {
            "tweet": {"id": str(post_id)},
            "initial_tweet_id": history[0],
            "edit_tweet_ids": history,
            "event_at": at,
        }
    }


async def user_compliance(services: Services, event: Row) -> dict[str, Any] | None:
    payload = _payload(event)
    field = PROFILE_FIELDS.get(str(event["kind"]).removeprefix("profile.update."))
    if field is None or payload.get("user_id") is None:
        return None
    after = payload.get("after")
    new_value = after if isinstance(after, str) else ("" if after is None else jsonio.dumps(after).decode())
    return {
        "user_profile_modification": {
            "user": {"id": str(payload["user_id"])},
            "profile_field": field,
            "new_value": new_value,
            "event_at": iso_ms(int(event["created_at"])),
        }
    }


async def like_compliance(services: Services, event: Row) -> dict[str, Any] | None:
    payload = _payload(event)
    if payload.get("post_id") is None or payload.get("user_id") is None:
        return None
    return {
        "delete": {
            "favorite": {"id": str(payload["post_id"]), "user_id": str(payload["user_id"])},
            "event_at": iso_ms(int(event["created_at"])),
        }
    }


async def tweets_compliance(call: Call) -> Stream:
    part = int(call.params["partition"])
    selector = ComplianceSelector(
        call.services,
        frozenset({"post.delete", "post.edit"}),
        post_compliance,
        (part, COMPLIANCE_PARTITIONS),
    )
    return await open_stream(call, "tweets_compliance_stream", selector, part)


async def users_compliance(call: Call) -> Stream:
    part = int(call.params["partition"])
    kinds = frozenset(f"profile.update.{name}" for name in PROFILE_FIELDS)
    selector = ComplianceSelector(
        call.services, kinds, user_compliance, (part, COMPLIANCE_PARTITIONS), key="user_id"
    )
    return await open_stream(call, "users_compliance_stream", selector, part)


async def likes_compliance(call: Call) -> Stream:
    selector = ComplianceSelector(call.services, frozenset({"like.delete"}), like_compliance)
    return await open_stream(call, "likes_compliance_stream", selector)


async def label_stream(call: Call) -> Stream:
    # roost applies no labels to posts, so this stream only ever sends keep-alives.
    selector = ComplianceSelector(call.services, frozenset(), like_compliance)
    return await open_stream(call, "tweet_label_stream", selector)


# ---- operations -----------------------------------------------------------------------------------

BACKFILL = Param("backfill_minutes", IntRange(0, BACKFILL_MAX_MINUTES))
WINDOW = (Param("start_time", Timestamp()), Param("end_time", Timestamp()))


def _partition(count: int) -> Param:
    return Param("partition", IntRange(1, count), required=True)


def _stream_op(
    operation_id: str,
    path: str,
    handler: Callable[[Call], Any],
    params: tuple[Param, ...],
    summary: str,
    posts: bool = True,
) -> Operation:
    return Operation(
        operation_id,
        "GET",
        path,
        handler,
        (APP,),
        params=params,
        returns="tweet" if posts else None,
        rate_limit=STREAM_CONNECT,
        tag="Stream",
        summary=summary,
    )


OPERATIONS: tuple[Operation, ...] = (
    _stream_op("streamPostsSample", "/2/tweets/sample/stream", sample, (BACKFILL,), "Stream sampled Posts"),
    _stream_op(
        "streamPostsSample10",
        "/2/tweets/sample10/stream",
        sample10,
        (BACKFILL, _partition(SAMPLE10_PARTITIONS), *WINDOW),
        "Stream 10% sampled Posts",
    ),
    _stream_op(
        "streamPostsFirehose",
        "/2/tweets/firehose/stream",
        firehose(None),
        (BACKFILL, _partition(FIREHOSE_PARTITIONS), *WINDOW),
        "Stream all Posts",
    ),
    *(
        _stream_op(
            f"streamPostsFirehose{lang.capitalize()}",
            f"/2/tweets/firehose/stream/lang/{lang}",
            firehose(lang),
            (BACKFILL, _partition(partitions), *WINDOW),
            f"Stream {lang} Posts",
        )
        for lang, partitions in LANG_PARTITIONS.items()
    ),
    _stream_op(
        "streamPostsCompliance",
        "/2/tweets/compliance/stream",
        tweets_compliance,
        (BACKFILL, _partition(COMPLIANCE_PARTITIONS), *WINDOW),
        "Stream Posts compliance data",
        posts=False,
    ),
    _stream_op(
        "streamUsersCompliance",
        "/2/users/compliance/stream",
        users_compliance,
        (BACKFILL, _partition(COMPLIANCE_PARTITIONS), *WINDOW),
        "Stream Users compliance data",
        posts=False,
    ),
    _stream_op(
        "streamLikesCompliance",
        "/2/likes/compliance/stream",
        likes_compliance,
        (BACKFILL, *WINDOW),
        "Stream Likes compliance data",
        posts=False,
    ),
    _stream_op(
        "streamLabelsCompliance",
        "/2/tweets/label/stream",
        label_stream,
        (BACKFILL, *WINDOW),
        "Stream Post labels",
        posts=False,
    ),
)
