"""Every platform operation roost serves, gathered from the per-tag modules."""

from __future__ import annotations

from roost.platform import (
    activity,
    connections,
    dms,
    like_streams,
    media,
    reposts,
    search,
    social,
    stream,
    stream_webhooks,
    streams,
    tweets,
    users,
    webhooks,
)
from roost.platform.operations import Operation


def all_operations() -> list[Operation]:
    return [
        *tweets.OPERATIONS,
        *users.OPERATIONS,
        *media.OPERATIONS,
        *dms.OPERATIONS,
        *webhooks.OPERATIONS,
        *social.OPERATIONS,
        *activity.OPERATIONS,
        *stream.OPERATIONS,
        *streams.OPERATIONS,
        *like_streams.OPERATIONS,
        *connections.OPERATIONS,
        *stream_webhooks.OPERATIONS,
        *search.OPERATIONS,
        *reposts.OPERATIONS,  # reposts, quotes, hidden replies, home timeline (issue 14)
    ]
