"""`/2/connections`: the app's active and historical streaming connections (in every server process
sharing the database), and deleting them — a deleted connection gets the in-band
`operational-disconnect` line (`ForceDisconnect`) and is closed, whichever process holds it. Also
`GET /2/usage/tweets`, the project's post usage."""

from __future__ import annotations

from typing import Any

from roost.core.params import Enum, EnumSet, IntRange, Param, Token
from roost.platform.operations import APP, Operation, RateLimit
from roost.platform.pipeline import Call

ENDPOINTS = (
    "filtered_stream",
    "sample_stream",
    "sample10_stream",
    "firehose_stream",
    "tweets_compliance_stream",
    "users_compliance_stream",
    "tweet_label_stream",
    "firehose_stream_lang_en",
    "firehose_stream_lang_ja",
    "firehose_stream_lang_ko",
    "firehose_stream_lang_pt",
    "likes_firehose_stream",
    "likes_sample10_stream",
    "likes_compliance_stream",
)
CONNECTION_FIELDS = (
    "client_ip",
    "connected_at",
    "disconnect_reason",
    "disconnected_at",
    "endpoint_name",
    "id",
)
USAGE_FIELDS = (
    "cap_reset_day",
    "daily_client_app_usage",
    "daily_project_usage",
    "project_cap",
    "project_id",
    "project_usage",
)


async def list_connections(call: Call) -> dict[str, Any]:
    params = call.params
    return await call.domain.connections.listing(
        call.principal.app_id,
        params["status"],
        params.get("endpoints"),
        int(params["max_results"]),
        params.get("pagination_token"),
        params.get("connection.fields"),
    )


async def delete_all(call: Call) -> dict[str, Any]:
    return await call.domain.connections.delete_all(call.principal.app_id)


async def delete_by_endpoint(call: Call) -> dict[str, Any]:
    return await call.domain.connections.delete_endpoint(call.principal.app_id, call.params["endpoint_id"])


async def delete_by_uuids(call: Call) -> dict[str, Any]:
    return await call.domain.connections.delete_uuids(call.principal.app_id, call.body)


async def get_usage(call: Call) -> dict[str, Any]:
    principal = call.principal
    return await call.domain.usage.report(
        principal.project_id,
        principal.app_id,
        principal.package,
        int(call.params["days"]),
        call.params.get("usage.fields"),
    )


CONNECTIONS_READ = RateLimit(app=450)  # no published figure: the rule-listing limit
CONNECTIONS_DELETE = RateLimit(app=50)  # no published figure: the stream connect limit
USAGE_READ = RateLimit(app=50)

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getConnectionHistory",
        "GET",
        "/2/connections",
        list_connections,
        (APP,),
        params=(
            Param("status", Enum(("active", "inactive", "all")), default="active"),
            Param("endpoints", EnumSet(ENDPOINTS)),
            Param("max_results", IntRange(1, 100), default=10),
            Param("pagination_token", Token()),
            Param("connection.fields", EnumSet(CONNECTION_FIELDS)),
        ),
        rate_limit=CONNECTIONS_READ,
        tag="Connections",
        summary="Get Connection History",
    ),
    Operation(
        "deleteAllConnections",
        "DELETE",
        "/2/connections/all",
        delete_all,
        (APP,),
        rate_limit=CONNECTIONS_DELETE,
        tag="Connections",
        summary="Terminate all connections",
    ),
    Operation(
        "deleteConnectionsByEndpoint",
        "DELETE",
        "/2/connections/{endpoint_id}",
        delete_by_endpoint,
        (APP,),
        params=(Param("endpoint_id", Enum(ENDPOINTS), required=True, in_path=True),),
        rate_limit=CONNECTIONS_DELETE,
        tag="Connections",
        summary="Terminate connections by endpoint",
    ),
    Operation(
        "deleteConnectionsByUuids",
        "DELETE",
        "/2/connections",
        delete_by_uuids,
        (APP,),
        body=True,
        rate_limit=CONNECTIONS_DELETE,
        tag="Connections",
        summary="Terminate multiple connections",
    ),
    Operation(
        "getUsage",
        "GET",
        "/2/usage/tweets",
        get_usage,
        (APP,),
        params=(Param("days", IntRange(1, 90), default=7), Param("usage.fields", EnumSet(USAGE_FIELDS))),
        rate_limit=USAGE_READ,
        tag="Usage",
        summary="Get Usage",
    ),
)
