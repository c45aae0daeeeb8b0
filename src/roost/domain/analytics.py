"""Post analytics: what happened to the caller's own posts in a window, in buckets (hourly, daily,
weekly or one total), from what roost records over time: likes and unlikes (the event log), reposts,
replies and quotes (the posts that make them), bookmarks, and the impressions, clicks and other
engagements the control plane adds (`POST /_roost/tweets/{id}/metrics`).

`engagements` is the sum of the interactions (likes, reposts, replies, quotes, bookmarks, clicks,
shares, follows, app opens and installs, emails) plus engagements added without a kind.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from roost.core import errors
from roost.core.clock import Clock
from roost.core.errors import not_authorized_for_resource_item, resource_not_found_item
from roost.core.ids import SnowflakeGenerator
from roost.domain.community_objects import ANALYTICS_METRICS
from roost.domain.pages import Page
from roost.storage import analytics as analytics_rows
from roost.storage.analytics import AnalyticsStore
from roost.storage.db import Database
from roost.storage.posts import PostStore

# The post analytics object's metrics, declared once with its kind.
METRICS = ANALYTICS_METRICS
# Counted from what users did: the control plane cannot add them.
RECORDED = frozenset({"bookmarks", "likes", "quote_tweets", "replies", "retweets", "unlikes"})
ADDABLE = tuple(name for name in METRICS if name not in RECORDED)
INTERACTIONS = (
    "app_install_attempts",
    "app_opens",
    "bookmarks",
    "detail_expands",
    "email_tweet",
    "follows",
    "hashtag_clicks",
    "likes",
    "permalink_clicks",
    "quote_tweets",
    "replies",
    "retweets",
    "shares",
    "url_clicks",
    "user_profile_clicks",
)
HOUR_MS = 3_600_000
STEPS = {"hourly": HOUR_MS, "daily": 24 * HOUR_MS, "weekly": 7 * 24 * HOUR_MS}
MAX_BUCKETS = 2_000
MAX_ADD = 1_000_000_000


def timestamp(ms: int) -> str:
    """`YYYY-MM-DDTHH:mm:ssZ`, the analytics documents' form."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def bucket_starts(start: int, end: int, granularity: str) -> list[int]:
    """The buckets' starts: one for `total`, else aligned to the hour or the (UTC) day and stepping by
    the granularity until `end`; more than MAX_BUCKETS is refused."""
    if granularity == "total":
        return [start]
    step = STEPS[granularity]
    first = start - start % (HOUR_MS if granularity == "hourly" else 24 * HOUR_MS)
    if (end - first + step - 1) // step > MAX_BUCKETS:
        raise errors.invalid_request(
            [errors.param_error("granularity", granularity, f"At most {MAX_BUCKETS} buckets per request")]
        )
    return list(range(first, end, step))


class Analytics:
    def __init__(
        self, db: Database, clock: Clock, ids: SnowflakeGenerator, store: AnalyticsStore, posts: PostStore
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._store = store
        self._posts = posts

    async def posts(self, viewer: int, ids: list[int], start: int, end: int, granularity: str) -> Page:
        if end <= start:
            raise errors.invalid_request(
                [errors.param_error("end_time", timestamp(end), "end_time must be after start_time")]
            )
        starts = bucket_starts(start, end, granularity)
        wanted = list(dict.fromkeys(ids))
        found = {
            int(row["id"]): row for row in await self._posts.get_many(wanted) if row["deleted_at"] is None
        }
        problems: list[dict[str, Any]] = []
        mine: list[int] = []
        for post_id in wanted:
            row = found.get(post_id)
            if row is None:
                problems.append(resource_not_found_item("tweet", "ids", str(post_id)))
            elif int(row["author_id"]) != viewer:
                # Analytics are the author's alone.
                problems.append(not_authorized_for_resource_item("tweet", "ids", str(post_id), "data"))
            else:
                mine.append(post_id)
        if not mine:
            return Page([], None, problems)
        counts = await self._counts(mine, start, end, starts, granularity)
        rows = [
            {"id": post_id, "start": start, "buckets": [(at, counts[post_id][at]) for at in starts]}
            for post_id in mine
        ]
        return Page(rows, None, problems)

    async def _counts(
        self, ids: list[int], start: int, end: int, starts: list[int], granularity: str
    ) -> dict[int, dict[int, dict[str, int]]]:
        counts = {post_id: {at: dict.fromkeys(METRICS, 0) for at in starts} for post_id in ids}
        wanted = set(ids)

        def add(post_id: Any, created: int, metric: str, amount: int = 1) -> None:
            if post_id is None or int(post_id) not in wanted:
                return
            at = starts[0] if granularity == "total" else created - (created - starts[0]) % STEPS[granularity]
            bucket = counts[int(post_id)].get(at)
            if bucket is not None:
                bucket[metric] += amount

        for row in await self._store.likes(ids, start, end):
            add(
                row["post_id"], int(row["created_at"]), "likes" if row["kind"] == "like.create" else "unlikes"
            )
        for row in await self._store.references(ids, start, end):
            created = int(row["created_at"])
            add(row["in_reply_to_post_id"], created, "replies")
            add(row["quoted_post_id"], created, "quote_tweets")
            add(row["reposted_post_id"], created, "retweets")
        for row in await self._store.bookmarks(ids, start, end):
            add(row["post_id"], int(row["created_at"]), "bookmarks")
        for row in await self._store.samples(ids, start, end):
            add(row["post_id"], int(row["created_at"]), str(row["metric"]), int(row["amount"]))
        for buckets in counts.values():
            for bucket in buckets.values():
                bucket["engagements"] += sum(bucket[name] for name in INTERACTIONS)
        return counts

    async def add(self, post_id: int, body: Any) -> dict[str, int]:
        """Impressions and engagements the control plane adds to a post now; impressions also move the
        post's `impression_count`."""
        if not isinstance(body, dict) or not body:
            raise errors.invalid_body(f"an object of metrics is expected: {', '.join(ADDABLE)}")
        for name, amount in body.items():
            if name not in ADDABLE:
                raise errors.invalid_body(f"{name} cannot be added; one of {', '.join(ADDABLE)}")
            if not isinstance(amount, int) or isinstance(amount, bool) or not 0 < amount <= MAX_ADD:
                raise errors.invalid_body(f"{name} must be a positive integer")
        post = await self._posts.get(post_id)
        if post is None or post["deleted_at"] is not None:
            raise errors.not_found_problem(f"Could not find tweet with id: [{post_id}].")
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            for name, amount in body.items():
                row = {"id": self._ids.next_id(), "post_id": post_id, "metric": name, "amount": amount}
                await analytics_rows.insert_sample(tx, {**row, "created_at": now})
            if "impressions" in body:
                await analytics_rows.add_impressions(tx, post_id, int(body["impressions"]))
        return {str(name): int(amount) for name, amount in body.items()}
