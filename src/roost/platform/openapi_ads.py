"""`GET /12/openapi.json`: the Ads API's OpenAPI document, generated from roost's ads operation table
(`ads/api/registry.py`). Production answers at the server's root, the sandbox under `/sandbox`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.ads.operations import AdsOperation
from roost.ads.params import AdsParam, Bool, Enum, EnumList, Long, LongList, SortBy, TextList, Time
from roost.platform.openapi_types import ANY_OBJECT, INTEGER, STRING, Schema, array, obj

_ENVELOPE = "AdsResponse"
_ERRORS = "AdsErrors"


def build_ads_document(operations: Sequence[AdsOperation]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for op in operations:
        version = op.versions[0]  # the current one; the others answer the same
        entry: dict[str, Any] = {
            "operationId": f"ads_{op.operation_id}_v{version}",
            "summary": op.summary or f"{op.method} {op.path}",
            "tags": [_tag(op.path)],
            "parameters": [_parameter(param) for param in op.params],
            "security": [{"OAuth1UserContext": []}],
            "responses": {
                str(op.status): {
                    "description": "The request has succeeded.",
                    "content": {"application/json": {"schema": _ref(_ENVELOPE)}},
                },
                "default": {
                    "description": "The request has failed.",
                    "content": {"application/json": {"schema": _ref(_ERRORS)}},
                },
            },
        }
        notes = [f"Also served as /{other}{op.path}." for other in op.versions[1:]]
        if op.sandbox_only:
            notes.append("Sandbox only: use the `/sandbox` server.")
        if notes:
            entry["description"] = " ".join(notes)
        if op.body == "json":
            entry["requestBody"] = {"required": True, "content": {"application/json": {"schema": ANY_OBJECT}}}
        paths.setdefault(f"/{version}{op.path}", {})[op.method.lower()] = entry
    return {
        "openapi": "3.0.0",
        "info": {
            "title": "roost: Advertising Management API",
            "version": "12",
            "description": "Ads operations served by this roost server, signed with OAuth 1.0a user "
            "context. Parameters go in the query string, for writes too.",
        },
        "servers": [
            {"url": "/", "description": "production"},
            {"url": "/sandbox", "description": "sandbox"},
        ],
        "paths": paths,
        "components": {
            "securitySchemes": {"OAuth1UserContext": {"type": "http", "scheme": "OAuth"}},
            "schemas": {
                _ENVELOPE: obj(
                    request=obj(params=ANY_OBJECT),
                    data={
                        "description": "One entity, or a list of them.",
                        "oneOf": [ANY_OBJECT, array(ANY_OBJECT)],
                    },
                    next_cursor={**STRING, "nullable": True},
                    total_count=INTEGER,
                    data_type=STRING,
                ),
                _ERRORS: obj(
                    errors=array(obj(code=STRING, message=STRING, parameter=STRING)),
                    request=obj(params=ANY_OBJECT),
                ),
            },
        },
    }


def _ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _tag(path: str) -> str:
    """The resource a path is about: `/accounts/{account_id}/line_items/{id}` → line_items,
    `/targeting_criteria/locations` → targeting_criteria, `/accounts/{account_id}` → accounts."""
    literal = [part for part in path.strip("/").split("/") if part and not part.startswith("{")]
    if literal[:1] == ["accounts"] and len(literal) > 1:
        return literal[1]
    return literal[0] if literal else "accounts"


def _parameter(param: AdsParam) -> dict[str, Any]:
    if param.in_path:
        return {"name": param.name, "in": "path", "required": True, "schema": STRING}
    parameter: dict[str, Any] = {
        "name": param.name,
        "in": "query",
        "required": param.required,
        "schema": _schema(param),
    }
    if isinstance(param.kind, EnumList | TextList | LongList):
        parameter.update(style="form", explode=False)  # comma-joined
    return parameter


def _schema(param: AdsParam) -> Schema:
    kind = param.kind
    if isinstance(kind, Bool):
        return {"type": "boolean"}
    if isinstance(kind, Long):
        return INTEGER
    if isinstance(kind, Enum):
        return {"type": "string", "enum": list(kind.values)}
    if isinstance(kind, EnumList):
        return array({"type": "string", "enum": list(kind.values)})
    if isinstance(kind, LongList):
        return array(INTEGER)
    if isinstance(kind, TextList):
        return array(STRING)
    if isinstance(kind, Time):
        return {"type": "string", "format": "date-time"}
    if isinstance(kind, SortBy):
        return {"type": "string", "description": "attribute-asc or attribute-desc"}
    return STRING
