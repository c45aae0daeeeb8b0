"""The admin token (`roost serve --admin-token`, `ROOST_ADMIN_TOKEN`): with it, the control plane and
the authorize pages' test-approval header answer only requests that carry `X-Roost-Admin-Token`.

Without a token the control plane stays open to whoever reaches the server (loopback by default)."""

from __future__ import annotations

import hmac
from collections.abc import Iterable

from roost.core import jsonio
from roost.core.errors import unauthorized
from roost.core.wire import Receive, Scope, Send

ADMIN_HEADER = b"x-roost-admin-token"
CONTROL_PREFIX = "/_roost"


def token_matches(expected: str, presented: str | bytes | None) -> bool:
    """Whether the presented token is the admin token, compared in constant time."""
    if presented is None:
        return False
    given = presented if isinstance(presented, bytes) else presented.encode("utf-8", "surrogateescape")
    return hmac.compare_digest(expected.encode(), given)


def presented_token(headers: Iterable[tuple[bytes, bytes]]) -> bytes | None:
    for name, value in headers:
        if name.lower() == ADMIN_HEADER:
            return value
    return None


def admitted(expected: str | None, scope: Scope) -> bool:
    """Whether a request may reach the control plane: always without a token, else with its header."""
    if not expected:
        return True
    return token_matches(expected, presented_token(scope.get("headers", ())))


async def refuse(scope: Scope, receive: Receive, send: Send) -> None:
    """The platform's plain 401 body (the token itself is never echoed or logged)."""
    error = unauthorized()
    if scope["type"] != "http":
        await send({"type": "websocket.close", "code": 1008})
        return
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [(b"content-type", error.content_type.encode())],
        }
    )
    await send({"type": "http.response.body", "body": jsonio.dumps(error.body)})
