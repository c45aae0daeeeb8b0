"""The likes firehose and sample10 streams (`GET /2/likes/firehose/stream`, `/2/likes/sample10/stream`),
on the connection class every stream shares (`events/connections.py`; selector:
`events/selectors.LikeSelector`).

Each public `like.create` becomes one `{"data", "includes"?, "errors"?}\\r\\n` line with a like object
(`domain/like_objects.py`) rendered by the fields engine. Likes are chosen and partitioned by a stable
hash of the like's id, so every connection and every server agrees. Unlikes are not sent here (they
are the likes compliance stream's `favorite` deletes). Likes are not posts: they count no usage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roost.core.params import IntRange, Param
from roost.events.hub import LIKES_FIREHOSE_PARTITIONS, LIKES_SAMPLE10_PARTITIONS
from roost.platform.operations import APP, Operation
from roost.platform.pipeline import Call, Stream
from roost.platform.stream import STREAM_CONNECT, opening
from roost.platform.streams import BACKFILL, WINDOW


async def likes_firehose(call: Call) -> Stream:
    assert call.selection is not None
    return await call.domain.streams.likes_firehose(
        opening(call), call.selection, int(call.params["partition"])
    )


async def likes_sample10(call: Call) -> Stream:
    assert call.selection is not None
    return await call.domain.streams.likes_sample10(
        opening(call), call.selection, int(call.params["partition"])
    )


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
