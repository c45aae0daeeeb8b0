"""The request body cap of the parts that are not an API pipeline (the OAuth pages and token endpoints,
the control plane, compliance jobs' storage URLs), by the v2 pipeline's rule (`core/wire.read_body`):
a declared Content-Length above the cap is refused with 413 before a byte of the body is read, and a
body without a declared length (chunked) is cut at the cap.

Wrapped around an ASGI app, it reads a body under its cap whole before the app runs and hands it to
the app as one message, so nothing behind it holds more than the cap, and a client that goes away
mid-body is one log line here instead of a traceback from the app's `await request.body()`. A 413
closes the connection: the rest of the body is not waited for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roost.config import Settings
from roost.core import errors, jsonio
from roost.core.wire import ASGIApp, Receive, Scope, Send, note_disconnect

# Routes that take more than the server's cap (issue 16, docs/decisions.md): (path prefix, setting,
# default bytes). A data import carries a whole export (media bytes in base64 among it); a compliance
# job's file carries up to millions of ids.
LARGER_CAPS: tuple[tuple[str, str, int], ...] = (
    ("/_roost/import", "import_max_bytes", 64 * 1024 * 1024),
    ("/_roost/snapshot", "snapshot_max_bytes", 512 * 1024 * 1024),  # a whole state, read as one body
    ("/storage/", "compliance_upload_max_bytes", 64 * 1024 * 1024),
)
STORAGE_PREFIX = "/storage/"

Refusal = tuple[list[tuple[bytes, bytes]], bytes]


def too_large(path: str) -> Refusal:
    """The 413 in the dialect of the route: the storage service's XML error for its URLs, the
    platform's problem body elsewhere."""
    if path.startswith(STORAGE_PREFIX):
        body = (
            b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>EntityTooLarge</Code>"
            b"<Message>Your proposed upload is larger than the maximum object size specified in your "
            b"Policy Document.</Message></Error>"
        )
        return [(b"content-type", b"application/xml; charset=UTF-8")], body
    error = errors.payload_too_large()
    return [(b"content-type", error.content_type.encode())], jsonio.dumps(error.body)


class BodyCap:
    """`app` behind the body cap of each path (`cap_of`)."""

    def __init__(self, app: ASGIApp, cap_of: Callable[[str], int]) -> None:
        self.app = app
        self.cap_of = cap_of

    @classmethod
    def for_settings(cls, app: ASGIApp, settings: Settings) -> BodyCap:
        def cap_of(path: str) -> int:
            for prefix, name, default in LARGER_CAPS:
                if path.startswith(prefix):
                    return settings.whole(name, default, positive=True)
            return settings.max_body_bytes

        return cls(app, cap_of)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared: bytes | None = None
        chunked = False
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = value
            elif name == b"transfer-encoding":
                chunked = True
        if not chunked and (declared is None or declared == b"0"):
            await self.app(scope, receive, send)  # no body to read
            return
        path: str = scope.get("path", "")
        cap = self.cap_of(path)
        if declared is not None and declared.isdigit() and int(declared) > cap:
            await _refuse(scope, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                note_disconnect(scope)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > cap:
                await _refuse(scope, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        del chunks
        delivered = False

        async def replay() -> dict[str, Any]:
            nonlocal delivered
            if delivered:
                return await receive()  # what follows the body: the disconnect, when it comes
            delivered = True
            return whole

        await self.app(scope, replay, send)


async def _refuse(scope: Scope, send: Send) -> None:
    headers, body = too_large(scope.get("path", ""))
    # `connection: close`: the server closes once the answer is out, instead of taking in the rest.
    headers += [(b"content-length", b"%d" % len(body)), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
