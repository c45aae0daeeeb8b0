"""`/2/connections`: the app's active and historical streaming connections (in every server process
sharing the database), and deleting them — a deleted connection gets the in-band
`operational-disconnect` line (`ForceDisconnect`) and is closed, whichever process holds it. Also
`GET /2/usage/tweets`, the project's post usage."""

from __future__ import annotations

from typing import Any

from roost.core import errors, pagination
from roost.core.clock import iso_ms
from roost.core.params import Enum, EnumSet, IntRange, Param, Token
from roost.core.records import Row
from roost.events.connections import active_rows, fresh_since, terminate
from roost.platform.operations import APP, Operation, RateLimit
from roost.platform.pipeline import Call
from roost.storage.streams import StreamStore

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
MAX_UUIDS = 100


# ---- listing --------------------------------------------------------------------------------------


def _history_item(row: Row, fields: frozenset[str]) -> dict[str, Any]:
    """A connection as listed: id, endpoint_name and connected_at always (2.159 requires the last
    two); the rest when asked for and known."""
    item: dict[str, Any] = {
        "id": str(row["id"]),
        "endpoint_name": str(row["endpoint"]),
        "connected_at": iso_ms(int(row["connected_at"])),
    }
    if "disconnected_at" in fields and row["disconnected_at"] is not None:
        item["disconnected_at"] = iso_ms(int(row["disconnected_at"]))
    if "disconnect_reason" in fields and row["disconnect_reason"] is not None:
        item["disconnect_reason"] = row["disconnect_reason"]
    if "client_ip" in fields and row.get("client_ip"):
        item["client_ip"] = row["client_ip"]
    return item


def _cursor(call: Call) -> tuple[int, str] | None:
    """The `pagination_token`: the (connected_at, id) of the last connection of the previous page."""
    token = call.params.get("pagination_token")
    if token is None:
        return None
    at, _, ident = token.key(_PAGE_SCOPE).partition(":")
    if not (at.isascii() and at.isdigit() and ident):
        raise token.invalid()
    return int(at), ident


def _token(item: dict[str, Any], connected_at: int) -> str:
    return pagination.encode_key(f"{connected_at}:{item['id']}", _PAGE_SCOPE)


_PAGE_SCOPE = "connections"


async def list_connections(call: Call) -> dict[str, Any]:
    params, app_id = call.params, call.principal.app_id
    status, limit = params["status"], int(params["max_results"])
    endpoints: frozenset[str] | None = params.get("endpoints")
    fields: frozenset[str] = params.get("connection.fields") or frozenset()
    cursor = _cursor(call)

    def after_cursor(connected_at: int, ident: str) -> bool:
        return cursor is None or (-connected_at, ident) > (-cursor[0], cursor[1])

    found: list[tuple[int, str, dict[str, Any]]] = []  # newest first, then by id
    if status in ("active", "all"):
        found.extend(
            (int(row["connected_at"]), str(row["id"]), _history_item(row, fields))
            for row in await active_rows(call.services, app_id)
            if (endpoints is None or row["endpoint"] in endpoints)
            and after_cursor(int(row["connected_at"]), str(row["id"]))
        )
    if status in ("inactive", "all"):
        store = StreamStore(call.services.db)
        before_at, after_id = cursor if cursor is not None else (1 << 62, "")
        fresh = fresh_since(call.services)
        # Read in chunks until the page (and one more, for next_token) is filled after filtering.
        while True:
            rows = await store.inactive_of_app(app_id, 200, fresh, before_at, after_id)
            found.extend(
                (int(row["connected_at"]), str(row["id"]), _history_item(row, fields))
                for row in rows
                if endpoints is None or row["endpoint"] in endpoints
            )
            if len(rows) < 200 or len(found) > limit:
                break
            before_at, after_id = int(rows[-1]["connected_at"]), str(rows[-1]["id"])
    found.sort(key=lambda f: (-f[0], f[1]))
    page = found[:limit]
    meta: dict[str, Any] = {"result_count": len(page)}
    if len(found) > limit:
        meta["next_token"] = _token(page[-1][2], page[-1][0])
    body: dict[str, Any] = {"meta": meta}
    if page:
        body["data"] = [item for _, _, item in page]
    return body


# ---- deleting -------------------------------------------------------------------------------------


async def _kills(call: Call, chosen: list[str], missing: list[str] | None = None) -> dict[str, Any]:
    missing = missing or []
    await terminate(call.services, call.principal.app_id, chosen)
    results: list[dict[str, Any]] = [{"uuid": ident, "success": True} for ident in chosen]
    results.extend({"uuid": u, "success": False, "error_message": "Connection not found"} for u in missing)
    return {"data": {"successful_kills": len(chosen), "failed_kills": len(missing), "results": results}}


async def _open_ids(call: Call) -> dict[str, str]:
    """The app's open connections (uuid → endpoint) in every process."""
    return {
        str(row["id"]): str(row["endpoint"])
        for row in await active_rows(call.services, call.principal.app_id)
    }


async def delete_all(call: Call) -> dict[str, Any]:
    return await _kills(call, list(await _open_ids(call)))


async def delete_by_endpoint(call: Call) -> dict[str, Any]:
    endpoint = call.params["endpoint_id"]
    return await _kills(call, [ident for ident, name in (await _open_ids(call)).items() if name == endpoint])


def _uuids(body: Any) -> list[str]:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: must be an object")
    extra = sorted(set(body) - {"uuids"})
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    uuids = body.get("uuids")
    if uuids is None:
        raise errors.invalid_body("$.uuids: is missing but it is required")
    if not isinstance(uuids, list) or not all(isinstance(u, str) for u in uuids):
        raise errors.invalid_body("$.uuids: must be an array of strings")
    if not 1 <= len(uuids) <= MAX_UUIDS:
        raise errors.invalid_body(f"$.uuids: must have between 1 and {MAX_UUIDS} items")
    return list(dict.fromkeys(uuids))


async def delete_by_uuids(call: Call) -> dict[str, Any]:
    uuids = _uuids(call.body)
    mine = await _open_ids(call)
    return await _kills(call, [u for u in uuids if u in mine], [u for u in uuids if u not in mine])


# ---- usage ----------------------------------------------------------------------------------------


async def get_usage(call: Call) -> dict[str, Any]:
    principal = call.principal
    return await call.domain.usage.report(
        principal.project_id, principal.app_id, int(call.params["days"]), call.params.get("usage.fields")
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
