"""Response schemas of the generated OpenAPI document: one component per object kind of the fields
engine, and each operation's 200 envelope (`data`, `includes`, `meta`, `errors`) as roost answers it."""

from __future__ import annotations

from typing import Any

from roost.core.fields import FieldsEngine
from roost.platform.openapi_types import ANY_OBJECT, INTEGER, KIND_TYPES, STRING, Schema, array, obj
from roost.platform.operations import Operation

PROBLEM = "Problem"
META = "Meta"
# Operations that take the selection parameters of a kind but answer a plain body of their own.
_PLAIN_DESPITE_RETURNS = frozenset({"createWebhooksStreamLink"})
# Path segments after which an operation answers one object: `/2/tweets/{id}`, `/2/users/me`.
_SINGLE_TAILS = ("}", "/me")


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def component_schemas(engine: FieldsEngine) -> dict[str, Schema]:
    """`components.schemas`: the problem, the meta object and one schema per object kind."""
    schemas: dict[str, Schema] = {
        PROBLEM: {
            "type": "object",
            "description": "An error: the whole answer's (with a 4xx or 5xx status) or one item's "
            "partial error under `errors` of a 200 answer.",
            "required": ["title"],
            "properties": {
                "type": STRING,
                "title": STRING,
                "detail": STRING,
                "status": INTEGER,
                "value": STRING,
                "parameter": STRING,
                "resource_type": STRING,
                "resource_id": STRING,
                "section": STRING,
                "message": STRING,
                "code": INTEGER,
            },
        },
        META: obj(
            result_count=INTEGER,
            newest_id=STRING,
            oldest_id=STRING,
            next_token=STRING,
            previous_token=STRING,
            total_tweet_count=INTEGER,
        ),
    }
    for kind in engine.kinds.values():
        name, types, required = kind_types(kind.name)
        properties: dict[str, Schema] = {}
        for field in kind.fields:
            properties[field] = types[field]
        for alias in kind.aliases:  # the post vocabulary's names for the same fields
            properties[alias] = types.get(alias, types[kind.aliases[alias]])
        schema: Schema = {"type": "object", "properties": dict(sorted(properties.items()))}
        if required:
            schema["required"] = list(required)
        schemas[name] = schema
    return schemas


def kind_types(kind: str) -> tuple[str, dict[str, Schema], tuple[str, ...]]:
    """(component name, field types, required members) of an object kind; a kind the table does not
    know yet is an open object named after it."""
    known = KIND_TYPES.get(kind)
    if known is not None:
        return known
    return "".join(part.title() for part in kind.split("_")), _Open(), ()


class _Open(dict[str, Schema]):
    def __missing__(self, key: str) -> Schema:
        return {}


def answers_one(op: Operation) -> bool:
    """Whether `data` is one object (a lookup by id or `me`, a creation) rather than a list, or one
    line of a stream (each line carries one object)."""
    if "stream" in op.path.split("/"):
        return True
    if op.method != "GET":
        return True
    return op.path.endswith(_SINGLE_TAILS) and not op.query_params


def success_schema(op: Operation, engine: FieldsEngine) -> Schema:
    """The 200 (or 201) body: objects of the kind the operation returns, or its plain result."""
    envelope: dict[str, Schema] = {"errors": array(ref(PROBLEM)), "meta": ref(META)}
    if op.returns and op.operation_id not in _PLAIN_DESPITE_RETURNS:
        kind_ref = ref(kind_types(op.returns)[0])
        envelope["data"] = kind_ref if answers_one(op) else array(kind_ref)
        includes = _includes(engine, op.returns)
        if includes:
            envelope["includes"] = obj(**includes)
        if "stream" in op.path.split("/"):
            envelope["matching_rules"] = array(obj(id=STRING, tag=STRING))
    else:
        envelope["data"] = {
            "description": "The operation's result: an object or a list of objects.",
            "oneOf": [ANY_OBJECT, array(ANY_OBJECT)],
        }
    return {"type": "object", "properties": envelope}


def _includes(engine: FieldsEngine, primary: str) -> dict[str, Schema]:
    """`includes` members: each kind an expansion of `primary` reaches, under both vocabularies' keys."""
    members: dict[str, Schema] = {}
    for expansion in engine.expansions.get(primary, ()):
        target = engine.kinds[expansion.target]
        for key in dict.fromkeys(target.include_keys.values()):
            members[key] = array(ref(kind_types(target.name)[0]))
    return members


def request_body_schema(op: Operation) -> dict[str, Any]:
    """The request body: JSON for most writes; uploads also take multipart parts."""
    if op.raw_body:
        return {
            "multipart/form-data": {"schema": ANY_OBJECT},
            "application/json": {"schema": ANY_OBJECT},
        }
    return {"application/json": {"schema": ANY_OBJECT}}
