"""Filtered stream: rules (`/2/tweets/search/stream/rules*`) and the stream itself
(`GET /2/tweets/search/stream`), which tails the event log and sends each new post that matches any of
the app's rules once, with every matching rule, rendered with the connection's fields and expansions.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from roost.core import errors, jsonio
from roost.core.fields import FieldsEngine, RenderContext, Selection
from roost.core.operations import APP, Operation, RateLimit
from roost.core.params import CsvOf, Enum, EnumSet, IntRange, Param, Snowflake, Timestamp, Token
from roost.core.pipeline import Call, Reply, Stream
from roost.domain import stream_rules
from roost.domain.lookup import StoreLoader, visible_post
from roost.domain.objects import EXPANSIONS, KINDS
from roost.domain.stream_rules import COUNT_FIELDS, RULES_EVENT, StreamRuleService
from roost.events.tail import DEFAULT_KEEPALIVE_S, Slots, Tail
from roost.search.ast import QueryError
from roost.search.index import RuleIndex
from roost.search.view import PostView, view_of
from roost.services import Services
from roost.storage.activity import ActivityStore
from roost.storage.db import Row
from roost.storage.stream_rules import StreamRuleStore

log = logging.getLogger("roost.stream")

BACKFILL_MAX_MINUTES = 5
POST_KINDS = frozenset({"post.create", "post.edit"})
BOOL = Enum(("true", "false"))
SLOTS = Slots("stream_connection_limit", 1)
FIRST_REBALANCE = 1_000  # posts seen before the rule index first re-anchors on the observed traffic
_engine: FieldsEngine | None = None


def _fields_engine() -> FieldsEngine:
    """The post kinds of the fields engine (the request's selection was parsed by the pipeline's)."""
    global _engine
    if _engine is None:
        _engine = FieldsEngine(KINDS, EXPANSIONS)
    return _engine


# ---- rules --------------------------------------------------------------------------------------


async def get_rules(call: Call) -> dict[str, Any]:
    params = call.params
    return await StreamRuleService(call.services).listing(
        call.principal.app_id, params.get("ids"), params["max_results"], params.get("pagination_token")
    )


async def update_rules(call: Call) -> Reply:
    params = call.params
    status, body = await StreamRuleService(call.services).update(
        call.principal,
        call.body,
        dry_run=params.get("dry_run") == "true",
        delete_all=params.get("delete_all") == "true",
    )
    return Reply(body, status=status)


async def rule_counts(call: Call) -> dict[str, Any]:
    return await StreamRuleService(call.services).counts(
        call.principal, call.params.get("rules_count.fields")
    )


# ---- the stream ---------------------------------------------------------------------------------


async def stream(call: Call) -> Stream:
    services, params = call.services, call.params
    start, end = params.get("start_time"), params.get("end_time")
    if start is not None and end is not None and end <= start:
        raise errors.invalid_request(
            [errors.param_error("end_time", call.raw["end_time"], "end_time must be after start_time")]
        )
    since = start
    if since is None and params.get("backfill_minutes"):
        since = call.now_ms - int(params["backfill_minutes"]) * 60_000
    store = ActivityStore(services.db)
    position = await store.max_position()
    if since is not None:
        before = await store.position_before(since)
        position = position if before is None else min(before, position)
    assert call.selection is not None
    if not SLOTS.acquire(services, call.principal.app_id):
        raise errors.streaming_connection("TooManyConnections")
    return Stream(FilteredStream(services, call.principal.app_id, call.selection, position, end))


class RuleSet:
    """The app's rules as a `RuleIndex`, reloaded (as a difference) when the app's rules change."""

    def __init__(self, services: Services, app_id: int) -> None:
        self.services = services
        self.app_id = app_id
        self.index = RuleIndex()
        self.tags: dict[int, str | None] = {}
        self._values: dict[int, str] = {}
        self._next_rebalance = FIRST_REBALANCE
        self._seen = 0

    def match(self, view: PostView) -> list[int]:
        """The matching rule ids. The index also learns which terms are common in the traffic and
        re-anchors its rules on rare ones after 1,000, 10,000, … posts (results never change)."""
        index = self.index
        index.observe(view)
        self._seen += 1
        if self._seen >= self._next_rebalance:
            self._next_rebalance *= 10
            index.rebalance()
        return index.match(view)

    async def load(self) -> None:
        found = {int(r["id"]): r for r in await StreamRuleStore(self.services.db).all_of_app(self.app_id)}
        for rule_id in [r for r in self._values if r not in found]:
            self.index.remove(rule_id)
            self._values.pop(rule_id, None)
            self.tags.pop(rule_id, None)
        limit = max(stream_rules.max_length(self.services), 4096)
        for rule_id, row in found.items():
            if self._values.get(rule_id) == row["value"]:
                continue
            try:
                query = stream_rules.parse_rule(str(row["value"]), limit)
            except QueryError:
                log.warning("stream rule %s no longer parses; skipped", rule_id)
                continue
            self.index.add(rule_id, query)
            self._values[rule_id] = str(row["value"])
            self.tags[rule_id] = row["tag"]


class FilteredStream:
    """The lines of one connection; closing it frees the app's connection slot (even unstarted)."""

    def __init__(
        self, services: Services, app_id: int, selection: Selection, position: int, end_ms: int | None
    ) -> None:
        self._services = services
        self._app_id = app_id
        self._selection = selection
        self._lines = self._run(position, end_ms)
        self._released = False

    def __aiter__(self) -> FilteredStream:
        return self

    async def __anext__(self) -> bytes:
        return await self._lines.__anext__()

    async def aclose(self) -> None:
        try:
            await self._lines.aclose()
        finally:
            if not self._released:
                self._released = True
                SLOTS.release(self._services, self._app_id)

    async def _run(self, position: int, end_ms: int | None) -> AsyncIterator[bytes]:
        services = self._services
        keepalive = services.settings.number("stream_keepalive_s", DEFAULT_KEEPALIVE_S, positive=True)
        rules = RuleSet(services, self._app_id)
        await rules.load()
        tail = Tail(services, position, keepalive, end_ms)
        async for batch in tail.batches():
            if not batch:
                yield b"\r\n"
                continue
            for event in batch:
                kind = str(event["kind"])
                if kind == RULES_EVENT:
                    if event["object_id"] is not None and int(event["object_id"]) == self._app_id:
                        await rules.load()
                    continue
                if kind not in POST_KINDS or not len(rules.index):
                    continue
                line = await self._line(rules, event)
                if line is not None:
                    yield line
                    tail.wrote()

    async def _line(self, rules: RuleSet, event: Row) -> bytes | None:
        services = self._services
        try:
            post_id = int(jsonio.loads(event["payload"])["post_id"])
        except (KeyError, TypeError, ValueError):
            return None  # a row not following the conventions is skipped
        post = await services.posts.get(post_id)
        if post is None or not visible_post(post):
            return None
        author_id = int(post["author_id"])
        if author_id in await services.users.protected_ids():
            return None  # posts of protected accounts are never streamed
        hits = rules.match(await _view(services, post))
        if not hits:
            return None
        selection = self._selection
        context = RenderContext(selection.vocab, None, now_ms=services.clock.now_ms())
        rendered = await _fields_engine().render(
            "tweet", [post], selection, StoreLoader(services, None), context
        )
        body: dict[str, Any] = {"data": rendered.data[0]}
        if rendered.includes:
            body["includes"] = rendered.includes
        if rendered.errors:
            body["errors"] = rendered.errors
        matching = []
        for rule_id in hits:
            item: dict[str, Any] = {"id": str(rule_id)}
            tag = rules.tags.get(rule_id)
            if tag is not None:
                item["tag"] = tag
            matching.append(item)
        body["matching_rules"] = matching
        return jsonio.dumps(body) + b"\r\n"


async def _view(services: Services, post: Row) -> Any:
    """The matcher's view of a post, with the rows its operators read."""

    author = await services.users.get(int(post["author_id"]))
    quoted = None
    if post["quoted_post_id"] is not None:
        quoted = await services.posts.get(int(post["quoted_post_id"]))
    place = None
    if post["place_id"]:
        places = await services.users.places_many([post["place_id"]])
        place = places[0] if places else None
    media_types: list[str] = []
    if post["media_keys"]:
        keys = jsonio.loads(post["media_keys"]) or []
        if keys:
            media_types = [str(m["type"]) for m in await services.users.media_many(keys)]
    reply_to = None
    if post["in_reply_to_user_id"] is not None:
        reply_to = await services.users.get(int(post["in_reply_to_user_id"]))
    reposted_author = None
    if post["reposted_post_id"] is not None:
        reposted = await services.posts.get(int(post["reposted_post_id"]))
        if reposted is not None:
            reposted_author = await services.users.get(int(reposted["author_id"]))
    return view_of(
        post,
        author,
        quoted,
        place=place,
        media_types=media_types,
        in_reply_to_user=reply_to,
        retweeted_author=reposted_author,
    )


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
