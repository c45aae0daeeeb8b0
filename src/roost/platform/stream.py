"""Filtered stream: rules (`/2/tweets/search/stream/rules*`) and the stream itself
(`GET /2/tweets/search/stream`), which tails the event log and sends each new post that matches any of
the app's rules once, with every matching rule, rendered with the connection's fields and expansions
(`events/selectors.RuleSelector`). The connection machinery (keep-alives, limits, `/2/connections`,
usage) is `events/connections.py`; `opening` is what every stream operation hands it of the request.
"""

from __future__ import annotations

from typing import Any

from roost.core.params import CsvOf, Enum, EnumSet, IntRange, Param, Snowflake, Timestamp, Token
from roost.domain.stream_rules import COUNT_FIELDS
from roost.events.connections import Opening
from roost.platform.operations import APP, Operation, RateLimit
from roost.platform.pipeline import Call, Reply, Stream

BACKFILL_MAX_MINUTES = 5
BOOL = Enum(("true", "false"))


def opening(call: Call) -> Opening:
    """What opening a stream needs of the request (every stream operation passes it on)."""
    params = call.params
    backfill = params.get("backfill_minutes")
    return Opening(
        app_id=call.principal.app_id,
        project_id=call.principal.project_id,
        client_ip=call.client_ip,
        now_ms=call.now_ms,
        package=call.principal.package,
        start_ms=params.get("start_time"),
        end_ms=params.get("end_time"),
        end_time=call.raw.get("end_time"),
        backfill_minutes=int(backfill) if backfill else None,
    )


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
    return await call.domain.streams.filtered(opening(call), call.selection)


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
