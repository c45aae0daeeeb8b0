"""`GET /2/openapi.json`: the OpenAPI document generated from the operation table, with response
schemas typed from the fields engine's object kinds (`openapi_schemas.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.core.fields import FieldsEngine
from roost.platform.openapi_schemas import (
    PROBLEM,
    component_schemas,
    ref,
    request_body_schema,
    success_schema,
)
from roost.platform.operations import APP, OAUTH1, OAUTH2, Operation

_SECURITY = {APP: "BearerToken", OAUTH1: "UserToken", OAUTH2: "OAuth2UserToken"}


def build_document(operations: Sequence[Operation], engine: FieldsEngine, version: str) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for op in operations:
        parameters: list[dict[str, Any]] = []
        for param in op.params:
            parameter = {
                "name": param.name,
                "in": "path" if param.in_path else "query",
                "required": param.required or param.in_path,
                "schema": param.kind.openapi,
            }
            if not param.in_path:  # lists as `a,b,c`; a path parameter has the default style, simple
                parameter.update(style="form", explode=False)
            parameters.append(parameter)
        if op.returns and op.selectable:
            parameters.extend(_field_parameters(engine, op.returns))
        security = []
        for kind in op.auth:
            scopes = list(op.scopes) if kind == OAUTH2 else []
            security.append({_SECURITY[kind]: scopes})
        entry: dict[str, Any] = {
            "operationId": op.operation_id,
            "summary": op.summary,
            "tags": [op.tag] if op.tag else [],
            "parameters": parameters,
            "security": security,
            "responses": {
                str(op.status): {
                    "description": "The request has succeeded.",
                    "content": {"application/json": {"schema": success_schema(op, engine)}},
                },
                "default": {
                    "description": "The request has failed.",
                    "content": {"application/problem+json": {"schema": ref(PROBLEM)}},
                },
            },
        }
        if op.body or op.raw_body:  # raw bodies: file uploads, as multipart parts or base64 in JSON
            entry["requestBody"] = {
                "required": not op.body_optional,
                "content": request_body_schema(op),
            }
        paths.setdefault(op.path, {})[op.method.lower()] = entry
    return {
        "openapi": "3.0.0",
        "info": {
            "title": "roost: platform API v2",
            "version": version,
            "description": "Operations served by this roost server.",
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "BearerToken": {"type": "http", "scheme": "bearer"},
                "UserToken": {"type": "http", "scheme": "OAuth"},
                "OAuth2UserToken": {
                    "type": "oauth2",
                    "flows": {
                        "authorizationCode": {
                            "authorizationUrl": "/i/oauth2/authorize",
                            "tokenUrl": "/2/oauth2/token",
                            "scopes": {},
                        }
                    },
                },
            },
            "schemas": component_schemas(engine),
        },
    }


def _field_parameters(engine: FieldsEngine, primary: str) -> list[dict[str, Any]]:
    out = []
    if engine.expansions.get(primary):
        out.append(_csv("expansions", engine.expansion_names(primary)))
    for kind_name in engine.related_kinds(primary):
        kind = engine.kinds[kind_name]
        for param in kind.params:
            out.append(_csv(param, list(kind.fields)))
    return out


def _csv(name: str, values: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "style": "form",
        "explode": False,
        "schema": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string", "enum": values},
        },
    }
