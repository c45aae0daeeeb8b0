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
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

KEEP_ALIVE_S = 75  # seconds an idle client connection stays open
GRACEFUL_S = 3  # seconds connections get to finish at shutdown before they are closed

ASGIApp = Callable[..., Any]


class Server:
    """One ASGI app served on host:port, inside this process."""

    def __init__(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        log_level: str = "warning",
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self._on_stop = on_stop
        self.listening = threading.Event()
        self._uvicorn = _Uvicorn(
            uvicorn.Config(
                app,
                host=host,
                port=port,
                loop="uvloop",
                http=JoinedWritesProtocol,
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
            await self._uvicorn.serve()
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
    """uvicorn's httptools protocol on a `JoinedWrites` transport."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(JoinedWrites(transport, self.loop))  # type: ignore[arg-type]


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
    return uvloop.run  # type: ignore[no-any-return]
