"""The admin token (`roost serve --admin-token`, `ROOST_ADMIN_TOKEN`): with it, the control plane and
the authorize pages' test-approval header answer only requests that carry `X-Roost-Admin-Token`, or
the console's session cookie (browsers cannot add a header when they navigate), which the console's
login page sets for whoever gives it the token.

Without a token the control plane stays open to whoever reaches the server (loopback by default)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from http.cookies import CookieError, SimpleCookie

from roost.core import jsonio
from roost.core.errors import unauthorized
from roost.core.wire import Receive, Scope, Send

ADMIN_HEADER = b"x-roost-admin-token"
CONTROL_PREFIX = "/_roost"
CONSOLE_PREFIX = "/_roost/console"
LOGIN_PATH = "/_roost/console/login"
STATIC_PREFIX = "/_roost/console/static/"  # the login page's style sheet and script: nothing secret
SESSION_COOKIE = "roost_console"


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


def session_value(expected: str) -> str:
    """The console cookie's value for an admin token: derived from it, so the token itself is never
    stored in the browser, and changing the token ends every session."""
    return hmac.new(expected.encode(), b"roost console session", hashlib.sha256).hexdigest()


def presented_session(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name.lower() == b"cookie":
            try:
                jar = SimpleCookie(value.decode("latin-1"))
            except CookieError:
                continue
            morsel = jar.get(SESSION_COOKIE)
            if morsel is not None:
                return morsel.value
    return None


def session_matches(expected: str, presented: str | None) -> bool:
    if presented is None:
        return False
    return hmac.compare_digest(session_value(expected).encode(), presented.encode("utf-8", "replace"))


def admitted(expected: str | None, scope: Scope) -> bool:
    """Whether a request may reach the control plane: always without a token, else with its header
    or the console's session cookie; the console's login page and its static files always."""
    if not expected:
        return True
    path: str = scope.get("path", "")
    if path == LOGIN_PATH or path.startswith(STATIC_PREFIX):
        return True
    headers = scope.get("headers", ())
    return token_matches(expected, presented_token(headers)) or session_matches(
        expected, presented_session(headers)
    )


async def refuse(scope: Scope, receive: Receive, send: Send) -> None:
    """The platform's plain 401 body (the token itself is never echoed or logged)."""
    error = unauthorized()
    if scope["type"] != "http":
        await send({"type": "websocket.close", "code": 1008})
        return
    path: str = scope.get("path", "")
    wants_page = any(
        name.lower() == b"accept" and b"text/html" in value for name, value in scope.get("headers", ())
    )
    if scope.get("method") == "GET" and wants_page and (path.startswith(CONSOLE_PREFIX) or path == "/_roost"):
        # A browser opening a console page is sent to sign in rather than shown a JSON 401.
        headers = [(b"location", LOGIN_PATH.encode()), (b"content-length", b"0")]
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
        return
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [(b"content-type", error.content_type.encode())],
        }
    )
    await send({"type": "http.response.body", "body": jsonio.dumps(error.body)})
