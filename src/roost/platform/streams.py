"""The other post streams and the compliance streams (their selectors: `events/selectors.py`; the
connection machinery: `events/connections.py`):

- `GET /2/tweets/sample/stream` (1%), `/2/tweets/sample10/stream` (10%, `partition` 1..2),
  `/2/tweets/firehose/stream` (all, `partition` 1..20) and `/lang/{en,ja,ko,pt}` (1..8 for `en`, 1..2
  for the others): public posts, chosen
  by a stable hash of the post id, so every connection (and every server) picks the same posts;
- `GET /2/tweets/compliance/stream` (post deletes and edits), `/2/users/compliance/stream` (profile
  changes), `/2/likes/compliance/stream` (unlikes) and `/2/tweets/label/stream` (roost applies no
  labels: keep-alives only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roost.core.params import IntRange, Param, Timestamp
from roost.events.hub import (
    COMPLIANCE_PARTITIONS,
    FIREHOSE_PARTITIONS,
    LANG_PARTITIONS,
    SAMPLE10_PARTITIONS,
)
from roost.platform.operations import APP, Operation
from roost.platform.pipeline import Call, Stream
from roost.platform.stream import BACKFILL_MAX_MINUTES, STREAM_CONNECT, opening

# ---- post streams ---------------------------------------------------------------------------------


async def sample(call: Call) -> Stream:
    assert call.selection is not None
    return await call.domain.streams.sample(opening(call), call.selection)


async def sample10(call: Call) -> Stream:
    assert call.selection is not None
    return await call.domain.streams.sample10(opening(call), call.selection, int(call.params["partition"]))


def firehose(lang: str | None) -> Callable[[Call], Any]:
    async def handler(call: Call) -> Stream:
        assert call.selection is not None
        partition = int(call.params["partition"])
        return await call.domain.streams.firehose(opening(call), call.selection, partition, lang)

    return handler


# ---- compliance streams ---------------------------------------------------------------------------


async def tweets_compliance(call: Call) -> Stream:
    return await call.domain.streams.tweets_compliance(opening(call), int(call.params["partition"]))


async def users_compliance(call: Call) -> Stream:
    return await call.domain.streams.users_compliance(opening(call), int(call.params["partition"]))


async def likes_compliance(call: Call) -> Stream:
    return await call.domain.streams.likes_compliance(opening(call))


async def label_stream(call: Call) -> Stream:
    return await call.domain.streams.labels(opening(call))


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
