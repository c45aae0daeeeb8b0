"""The ASGI wire: request bodies and query strings in, status, headers and bodies out.

Shared by the v2 pipeline and the ads pipeline. Response headers travel as pre-encoded byte pairs:
the values that repeat on every response (api-version, content types, access levels, rate-limit
numbers) are encoded once and reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from roost.core import errors
from roost.core.ratelimit import Window

log = logging.getLogger("roost.pipeline")

RawHeaders = list[tuple[bytes, bytes]]
# The ASGI interface's three parts, as far as roost relies on them.
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(slots=True)
class Stream:
    """A streaming 200: each chunk is sent as `chunks` yields it; the iterator's `aclose` (if it has
    one) runs when it ends or the client goes away."""

    chunks: AsyncIterator[bytes]
    content_type: str = errors.JSON
    headers: dict[str, str] = field(default_factory=dict)


_ENCODED: dict[str, bytes] = {}


def encoded(value: str) -> bytes:
    """`value` as latin-1 bytes, memoised for the small set of values that repeat on every response."""
    hit = _ENCODED.get(value)
    if hit is None:
        hit = value.encode("latin-1")
        if len(_ENCODED) < 4096:
            _ENCODED[value] = hit
    return hit


_MILLISECONDS = tuple(b"%d" % number for number in range(1000))


def elapsed_ms(started: float) -> bytes:
    """Whole milliseconds since `started` (a perf_counter reading), for `x-response-time`."""
    elapsed = int((time.perf_counter() - started) * 1000)
    return _MILLISECONDS[elapsed] if elapsed < 1000 else b"%d" % elapsed


_PAIRS: dict[tuple[bytes, str], tuple[bytes, bytes]] = {}


def header(name: bytes, value: str) -> tuple[bytes, bytes]:
    """One encoded header, memoised like `encoded` (for values that repeat: types, access levels)."""
    hit = _PAIRS.get((name, value))
    if hit is None:
        hit = (name, value.encode("latin-1"))
        if len(_PAIRS) < 4096:
            _PAIRS[(name, value)] = hit
    return hit


def encode_headers(headers: Mapping[str, str]) -> RawHeaders:
    return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]


def has_body(headers: Mapping[str, str]) -> bool:
    """Whether the request carries a body at all (a GET without one need not be read)."""
    length = headers.get("content-length")
    return (length is not None and length != "0") or "transfer-encoding" in headers


def parse_query(raw: bytes) -> list[tuple[str, str]]:
    """Query-string pairs, decoded as UTF-8 (invalid bytes replaced so they can be echoed in errors).

    The same result as `parse_qsl(..., keep_blank_values=True)`, without its cost for the plain
    `name=value&...` strings most requests send.
    """
    text = raw.decode("utf-8", "replace")
    if "%" in text or "+" in text or ";" in text:
        return parse_qsl(text, keep_blank_values=True)
    pairs = []
    for part in text.split("&"):
        if part:
            name, _, value = part.partition("=")
            pairs.append((name, value))
    return pairs


def window_headers(prefix: str, window: Window) -> dict[str, str]:
    return {
        f"{prefix}-limit": str(window.limit),
        f"{prefix}-remaining": str(max(window.remaining, 0)),
        f"{prefix}-reset": str(window.reset_s),
    }


_WINDOW_NAMES = {
    prefix: (f"{prefix}-limit".encode(), f"{prefix}-remaining".encode(), f"{prefix}-reset".encode())
    for prefix in ("x-rate-limit", "x-app-limit-24hour", "x-user-limit-24hour", "x-account-rate-limit")
}
_WINDOW_VALUES: dict[tuple[str, int, int, int], RawHeaders] = {}


def window_raw_headers(prefix: str, window: Window) -> RawHeaders:
    """`window_headers` as encoded pairs; memoised, since a window's numbers repeat request after request."""
    if prefix == "x-rate-limit":  # the pipeline's: kept on the window while its numbers stand still
        memo = window.encoded
        if memo is not None and memo[0] == window.remaining:
            return memo[1]  # type: ignore[no-any-return]
        headers = _window_raw_headers(prefix, window)
        window.encoded = (window.remaining, headers)
        return headers
    return _window_raw_headers(prefix, window)


def _window_raw_headers(prefix: str, window: Window) -> RawHeaders:
    key = (prefix, window.limit, max(window.remaining, 0), window.reset_s)
    hit = _WINDOW_VALUES.get(key)
    if hit is None:
        names = _WINDOW_NAMES.get(prefix) or tuple(
            f"{prefix}-{part}".encode() for part in ("limit", "remaining", "reset")
        )
        hit = list(zip(names, (str(value).encode() for value in key[1:]), strict=True))
        if len(_WINDOW_VALUES) >= 8192:
            _WINDOW_VALUES.clear()
        _WINDOW_VALUES[key] = hit
    return hit


class ClientDisconnected(Exception):
    """The client went away before its request body was complete: the request must not be carried
    out on the part that arrived (a cut-off JSON body can still parse)."""


def note_disconnect(scope: Scope) -> None:
    """A client that went away before its request was complete: one line, no traceback."""
    client = scope.get("client") or ("?", 0)
    log.warning(
        "%s:%s went away before its request was complete: %s %s",
        client[0],
        client[1],
        scope.get("method", ""),
        scope.get("path", ""),
    )


async def read_body(receive: Receive, headers: dict[str, str], limit: int) -> bytes:
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise errors.payload_too_large()
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise errors.payload_too_large()
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def read_body_into(receive: Receive, headers: dict[str, str], limit: int) -> bytes:
    """`read_body` for large bodies (file uploads): with a declared length the bytes are received into
    one buffer of that size, so the body is held once, not once in pieces and again joined."""
    declared = headers.get("content-length")
    if declared is None or not declared.isdigit():
        return await read_body(receive, headers, limit)
    size = int(declared)
    if size > limit:
        raise errors.payload_too_large()
    buffer = bytearray(size)
    view = memoryview(buffer)
    filled = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnected
        chunk = message.get("body", b"")
        if filled + len(chunk) > size:
            raise errors.payload_too_large()
        view[filled : filled + len(chunk)] = chunk
        filled += len(chunk)
        if not message.get("more_body", False):
            break
    view.release()
    if filled != size:
        raise ClientDisconnected  # the body ended before its declared length
    return buffer  # type: ignore[return-value]  # a bytearray serves wherever these bytes are read


async def send_response(
    scope: Scope, send: Send, status: int, body: bytes, content_type: str, headers: Mapping[str, str]
) -> None:
    """Send a whole response whose headers are still text."""
    raw_headers = [(b"content-type", content_type.encode()), *encode_headers(headers)]
    await send_raw(scope, send, status, body, raw_headers)


# A server extension (`roost.serving` offers it in `scope["extensions"]`): one call writes a whole
# response, head and body, where ASGI takes two messages whose headers the server checks one by one.
# It takes the request's scope, the status, the encoded headers (lower-case names, none of the framing
# ones: content-length, transfer-encoding, connection; it adds content-length) and the body, and
# answers False when the response must go the ASGI way instead (a slow reader, an access log, a
# pipelined request, a header the server's own checks should refuse).
WHOLE_RESPONSE = "roost.whole_response"
WholeResponse = Callable[[Scope, int, RawHeaders, bytes], bool]


async def send_raw(scope: Scope, send: Send, status: int, body: bytes, headers: RawHeaders) -> None:
    """Send a whole response; `headers` are encoded and carry no content-length (it is added here)."""
    extensions = scope.get("extensions")
    if extensions is not None:
        write_whole: WholeResponse | None = extensions.get(WHOLE_RESPONSE)
        if write_whole is not None and write_whole(scope, status, headers, body):
            return
    headers.append((b"content-length", b"%d" % len(body)))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def send_stream(
    send: Send, receive: Receive, status: int, stream: Stream, headers: Iterable[tuple[bytes, bytes]]
) -> None:
    """Send a streaming body; a client disconnect ends it quietly and closes the iterator."""
    raw_headers: RawHeaders = [(b"content-type", encoded(stream.content_type))]
    raw_headers.extend(headers)

    async def disconnected() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    watcher = asyncio.ensure_future(disconnected())
    step: asyncio.Future[bytes] | None = None
    iterator = stream.chunks.__aiter__()
    try:
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        # An empty first chunk: a server may hold the head back until the first body bytes (granian
        # does), and a stream may have nothing to say for a while while clients wait for the status.
        await send({"type": "http.response.body", "body": b"", "more_body": True})
        while True:
            step = asyncio.ensure_future(iterator.__anext__())
            await asyncio.wait({step, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                break  # the client went away while the stream was waiting
            try:
                chunk = step.result()
            except StopAsyncIteration:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                break
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    except OSError:
        pass  # the client went away mid-write
    except Exception:
        log.exception("stream failed after its response started")
    finally:
        for task in (step, watcher):
            if task is not None and not task.done():
                task.cancel()
                await asyncio.wait({task})
        closer = getattr(iterator, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()
