"""Filtered stream: rules (`/2/tweets/search/stream/rules*`) and the stream itself
(`GET /2/tweets/search/stream`), which tails the event log and sends each new post that matches any of
the app's rules once, with every matching rule, rendered with the connection's fields and expansions.
The connection machinery (keep-alives, limits, `/2/connections`, usage) is `events/connections.py`.
"""

from __future__ import annotations

from typing import Any

from roost.core.fields import Selection
from roost.core.params import CsvOf, Enum, EnumSet, IntRange, Param, Snowflake, Timestamp, Token
from roost.core.records import Row
from roost.domain.stream_rules import COUNT_FIELDS, RULES_EVENT
from roost.events.connections import Active, StreamConnection, open_stream
from roost.events.stream_posts import POST_KINDS, post_view, public_post, render_post
from roost.events.stream_posts import line as stream_line
from roost.platform.operations import APP, Operation, RateLimit
from roost.platform.pipeline import Call, Reply, Stream
from roost.search.ruleset import RuleSet
from roost.services import Services

BACKFILL_MAX_MINUTES = 5
BOOL = Enum(("true", "false"))
FILTERED_STREAM = "filtered_stream"


# ---- rules --------------------------------------------------------------------------------------


async def get_rules(call: Call) -> dict[str, Any]:
    params = call.params
    return await call.domain.stream_rules.listing(
        call.principal.app_id, params.get("ids"), params["max_results"], params.get("pagination_token")
    )


async def update_rules(call: Call) -> Reply:
    params = call.params
    status, body = await call.domain.stream_rules.update(
        call.principal,
        call.body,
        dry_run=params.get("dry_run") == "true",
        delete_all=params.get("delete_all") == "true",
    )
    return Reply(body, status=status)


async def rule_counts(call: Call) -> dict[str, Any]:
    return await call.domain.stream_rules.counts(call.principal, call.params.get("rules_count.fields"))


# ---- the stream ---------------------------------------------------------------------------------


async def stream(call: Call) -> Stream:
    assert call.selection is not None
    selector = RuleSelector(call.services, call.principal.app_id, call.selection)
    return await open_stream(call, FILTERED_STREAM, selector)


class RuleSelector:
    """The filtered stream's selection: posts matching any of the app's rules, sent once with every
    matching rule; the rules are reloaded when a `stream_rules.update` event names the app."""

    kinds = POST_KINDS | {RULES_EVENT}
    counts_posts = True

    def __init__(self, services: Services, app_id: int, selection: Selection) -> None:
        self.services = services
        self.app_id = app_id
        self.selection = selection
        self.rules = RuleSet(services, app_id)

    async def start(self) -> None:
        await self.rules.load()

    async def line(self, event: Row) -> bytes | None:
        if str(event["kind"]) == RULES_EVENT:
            if event["object_id"] is not None and int(event["object_id"]) == self.app_id:
                await self.rules.load()
            return None
        if not len(self.rules.index):
            return None
        post = await public_post(self.services, event)
        if post is None:
            return None
        hits = self.rules.match(await post_view(self.services, post))
        if not hits:
            return None
        body = await render_post(self.services, self.selection, post)
        body["matching_rules"] = self.rules.matching_rules(hits)
        return stream_line(body)


class FilteredStream(StreamConnection):
    """A filtered-stream connection (kept for callers that build one directly)."""

    def __init__(
        self,
        services: Services,
        entry: Active,
        selection: Selection,
        position: int,
        end_ms: int | None,
    ) -> None:
        super().__init__(services, entry, RuleSelector(services, entry.app_id, selection), position, end_ms)


_view = post_view  # the earlier private name


RULES_READ = RateLimit(app=450)
RULES_WRITE = RateLimit(app=100)
STREAM_CONNECT = RateLimit(app=50)

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getRules",
        "GET",
        "/2/tweets/search/stream/rules",
        get_rules,
        (APP,),
        params=(
            Param("ids", CsvOf(Snowflake(), max_items=1000)),
            Param("max_results", IntRange(1, 1000), default=1000),
            Param("pagination_token", Token()),
        ),
        rate_limit=RULES_READ,
        tag="Tweets",
        summary="Get stream rules",
    ),
    Operation(
        # Not in the OpenAPI documents and no captured shape: the filtered-stream listing, same store.
        "getPowerstreamRules",
        "GET",
        "/2/powerstream/rules",
        get_rules,
        (APP,),
        params=(
            Param("ids", CsvOf(Snowflake(), max_items=1000)),
            Param("max_results", IntRange(1, 1000), default=1000),
            Param("pagination_token", Token()),
        ),
        rate_limit=RULES_READ,
        tag="Stream",
        summary="Get PowerStream rules",
    ),
    Operation(
        "updateRules",
        "POST",
        "/2/tweets/search/stream/rules",
        update_rules,
        (APP,),
        params=(Param("dry_run", BOOL), Param("delete_all", BOOL)),
        body=True,
        body_optional=True,  # `?delete_all=true` is sent with no body
        rate_limit=RULES_WRITE,
        tag="Tweets",
        summary="Update stream rules",
    ),
    Operation(
        "getRuleCounts",
        "GET",
        "/2/tweets/search/stream/rules/counts",
        rule_counts,
        (APP,),
        params=(Param("rules_count.fields", EnumSet(COUNT_FIELDS)),),
        rate_limit=RULES_READ,
        tag="Stream",
        summary="Get Rule Counts",
    ),
    Operation(
        "streamPosts",
        "GET",
        "/2/tweets/search/stream",
        stream,
        (APP,),
        params=(
            Param("backfill_minutes", IntRange(0, BACKFILL_MAX_MINUTES)),
            Param("start_time", Timestamp()),
            Param("end_time", Timestamp()),
        ),
        returns="tweet",
        rate_limit=STREAM_CONNECT,
        tag="Stream",
        summary="Stream filtered Posts",
    ),
)
