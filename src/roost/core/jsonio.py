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
