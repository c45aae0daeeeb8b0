"""Every platform operation roost serves, gathered from the per-tag modules."""

from __future__ import annotations

from roost.core.operations import Operation
from roost.platform import activity, dms, media, social, stream, tweets, users, webhooks


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
    ]
