"""The `like` object kind: the LikeWithTweetAuthor objects of the likes firehose and sample10 streams.

A like object is built from a `like.create` event and the liked post (`like_row`); it is never the
target of an expansion, so StoreLoader does not load it. Field names are those of the
`like_with_tweet_author.fields` parameter (both documents), which is also how the activity events'
`like.create` payload names them; the response schemas call the author field `tweet_author_id`
(they allow other properties, so `liked_tweet_author_id` conforms).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.fields import Expansion, ObjectKind, RenderContext, Row

LIKE_FIELDS = (
    "attachments_media_keys",
    "created_at",
    "id",
    "liked_tweet_author_id",
    "liked_tweet_id",
    "timestamp_ms",
)
# The activity events' like.create payload without `timestamp_ms`: both documents type it as an
# int32, which cannot hold a millisecond time, so it is sent only when asked for (as an integer).
LIKE_DEFAULTS = ("id", "created_at", "liked_tweet_id", "liked_tweet_author_id")


def like_id(event_id: int) -> str:
    """The like's 32-hex id: the one the activity events' like.create payload carries for the event."""
    return hashlib.md5(str(event_id).encode()).hexdigest()


def like_row(event: Row, post: Row) -> dict[str, Any]:
    """The like of a `like.create` event, with what the liked post lends it (its media keys)."""
    payload = jsonio.loads(event["payload"])
    media = jsonio.loads(post["media_keys"]) if post["media_keys"] else []
    return {
        "id": like_id(int(event["id"])),
        "created_at": int(event["created_at"]),
        "user_id": int(payload["user_id"]),
        "post_id": int(post["id"]),
        "post_author_id": int(post["author_id"]),
        "media_keys": [str(key) for key in media],
    }


def render_like(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name == "id":
            out[name] = row["id"]
        elif name == "created_at":
            out[name] = iso_ms(row["created_at"])
        elif name == "timestamp_ms":
            out[name] = row["created_at"]
        elif name == "liked_tweet_id":
            out[name] = str(row["post_id"])
        elif name == "liked_tweet_author_id":
            out[name] = str(row["post_author_id"])
        elif name == "attachments_media_keys" and row["media_keys"]:
            out[name] = list(row["media_keys"])
    return out


LIKE_KINDS = (
    ObjectKind(
        "like",
        "like",
        ("like_with_tweet_author.fields",),
        LIKE_FIELDS,
        {},
        LIKE_DEFAULTS,
        {"tweet": "likes", "post": "likes"},
        render_like,
        lambda row: row["id"],
    ),
)

LIKE_EXPANSIONS = {
    # Declared in the documents' order (the 400 message lists them so).
    "like": (
        Expansion(
            "attachments.media_keys",
            "media",
            lambda r: r["media_keys"],
            lookup="key",
            implies=("attachments_media_keys",),
        ),
        Expansion(
            "liked_tweet_author_id",
            "user",
            lambda r: (r["post_author_id"],),
            implies=("liked_tweet_author_id",),
        ),
        Expansion("liked_tweet_id", "tweet", lambda r: (r["post_id"],), implies=("liked_tweet_id",)),
    )
}
