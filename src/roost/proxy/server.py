"""The forward proxy: HTTP CONNECT and absolute-form requests, with the platform's hosts answered by
roost and every other host refused (or, with pass-through, let through untouched).

A CONNECT to one of the platform's hosts is answered by the proxy itself: it completes the TLS
handshake with a certificate for that host from the local CA, then relays each request inside the
tunnel to roost over plain HTTP, keeping the `Host` the client sent and adding
`X-Forwarded-Proto: https`. roost rebuilds the URL an OAuth 1.0a client signed from those two, so a
signature made for `https://api.x.com/...` verifies, and `ads-api-sandbox.*` still names the sandbox.

Bodies are relayed as they arrive in both directions (uploads, the filtered stream), and a client's
connection is kept alive across requests, with one connection to roost behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import ssl
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from roost.proxy.authority import CertificateAuthority
from roost.proxy.http1 import (
    MAX_HEAD_BYTES,
    NO_BODY,
    UNTIL_CLOSE,
    Head,
    ProtocolError,
    read_head,
    relay_body,
    request_framing,
    response_framing,
    status_of,
)
from roost.redirect.sitecustomize import DEFAULT_HOSTS

log = logging.getLogger("roost.proxy")

# The hosts answered by roost: the ones `roost run` redirects, so both ways cover the same programs.
INTERCEPTED_HOSTS: frozenset[str] = DEFAULT_HOSTS

IDLE_TIMEOUT_S = 120.0
CONNECT_TIMEOUT_S = 10.0
HANDSHAKE_TIMEOUT_S = 15.0
# After a response, how long the rest of its request body may take to go out before the connection is
# given up as one the server answered early (a 413 while the client was still sending).
BODY_GRACE_S = 1.0
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Fields addressed to the proxy itself (hop by hop), never passed on.
_PROXY_FIELDS = ("proxy-connection", "proxy-authorization", "keep-alive")


@dataclass(frozen=True)
class Origin:
    """A server requests are relayed to: scheme, host, port and a path prefix (roost under a path)."""

    scheme: str
    host: str
    port: int
    prefix: str = ""

    @classmethod
    def parse(cls, url: str) -> Origin:
        parts = urlsplit(url if "://" in url else "http://" + url)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        return cls(scheme, parts.hostname, parts.port or _DEFAULT_PORTS[scheme], parts.path.rstrip("/"))

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.prefix}"


class ProxyServer:
    """The proxy's settings and its listening socket; one `_Session` per client connection."""

    def __init__(
        self,
        authority: CertificateAuthority,
        target: str,
        *,
        pass_through: bool = False,
        hosts: Iterable[str] = INTERCEPTED_HOSTS,
    ) -> None:
        self.authority = authority
        self.target = Origin.parse(target)
        self.pass_through = pass_through
        self.hosts = frozenset(host.lower() for host in hosts)

    def intercepts(self, host: str) -> bool:
        return host.lower().rstrip(".") in self.hosts

    async def start(self, host: str, port: int) -> asyncio.Server:
        self.authority.ensure()
        return await asyncio.start_server(self._handle, host, port, limit=MAX_HEAD_BYTES)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = _Session(self, reader, writer)
        try:
            await session.run()
        except Exception:
            log.exception("proxy connection failed")
        finally:
            await session.close()


@dataclass
class _Upstream:
    origin: Origin
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    def usable(self, origin: Origin) -> bool:
        return origin == self.origin and not self.reader.at_eof() and not self.writer.is_closing()

    def close(self) -> None:
        self.writer.close()


@dataclass(frozen=True)
class _Tunnel:
    """A CONNECT the proxy answers itself: requests in it are for `host_header` over https."""

    host: str
    host_header: str


class _Session:
    """One client connection: a CONNECT, or a run of absolute-form requests."""

    def __init__(self, proxy: ProxyServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.proxy = proxy
        self.reader = reader
        self.writer = writer
        self.upstream: _Upstream | None = None

    async def run(self) -> None:
        try:
            head = await self._next_head()
            if head is None:
                return
            method, target, _ = _request_line(head)
            if method == "CONNECT":
                await self._connect(target)
            else:
                await self._serve_requests(head, None)
        except ProtocolError as exc:
            await self._answer(exc.status, exc.reason)
        except (OSError, asyncio.IncompleteReadError):
            pass  # the client went away

    async def close(self) -> None:
        self._drop_upstream()
        self.writer.close()
        with contextlib.suppress(OSError, ssl.SSLError):
            await self.writer.wait_closed()

    # ---- CONNECT -------------------------------------------------------------------------------

    async def _connect(self, authority: str) -> None:
        host, port = _split_authority(authority)
        if self.proxy.intercepts(host):
            context = self.proxy.authority.server_context(host)
            self.writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await self.writer.drain()
            try:
                await self.writer.start_tls(context, ssl_handshake_timeout=HANDSHAKE_TIMEOUT_S)
            except (ssl.SSLError, OSError, TimeoutError) as exc:
                log.warning(
                    "TLS handshake for %s failed (%s): the client must trust %s",
                    host,
                    getattr(exc, "reason", None) or type(exc).__name__,
                    self.proxy.authority.cert_path,
                )
                return
            host_header = host if port == 443 else f"{host}:{port}"
            await self._serve_requests(None, _Tunnel(host, host_header))
        elif self.proxy.pass_through:
            await self._pipe(host, port)
        else:
            await self._refuse(f"CONNECT {authority}", host)

    async def _pipe(self, host: str, port: int) -> None:
        """Pass-through: a plain TCP tunnel, bytes copied both ways until each side is done."""
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT_S):
                remote_reader, remote_writer = await asyncio.open_connection(host, port)
        except (OSError, TimeoutError) as exc:
            await self._answer(502, f"could not reach {host}:{port} ({_why(exc)})")
            return
        try:
            self.writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await self.writer.drain()
            await asyncio.gather(
                _copy_until_eof(self.reader, remote_writer),
                _copy_until_eof(remote_reader, self.writer),
                return_exceptions=True,
            )
        finally:
            remote_writer.close()

    # ---- requests ------------------------------------------------------------------------------

    async def _serve_requests(self, first: Head | None, tunnel: _Tunnel | None) -> None:
        head = first
        while True:
            if head is None:
                head = await self._next_head()
                if head is None:
                    return
            if not await self._one_request(head, tunnel):
                return
            head = None

    async def _next_head(self) -> Head | None:
        try:
            async with asyncio.timeout(IDLE_TIMEOUT_S):
                return await read_head(self.reader)
        except TimeoutError:
            return None

    async def _one_request(self, head: Head, tunnel: _Tunnel | None) -> bool:
        """Relay one request and its answer; True when the client's connection may carry another."""
        method, target, version = _request_line(head)
        if tunnel is not None:
            if method == "CONNECT":
                raise ProtocolError(400, "CONNECT inside a tunnel")
            parts = urlsplit(target)
            path = target if target.startswith("/") else (parts.path or "/") + _query(parts.query)
            host_header = head.get("host") or tunnel.host_header
            host, proto = tunnel.host, "https"
        else:
            parts = urlsplit(target)
            if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname:
                raise ProtocolError(
                    400,
                    f"this is a proxy: send absolute-form requests (GET http://api.x.com/2/...) or "
                    f"CONNECT; roost itself answers at {self.proxy.target.url}",
                )
            path = (parts.path or "/") + _query(parts.query)
            host_header = parts.netloc.rpartition("@")[2]
            host, proto = parts.hostname, parts.scheme.lower()
        forwarded = Head(f"{method} {path} {version}", list(head.headers))
        forwarded.remove(*_PROXY_FIELDS)
        forwarded.put("Host", host_header, first=True)
        if self.proxy.intercepts(host):
            origin = self.proxy.target
            forwarded.start = f"{method} {origin.prefix}{path} {version}"
            # What roost rebuilds the signed URL from (auth/principals.py `signature_ok`).
            forwarded.put("X-Forwarded-Proto", proto)
            forwarded.put("X-Forwarded-Host", host_header)
        elif self.proxy.pass_through and proto == "http":
            origin = Origin("http", host, parts.port or 80)
        else:
            await self._refuse(f"{method} {proto}://{host}", host)
            return False
        status, reusable = await self._exchange(origin, forwarded, request_framing(head), method)
        if status is not None:
            # The path without its query string: a query may carry a token or a verifier.
            log.info("%s %s://%s%s -> %d", method, proto, host_header, path.split("?", 1)[0], status)
        return reusable and not head.wants_close() and not self.writer.is_closing()

    async def _exchange(
        self, origin: Origin, head: Head, framing: tuple[str, int], method: str
    ) -> tuple[int | None, bool]:
        """Send the request to `origin`, its body as it comes, and relay the answer: (the answer's status
        when one was relayed, whether the client's connection may carry another request)."""
        for attempt in (1, 2):
            reused = self.upstream is not None and self.upstream.usable(origin)
            try:
                upstream = await self._upstream_for(origin)
            except (OSError, TimeoutError) as exc:
                where = f"{origin.host}:{origin.port}"
                if origin == self.proxy.target:
                    await self._answer(502, f"nothing answers at {origin.url} — start it with roost serve")
                else:
                    await self._answer(502, f"could not reach {where} ({_why(exc)})")
                return None, False
            upstream.writer.write(head.encode())
            sending = asyncio.create_task(relay_body(self.reader, upstream.writer, framing))
            sending.add_done_callback(functools.partial(_close_if_failed, upstream))
            try:
                response = await self._final_response(upstream)
            except (OSError, asyncio.IncompleteReadError, ProtocolError) as exc:
                sending.cancel()
                self._drop_upstream()
                # A kept-alive connection the server had just closed: once more on a new one, when
                # nothing of the request's body has been taken from the client yet.
                if reused and attempt == 1 and framing[0] == NO_BODY and isinstance(exc, OSError):
                    continue
                await self._answer(502, f"{origin.url} did not answer ({_why(exc)})")
                return None, False
            return await self._relay_response(upstream, response, sending, method)
        return None, False  # pragma: no cover (the loop returns)

    async def _final_response(self, upstream: _Upstream) -> Head:
        """The response head, after passing any interim (1xx) answers on to the client."""
        while True:
            response = await read_head(upstream.reader)
            if response is None:
                raise ConnectionResetError("the connection closed without an answer")
            status = status_of(response)
            if 100 <= status < 200 and status != 101:
                self.writer.write(response.encode())
                await self.writer.drain()
                continue
            return response

    async def _relay_response(
        self, upstream: _Upstream, response: Head, sending: asyncio.Task[None], method: str
    ) -> tuple[int | None, bool]:
        status = status_of(response)
        framing = response_framing(response, method)
        try:
            self.writer.write(response.encode())
            if status == 101:  # a protocol switch: from here on, bytes both ways
                await self.writer.drain()
                await asyncio.gather(
                    _copy_until_eof(upstream.reader, self.writer),
                    _copy_until_eof(self.reader, upstream.writer),
                    return_exceptions=True,
                )
                return status, False
            await relay_body(upstream.reader, self.writer, framing)
        except (OSError, asyncio.IncompleteReadError, ProtocolError):
            sending.cancel()
            self._drop_upstream()
            self.writer.close()  # half an answer was sent: only a close tells the client
            return status, False
        if not sending.done():
            await asyncio.wait({sending}, timeout=BODY_GRACE_S)
        if not sending.done() or sending.cancelled() or sending.exception() is not None:
            # Answered before the whole request came: the rest will never be read, so neither
            # connection can carry another request.
            sending.cancel()
            self._drop_upstream()
            return status, False
        if framing[0] == UNTIL_CLOSE or response.wants_close():
            self._drop_upstream()
            return status, False
        return status, True

    async def _upstream_for(self, origin: Origin) -> _Upstream:
        if self.upstream is not None and self.upstream.usable(origin):
            return self.upstream
        self._drop_upstream()
        context = ssl.create_default_context() if origin.scheme == "https" else None
        async with asyncio.timeout(CONNECT_TIMEOUT_S):
            reader, writer = await asyncio.open_connection(
                origin.host, origin.port, ssl=context, limit=MAX_HEAD_BYTES
            )
        self.upstream = _Upstream(origin, reader, writer)
        return self.upstream

    def _drop_upstream(self) -> None:
        if self.upstream is not None:
            self.upstream.close()
            self.upstream = None

    # ---- answers of the proxy's own ------------------------------------------------------------

    async def _refuse(self, what: str, host: str) -> None:
        reason = (
            f"{host} is not one of the platform's hosts, so roost proxy does not let it through "
            "(start it with --pass-through to tunnel other hosts)"
            if not self.proxy.pass_through
            else f"{host} is passed through as a CONNECT tunnel or a plain-http request only"
        )
        log.warning("refused %s: %s", what, reason)
        await self._answer(403, reason)

    async def _answer(self, status: int, reason: str) -> None:
        """A one-line plain-text answer, then the connection closes."""
        if self.writer.is_closing():
            return
        body = f"roost proxy: {reason}\n".encode()
        phrase = _PHRASES.get(status, "Error")
        head = (
            f"HTTP/1.1 {status} {phrase}\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        with contextlib.suppress(OSError, ssl.SSLError):
            self.writer.write(head.encode("latin-1") + body)
            await self.writer.drain()
        self.writer.close()


_PHRASES = {
    400: "Bad Request",
    403: "Forbidden",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
}


def _request_line(head: Head) -> tuple[str, str, str]:
    parts = head.start.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise ProtocolError(400, f"not an HTTP/1.x request line: {head.start[:60]!r}")
    return parts[0].upper(), parts[1], parts[2]


def _split_authority(authority: str) -> tuple[str, int]:
    """CONNECT's `host:port` (or `[v6]:port`); a missing port means 443."""
    host, port = authority, "443"
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        port = rest.removeprefix(":") or "443"
    elif authority.count(":") == 1:
        host, port = authority.split(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ProtocolError(400, f"CONNECT needs host:port, not {authority[:60]!r}")
    return host, int(port)


def _query(query: str) -> str:
    return "?" + query if query else ""


def _why(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _close_if_failed(upstream: _Upstream, task: asyncio.Task[None]) -> None:
    # A request body that could not be relayed leaves the server waiting for the rest: closing its
    # connection ends the wait for the answer too.
    if not task.cancelled() and task.exception() is not None:
        upstream.close()


async def _copy_until_eof(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while block := await reader.read(64 * 1024):
            writer.write(block)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.close()
