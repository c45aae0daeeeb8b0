"""The streams of one server (`Domain.streams`): each stream operation is one method that builds the
stream's selector and opens a `StreamConnection` on it; `end_all` ends them when the server stops.

Opening a stream checks the time window (`backfill_minutes`, `start_time`, `end_time`), the usage cap
(post streams only) and the connection limit, records the connection (recorded endpoints) and
answers the streaming 200.
"""

from __future__ import annotations

from collections.abc import Callable

from roost.config import Settings
from roost.core import errors
from roost.core.fields import Selection
from roost.core.wire import Stream
from roost.domain.packages import PACKAGES
from roost.domain.stream_ruleset import RuleSet
from roost.domain.usage import Usage
from roost.events.connections import SHUTDOWN, Endpoint, Opening, Registry, Selector, StreamConnection
from roost.events.selectors import (
    LIKE_COMPLIANCE_EVENTS,
    POST_COMPLIANCE_EVENTS,
    USER_COMPLIANCE_EVENTS,
    ActivitySelector,
    ComplianceSelector,
    LikeSelector,
    PostSelector,
    RuleSelector,
    in_sample,
    like_compliance,
    partition_of,
    partitioned,
    post_compliance,
    sampled,
    user_compliance,
)
from roost.events.stream_posts import StreamObjects
from roost.events.tail import EventLog
from roost.events.xaa import ActivityEvents

SAMPLE_PERCENT = 1
SAMPLE10_PERCENT = 10
FIREHOSE_PARTITIONS = 20
SAMPLE10_PARTITIONS = 2
COMPLIANCE_PARTITIONS = 4
# The language firehoses and their partitions (the official document: 8 for English, 2 for the rest).
LANG_PARTITIONS = {"en": 8, "ja": 2, "ko": 2, "pt": 2}
LIKES_FIREHOSE_PARTITIONS = 20
LIKES_SAMPLE10_PARTITIONS = 2
LIKES_SAMPLE10_PERCENT = 10

FILTERED = Endpoint("filtered_stream", by_package=True)  # connections and backfill by the app's package
SAMPLE = Endpoint("sample_stream")
SAMPLE10 = Endpoint("sample10_stream")
FIREHOSE = Endpoint("firehose_stream")
LANG_FIREHOSES = {lang: Endpoint(f"firehose_stream_lang_{lang}") for lang in LANG_PARTITIONS}
TWEETS_COMPLIANCE = Endpoint("tweets_compliance_stream")
USERS_COMPLIANCE = Endpoint("users_compliance_stream")
LIKES_COMPLIANCE = Endpoint("likes_compliance_stream")
LABELS = Endpoint("tweet_label_stream")
LIKES_FIREHOSE = Endpoint("likes_firehose_stream")
LIKES_SAMPLE10 = Endpoint("likes_sample10_stream")
# Not listed by /2/connections (neither document names it there): no history row; its own limit
# (2 per app) and keep-alive setting.
ACTIVITY = Endpoint(
    "activity_stream",
    limit_setting="activity_stream_connections",
    default_limit=2,
    keepalive_setting="activity_stream_keepalive_s",
    recorded=False,
)


class StreamHub:
    def __init__(
        self,
        registry: Registry,
        log: EventLog,
        objects: StreamObjects,
        usage: Usage,
        activity: ActivityEvents,
        rulesets: Callable[[int], RuleSet],  # an app's filtered-stream rules, not loaded yet
        settings: Settings,  # read live: the sample percentages
    ) -> None:
        self._registry = registry
        self._log = log
        self._objects = objects
        self._usage = usage
        self._activity = activity
        self._rulesets = rulesets
        self._settings = settings

    def end_all(self) -> int:
        """End every open stream (the server is stopping): each sends its last chunk and closes, so
        connections drain instead of being cut. Returns how many there were."""
        return self._registry.end_all(SHUTDOWN)

    def open_count(self) -> int:
        """Streams open in this process now (the metrics' gauge)."""
        return len(self._registry.active)

    async def open(
        self, opening: Opening, endpoint: Endpoint, selector: Selector, partition: int | None = None
    ) -> Stream:
        """The common connect step: time window, usage cap (post streams), connection limit, then the
        streaming 200."""
        since = opening.since_ms()
        if endpoint.by_package and opening.backfill_minutes and not PACKAGES[opening.package].stream_backfill:
            raise errors.client_forbidden(str(opening.app_id)).because(
                f"backfill_minutes is enterprise-only; the app's package is {opening.package} "
                "(docs/access-levels.md)"
            )
        if selector.counts_posts:
            await self._usage.ensure_under_cap(opening.project_id, opening.package)
        position = await self._log.start_position(since)
        entry = await self._registry.open(
            endpoint, opening.app_id, opening.project_id, partition, opening.client_ip, opening.package
        )
        connection = StreamConnection(
            entry,
            selector,
            registry=self._registry,
            log=self._log,
            usage=self._usage,
            position=position,
            end_ms=opening.end_ms,
        )
        return Stream(connection)

    def _percent(self, setting: str, default: int) -> int:
        # A feature setting so tests (and demos) can use a larger sample; the platform's is fixed.
        return min(self._settings.whole(setting, default, positive=True), 100)

    # ---- post streams -----------------------------------------------------------------------------

    async def filtered(self, opening: Opening, selection: Selection) -> Stream:
        rules = self._rulesets(opening.app_id)
        return await self.open(
            opening, FILTERED, RuleSelector(self._objects, rules, opening.app_id, selection)
        )

    async def sample(self, opening: Opening, selection: Selection) -> Stream:
        keep = sampled(self._percent("sample_stream_percent", SAMPLE_PERCENT))
        return await self.open(opening, SAMPLE, PostSelector(self._objects, selection, keep))

    async def sample10(self, opening: Opening, selection: Selection, partition: int) -> Stream:
        percent = self._percent("sample10_stream_percent", SAMPLE10_PERCENT)
        keep = sampled(percent, (partition, SAMPLE10_PARTITIONS))
        return await self.open(opening, SAMPLE10, PostSelector(self._objects, selection, keep), partition)

    async def firehose(
        self, opening: Opening, selection: Selection, partition: int, lang: str | None = None
    ) -> Stream:
        endpoint = FIREHOSE if lang is None else LANG_FIREHOSES[lang]
        partitions = FIREHOSE_PARTITIONS if lang is None else LANG_PARTITIONS[lang]
        keep = partitioned(partition, partitions, lang)
        return await self.open(opening, endpoint, PostSelector(self._objects, selection, keep), partition)

    # ---- likes streams ----------------------------------------------------------------------------

    async def likes_firehose(self, opening: Opening, selection: Selection, partition: int) -> Stream:
        def keep(like_id: str) -> bool:
            return partition_of(like_id, LIKES_FIREHOSE_PARTITIONS) == partition

        selector = LikeSelector(self._objects, selection, keep)
        return await self.open(opening, LIKES_FIREHOSE, selector, partition)

    async def likes_sample10(self, opening: Opening, selection: Selection, partition: int) -> Stream:
        percent = self._percent("likes_sample10_stream_percent", LIKES_SAMPLE10_PERCENT)

        def keep(like_id: str) -> bool:
            return (
                in_sample(like_id, percent) and partition_of(like_id, LIKES_SAMPLE10_PARTITIONS) == partition
            )

        selector = LikeSelector(self._objects, selection, keep)
        return await self.open(opening, LIKES_SAMPLE10, selector, partition)

    # ---- compliance streams -----------------------------------------------------------------------

    async def tweets_compliance(self, opening: Opening, partition: int) -> Stream:
        selector = ComplianceSelector(
            self._objects, POST_COMPLIANCE_EVENTS, post_compliance, (partition, COMPLIANCE_PARTITIONS)
        )
        return await self.open(opening, TWEETS_COMPLIANCE, selector, partition)

    async def users_compliance(self, opening: Opening, partition: int) -> Stream:
        selector = ComplianceSelector(
            self._objects,
            USER_COMPLIANCE_EVENTS,
            user_compliance,
            (partition, COMPLIANCE_PARTITIONS),
            key="user_id",
        )
        return await self.open(opening, USERS_COMPLIANCE, selector, partition)

    async def likes_compliance(self, opening: Opening) -> Stream:
        selector = ComplianceSelector(self._objects, LIKE_COMPLIANCE_EVENTS, like_compliance)
        return await self.open(opening, LIKES_COMPLIANCE, selector)

    async def labels(self, opening: Opening) -> Stream:
        # roost applies no labels to posts, so this stream only ever sends keep-alives.
        selector = ComplianceSelector(self._objects, frozenset(), like_compliance)
        return await self.open(opening, LABELS, selector)

    # ---- activity events --------------------------------------------------------------------------

    async def activity(self, opening: Opening) -> Stream:
        return await self.open(opening, ACTIVITY, ActivitySelector(self._activity, opening.app_id))
