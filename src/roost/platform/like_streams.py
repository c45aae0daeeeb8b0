"""The likes firehose and sample10 streams (`GET /2/likes/firehose/stream`, `/2/likes/sample10/stream`),
on the connection class every stream shares (`events/connections.py`).

Each public `like.create` becomes one `{"data", "includes"?, "errors"?}\\r\\n` line with a like object
(`domain/like_objects.py`) rendered by the fields engine. Likes are chosen and partitioned by a stable
hash of the like's id, so every connection and every server agrees. Unlikes are not sent here (they
are the likes compliance stream's `favorite` deletes). Likes are not posts: they count no usage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roost.core import jsonio
from roost.core.fields import Selection
from roost.core.params import IntRange, Param
from roost.core.records import Row
from roost.domain.like_objects import like_id, like_row
from roost.domain.lookup import visible_post
from roost.events.connections import open_stream
from roost.events.stream_posts import line as stream_line
from roost.events.stream_posts import render_line
from roost.platform.operations import APP, Operation
from roost.platform.pipeline import Call, Stream
from roost.platform.stream import STREAM_CONNECT
from roost.platform.streams import BACKFILL, WINDOW, in_sample, partition_of
from roost.services import Services

LIKE_EVENTS = frozenset({"like.create"})  # event kinds read (the object kind is `like`)
LIKES_FIREHOSE_PARTITIONS = 20
LIKES_SAMPLE10_PARTITIONS = 2
LIKES_SAMPLE10_PERCENT = 10


async def public_like(services: Services, event: Row) -> Row | None:
    """The event's like if it is public: the liked post exists and neither its author nor the liking
    account is protected (a protected account's likes are not public)."""
    try:
        payload = jsonio.loads(event["payload"])
        liker, post_id = int(payload["user_id"]), int(payload["post_id"])
    except (KeyError, TypeError, ValueError):
        return None  # a row not following the log's conventions is skipped
    post = await services.posts.get(post_id)
    if post is None or not visible_post(post):
        return None
    protected = await services.users.protected_ids()
    if liker in protected or int(post["author_id"]) in protected:
        return None
    return like_row(event, post)


class LikeSelector:
    """Public likes whose id passes `keep`; they are not posts, so they count no usage."""

    kinds = LIKE_EVENTS
    counts_posts = False

    def __init__(self, services: Services, selection: Selection, keep: Callable[[str], bool]) -> None:
        self.services = services
        self.selection = selection
        self.keep = keep

    async def start(self) -> None:
        return None

    async def line(self, event: Row) -> bytes | None:
        # The id alone decides sample and partition: skip before loading the post.
        if not self.keep(like_id(int(event["id"]))):
            return None
        like = await public_like(self.services, event)
        if like is None:
            return None
        return stream_line(await render_line(self.services, self.selection, "like", like))


async def likes_firehose(call: Call) -> Stream:
    assert call.selection is not None
    part = int(call.params["partition"])
    selector = LikeSelector(
        call.services, call.selection, lambda ident: partition_of(ident, LIKES_FIREHOSE_PARTITIONS) == part
    )
    return await open_stream(call, "likes_firehose_stream", selector, part)


async def likes_sample10(call: Call) -> Stream:
    assert call.selection is not None
    part = int(call.params["partition"])
    # A feature setting so tests (and demos) can use a larger sample; the platform's is fixed.
    percent = min(
        call.services.settings.whole("likes_sample10_stream_percent", LIKES_SAMPLE10_PERCENT, positive=True),
        100,
    )

    def keep(ident: str) -> bool:
        return in_sample(ident, percent) and partition_of(ident, LIKES_SAMPLE10_PARTITIONS) == part

    selector = LikeSelector(call.services, call.selection, keep)
    return await open_stream(call, "likes_sample10_stream", selector, part)


def _like_stream_op(
    operation_id: str, path: str, handler: Callable[[Call], Any], partitions: int, summary: str
) -> Operation:
    return Operation(
        operation_id,
        "GET",
        path,
        handler,
        (APP,),
        params=(BACKFILL, Param("partition", IntRange(1, partitions), required=True), *WINDOW),
        returns="like",
        rate_limit=STREAM_CONNECT,  # the facts give no figure of their own: the streams' 50 / 15 min
        tag="Stream",
        summary=summary,
    )


OPERATIONS: tuple[Operation, ...] = (
    _like_stream_op(
        "streamLikesFirehose",
        "/2/likes/firehose/stream",
        likes_firehose,
        LIKES_FIREHOSE_PARTITIONS,
        "Stream all Likes",
    ),
    _like_stream_op(
        "streamLikesSample10",
        "/2/likes/sample10/stream",
        likes_sample10,
        LIKES_SAMPLE10_PARTITIONS,
        "Stream sampled Likes",
    ),
)
