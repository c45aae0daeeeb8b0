"""The HTTP server under roost's ASGI application: uvicorn (uvloop, httptools) inside this process.

One `Server` starts and stops it the same way for `roost serve`, the tests' live servers and the
benchmark (which runs its bare baseline app on the same server and settings as roost). Asked to stop,
it first calls `on_stop` (roost ends its open streams there: they never end by themselves) so that
connections drain instead of being cut after the grace period; `listening` is set once the port
accepts connections, which is after the app's start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol, RequestResponseCycle

from roost.core.wire import WHOLE_RESPONSE, RawHeaders

KEEP_ALIVE_S = 75  # seconds an idle client connection stays open
# Seconds a request's head and body get to arrive, counted from its first byte (the first request's
# from the connection's start); a connection whose request is not in by then is closed (issue 16).
REQUEST_TIMEOUT_S = 120.0
GRACEFUL_S = 3  # seconds connections get to finish at shutdown before they are closed

ASGIApp = Callable[..., Any]
log = logging.getLogger("roost.serving")


class Server:
    """One ASGI app served on host:port, inside this process."""

    def __init__(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        log_level: str = "warning",
        on_stop: Callable[[], None] | None = None,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        sock: socket.socket | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self._sockets = None if sock is None else [sock]  # a socket bound already (`--workers`)
        self._on_stop = on_stop
        self.listening = threading.Event()
        self._uvicorn = _Uvicorn(
            uvicorn.Config(
                app,
                host=host,
                port=port,
                loop="uvloop",
                http=JoinedWritesProtocol.with_request_timeout(request_timeout_s),
                log_level=log_level,
                lifespan="on",
                access_log=False,
                timeout_graceful_shutdown=GRACEFUL_S,
                # Clients keep connections in pools for a while; a short server keep-alive races with
                # their reuse and turns into "server disconnected" errors on POSTs they will not retry.
                timeout_keep_alive=KEEP_ALIVE_S,
            ),
            self._stop_hook,
        )

    async def serve(self) -> None:
        """Serve until `stop()` (from this loop's thread) or, when in the main thread, SIGINT/SIGTERM."""
        watcher = asyncio.ensure_future(self._watch_listening())
        try:
            await self._uvicorn.serve(self._sockets)
        finally:
            watcher.cancel()

    def stop(self) -> None:
        self._stop_hook()
        self._uvicorn.should_exit = True

    def run(self) -> None:
        """Serve in a new event loop until SIGINT or SIGTERM (the command line's `roost serve`)."""
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises the SIGINT it handled
            _loop_runner()(self.serve())

    def _stop_hook(self) -> None:
        if self._on_stop is not None:
            on_stop, self._on_stop = self._on_stop, None
            on_stop()

    async def _watch_listening(self) -> None:
        while not self._uvicorn.started:  # set by uvicorn once its sockets listen
            await asyncio.sleep(0.01)
        self.listening.set()


class JoinedWrites:
    """A connection's transport whose writes within one event-loop step leave in one `write` call.

    uvicorn writes a response's head and its body separately; on loopback each `write` is a system
    call and a trip through the TCP stack, so joining them takes a sixth off a small response's cost.
    What is written is sent when the step ends, before the loop waits for input again; closing sends
    it first, aborting drops it as it drops the transport's own buffer, and a connection lost in
    between drops it as it would have dropped a write after the loss.
    """

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        if self._pending is None:
            self._pending = [data]
            self._loop.call_soon(self.flush)
        else:
            self._pending.append(data)

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def flush(self) -> None:
        pending, self._pending = self._pending, None
        # The connection may have been lost since the write: uvloop raises on a closed transport.
        if pending and not self._transport.is_closing():
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def get_write_buffer_size(self) -> int:
        pending = sum(len(chunk) for chunk in self._pending) if self._pending else 0
        return self._transport.get_write_buffer_size() + pending

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending = None
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:  # everything else is the transport's own
        return getattr(self._transport, name)


class JoinedWritesProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol on a `JoinedWrites` transport, offering each request's app the
    whole-response extension (`roost.core.wire.WHOLE_RESPONSE`)."""

    request_timeout_s = REQUEST_TIMEOUT_S
    # When the request on its way in must be in (loop time; None: none is), and the one timer that
    # checks it. A request that arrives in time only clears the deadline: the timer, when it fires,
    # re-arms for a later request's deadline or lapses, so a busy connection sets no timer per request.
    _request_deadline: float | None = None
    _request_timer: asyncio.TimerHandle | None = None

    @classmethod
    def with_request_timeout(cls, seconds: float) -> type[JoinedWritesProtocol]:
        """This protocol with its own request timeout (uvicorn builds protocols from a class)."""
        if seconds == cls.request_timeout_s:
            return cls
        return type(cls.__name__, (cls,), {"request_timeout_s": seconds})

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(JoinedWrites(transport, self.loop))  # type: ignore[arg-type]
        # One per connection, shared by its requests' scopes: nothing to build per request.
        self._extensions = {WHOLE_RESPONSE: self._write_whole}
        # uvicorn times only the idle wait after a response, and any byte received stops that timer: a
        # client that never sends a whole request would hold the connection (and what it sent) for ever.
        self._expect_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._request_deadline = None
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.scope["extensions"] = self._extensions  # type: ignore[typeddict-item]  # ours, beside ASGI's
        if self._request_deadline is None:  # the first request counts from the connection's start
            self._expect_request()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._request_deadline = None

    def _expect_request(self) -> None:
        deadline = self._request_deadline = self.loop.time() + self.request_timeout_s
        if self._request_timer is None:
            self._request_timer = self.loop.call_at(deadline, self._check_request_deadline)

    def _check_request_deadline(self) -> None:
        self._request_timer = None
        deadline = self._request_deadline
        if deadline is None or self.transport.is_closing():
            return  # no request on its way in: the next one arms the timer again
        if self.loop.time() < deadline:  # a later request's deadline
            self._request_timer = self.loop.call_at(deadline, self._check_request_deadline)
            return
        # Aborted, not closed: a client that does not send may not read either, and a close would wait
        # for it to take what is buffered. A request the app is waiting on sees a disconnect.
        log.warning(
            "%s:%s did not send a whole request in %gs: connection closed",
            *self._peer(),
            self.request_timeout_s,
        )
        self.transport.abort()

    def _peer(self) -> tuple[str, int]:
        client = self.client
        return (str(client[0]), int(client[1])) if client else ("?", 0)

    def on_headers_complete(self) -> None:
        url = self.url
        query = _long_query(url)
        if query is None:
            super().on_headers_complete()
            return
        # Parsed without its query, which is put back for the app's task (it has not run yet).
        self.url = url[: len(url) - len(query)]
        super().on_headers_complete()
        self.url = url
        self.scope["query_string"] = query

    def _write_whole(self, scope: dict, status: int, headers: RawHeaders, body: bytes) -> bool:
        cycle = self.cycle
        # A pipelined request's response waits for the one before it: that is `send`'s to order.
        if cycle is None or cycle.scope is not scope:
            return False
        return write_whole(cycle, status, headers, body)


_URL_PARSER_LIMIT = 65_535


def _long_query(url: bytes) -> bytes | None:
    """The query string of a request target too long for httptools' URL parser, when its path fits.

    The parser keeps offsets in 16 bits and uvicorn answers a longer target with a plain-text 400
    before the app sees it; 10,000 ids make a 200,000-character query, which the platform answers
    with its JSON 400."""
    if len(url) <= _URL_PARSER_LIMIT:
        return None
    path, mark, query = url.partition(b"?")
    return query if mark and len(path) < _URL_PARSER_LIMIT and b"#" not in query else None


# Control characters other than tab: a header line may hold none but its closing CR LF.
_CONTROL = bytes(range(9)) + bytes(range(10, 32)) + b"\x7f"
# The server's default headers (date, server) and their encoding, swapped as one tuple (servers of
# other threads in this process may share it).
_defaults: tuple[Any, bytes] = (None, b"")


def write_whole(cycle: RequestResponseCycle, status: int, headers: RawHeaders, body: bytes) -> bool:
    """Write a whole response at once, as uvicorn's `send` would for its two ASGI messages.

    The headers are checked in one pass for control characters (what would split the head) instead
    of two regular expressions per header; names are the app's own literals. False: nothing was
    written, and the response must go through `send` (the writes are paused for a slow reader, an
    access log is kept, a response was already started, or a header holds a control character).
    """
    if cycle.response_started or cycle.flow.write_paused or cycle.access_log:
        return False
    if cycle.disconnected:
        return True  # as `send`: nobody to answer
    block = b"".join([b"%s: %s\r\n" % pair for pair in headers])
    if len(block) - len(block.translate(None, _CONTROL)) != 2 * len(headers):
        return False
    global _defaults
    defaults = _defaults
    if defaults[0] is not cycle.default_headers:  # the server renews the list (its date) once a second
        pairs = cycle.default_headers
        defaults = _defaults = (pairs, b"".join([b"%s: %s\r\n" % (n.lower(), v) for n, v in pairs]))
    cycle.response_started = True
    cycle.waiting_for_100_continue = False
    cycle.chunked_encoding = False
    head = [STATUS_LINE[status], defaults[1], block, b"content-length: %d\r\n" % len(body)]
    if not cycle.keep_alive:
        head.append(b"connection: close\r\n")
    head.append(b"\r\n")
    if cycle.scope["method"] != "HEAD":
        head.append(body)
    # Through the joined-writes transport even so: sent when the loop step ends, which measured a
    # fifth faster under load than writing at once (RESULTS.md, "Whole responses").
    cycle.transport.write(b"".join(head))
    cycle.response_complete = True
    cycle.message_event.set()
    if not cycle.keep_alive:
        cycle.transport.close()
    cycle.on_response()
    return True


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, calling the stop hook first when a signal asks it to exit."""

    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_exit = on_exit

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self._on_exit()
        super().handle_exit(sig, frame)


def _loop_runner() -> Callable[[Any], Any]:
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        return asyncio.run
    return uvloop.run
