"""JSON encoding in one place (orjson: fast, and bytes out for ASGI)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

# The encoder itself, not a wrapper: every response body goes through it.
dumps: Callable[[Any], bytes] = orjson.dumps


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)


JSONDecodeError = orjson.JSONDecodeError


def type_name(value: Any) -> str:
    """The JSON Schema name of a decoded value, as the platform's body validator words it
    (`$.x: string found, integer expected`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def shown(value: Any) -> str:
    """A body value as the platform echoes it in messages: strings as they are, the rest as JSON."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()
