"""The HTTP client of webhook deliveries: one POST, its status, nothing else.

A delivery needs only the status of a POST (200 or not) within a deadline. aiohttp spent about a sixth
of a write-heavy server's CPU building requests, headers, timers and response objects that a delivery
never reads (bench/WRITES.md); this client writes the request in one buffer and lets httptools (the
parser uvicorn uses) frame the reply. Connections are kept alive per origin and reused only after a
complete reply that allows it; any error, timeout or surprise closes the connection (a delivery is
then a failed attempt, retried on schedule as before).
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from typing import cast
from urllib.parse import quote, urlsplit

import httptools

USER_AGENT = b"roost-webhooks/1"
_TARGET_SAFE = "!$%&'()*+,-./:;=?@_~"
_IDLE_PER_ORIGIN = 64  # idle connections kept per origin (the dispatcher's in-flight cap per webhook)


@dataclass(frozen=True, slots=True)
class _Target:
    origin: tuple[str, str, int]  # scheme, host, port
    head: bytes  # "POST path HTTP/1.1" and the Host header


class _Reply(asyncio.Protocol):
    """One connection. Holds at most one request in flight; `status` resolves with its reply."""

    def __init__(self) -> None:
        self._parser = httptools.HttpResponseParser(self)
        self._transport: asyncio.Transport | None = None
        self._waiter: asyncio.Future[int] | None = None
        self._status: int | None = None  # of the reply being read, once its head is in
        self.reusable = False
        self.replied = False  # any byte of a reply arrived on this connection

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, only alike: no isinstance check.
        self._transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if self._waiter is None or self._waiter.done():
            self.close()  # bytes nobody asked for: the connection cannot be trusted again
            return
        self.replied = True
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as error:
            self._fail(ConnectionError(f"bad reply: {error}"))

    def eof_received(self) -> bool | None:
        self.reusable = False
        if self._status is not None and self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(self._status)  # a body delimited by the end of the connection
        self._fail(ConnectionError("the receiver closed the connection"))
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.reusable = False
        self._transport = None
        self._fail(exc or ConnectionError("the connection was lost"))

    # httptools callbacks
    def on_headers_complete(self) -> None:
        self._status = self._parser.get_status_code()

    def on_message_complete(self) -> None:
        self.reusable = bool(self._parser.should_keep_alive())
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(self._parser.get_status_code())

    # the client's side
    @property
    def open(self) -> bool:
        return self._transport is not None and not self._transport.is_closing()

    def send(self, request: bytes) -> asyncio.Future[int]:
        assert self._transport is not None
        self.reusable = False
        self.replied = False
        self._status = None
        self._parser = httptools.HttpResponseParser(self)
        self._waiter = asyncio.get_running_loop().create_future()
        self._transport.write(request)
        return self._waiter

    def close(self) -> None:
        self.reusable = False
        if self._transport is not None:
            self._transport.abort()
            self._transport = None

    def _fail(self, error: BaseException) -> None:
        self.reusable = False
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(error)


class WebhookClient:
    def __init__(self) -> None:
        self._targets: dict[str, _Target] = {}
        self._idle: dict[tuple[str, str, int], list[_Reply]] = {}
        self._tls: ssl.SSLContext | None = None
        self._closed = False

    async def post(self, url: str, body: bytes, headers: list[tuple[str, str]], timeout_s: float) -> int:
        """The reply's status. Raises OSError, ValueError or TimeoutError when there is none in time."""
        target = self._targets.get(url) or self._target(url)
        lines = [target.head]
        lines.extend(f"{name}: {value}\r\n".encode("latin-1") for name, value in headers)
        lines.append(b"content-length: %d\r\n\r\n" % len(body))
        lines.append(body)
        request = b"".join(lines)
        async with asyncio.timeout(timeout_s):
            connection = self._take(target.origin)
            if connection is not None:
                try:
                    return self._settled(target, connection, await connection.send(request))
                except OSError:
                    connection.close()
                    if connection.replied:
                        raise
                    # The receiver closed a kept-alive connection before reading this request (its
                    # idle timeout): nothing reached it, so it goes again on a new connection.
                except BaseException:
                    connection.close()
                    raise
            connection = await self._connect(target.origin)
            try:
                return self._settled(target, connection, await connection.send(request))
            except BaseException:
                connection.close()
                raise

    def _settled(self, target: _Target, connection: _Reply, status: int) -> int:
        self._give_back(target.origin, connection)
        return status

    async def close(self) -> None:
        self._closed = True
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()

    def _target(self, url: str) -> _Target:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        # As sent by other clients: characters outside the request-target's grammar percent-encoded.
        path = quote((parts.path or "/") + (f"?{parts.query}" if parts.query else ""), safe=_TARGET_SAFE)
        name = parts.hostname if parts.hostname.isascii() else parts.hostname.encode("idna").decode()
        if ":" in name:  # an IPv6 literal keeps its brackets in the Host header
            name = f"[{name}]"
        host = name if parts.port is None else f"{name}:{parts.port}"
        head = f"POST {path} HTTP/1.1\r\nhost: {host}\r\nuser-agent: ".encode("ascii") + USER_AGENT + b"\r\n"
        target = _Target((parts.scheme, parts.hostname, port), head)
        if len(self._targets) > 10_000:
            self._targets.clear()
        self._targets[url] = target
        return target

    def _take(self, origin: tuple[str, str, int]) -> _Reply | None:
        idle = self._idle.get(origin)
        while idle:
            connection = idle.pop()
            if connection.open:
                return connection
        return None

    async def _connect(self, origin: tuple[str, str, int]) -> _Reply:
        scheme, host, port = origin
        tls: ssl.SSLContext | None = None
        if scheme == "https":
            if self._tls is None:
                self._tls = ssl.create_default_context()
            tls = self._tls
        loop = asyncio.get_running_loop()
        _, protocol = await loop.create_connection(_Reply, host, port, ssl=tls)
        return protocol

    def _give_back(self, origin: tuple[str, str, int], connection: _Reply) -> None:
        if self._closed or not connection.reusable or not connection.open:
            connection.close()
            return
        idle = self._idle.setdefault(origin, [])
        if len(idle) >= _IDLE_PER_ORIGIN:
            connection.close()
            return
        idle.append(connection)
