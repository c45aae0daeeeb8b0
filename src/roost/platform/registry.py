"""Every platform operation roost serves, gathered from the per-tag modules."""

from __future__ import annotations

from roost.platform import (
    activity,
    analytics,
    articles,
    bookmarks,
    broadcasts,
    chat,
    communities,
    compliance,
    connections,
    dm_extras,
    dms,
    like_streams,
    lists,
    media,
    media_upload,
    news,
    notes,
    reposts,
    search,
    social,
    spaces,
    stream,
    stream_webhooks,
    streams,
    trends,
    tweets,
    user_search,
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
        *bookmarks.OPERATIONS,
        *dm_extras.OPERATIONS,
        *user_search.OPERATIONS,
        *lists.OPERATIONS,
        *reposts.OPERATIONS,  # reposts, quotes, hidden replies, home timeline (issue 14)
        # Issue 15: spaces and compliance jobs.
        *spaces.OPERATIONS,
        *compliance.OPERATIONS,
        # Issue 15, media upload:
        *media_upload.OPERATIONS,
        # Issue 15, notes, news, communities, trends, articles, post analytics:
        *notes.OPERATIONS,
        *news.OPERATIONS,
        *communities.OPERATIONS,
        *trends.OPERATIONS,
        *articles.OPERATIONS,
        *analytics.OPERATIONS,
        *broadcasts.OPERATIONS,  # issue 22: scheduled broadcasts and their chat
        *chat.OPERATIONS,  # issue 22: encrypted chat (X Chat)
    ]
