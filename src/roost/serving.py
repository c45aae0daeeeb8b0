"""The HTTP server under roost's ASGI application, run inside the calling process on its event loop.

Two are supported, chosen with `roost serve --server`:

- granian (the default): HTTP/1.1 and HTTP/2 parsed, framed and written in Rust. On the benchmark's
  single post lookup it serves about a fifth more requests per second of one core than uvicorn: the
  response head (roost sends nine headers) and the socket writes cost no Python (bench/RESULTS.md).
  It runs embedded: one process, on the caller's asyncio loop.
- uvicorn (uvloop and httptools): the common Python server, kept as the alternative.

`Server` starts and stops either one the same way, for `roost serve`, the tests' live servers and the
benchmark (which runs its bare baseline app on the same server as roost). Asked to stop, it first
calls `on_stop` (roost ends its open streams there, which never end by themselves) so connections
drain instead of being cut.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, Literal

ServerName = Literal["granian", "uvicorn"]
SERVERS: tuple[ServerName, ...] = ("granian", "uvicorn")
KEEP_ALIVE_S = 75  # uvicorn: seconds an idle client connection stays open (granian: until the client closes)
GRACEFUL_S = 3  # seconds connections get to finish at shutdown before they are closed

ASGIApp = Callable[..., Any]


class Server:
    """One ASGI app served on host:port by the chosen server, inside this process."""

    def __init__(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        server: ServerName = "granian",
        log_level: str = "warning",
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        if server not in SERVERS:
            raise ValueError(f"unknown server {server!r} (one of {', '.join(SERVERS)})")
        self.name = server
        self.host = host
        self.port = port
        self._on_stop = on_stop
        self._stopping: asyncio.Event | None = None
        # Set once the port accepts connections: the app's start-up runs before either server listens.
        self.listening = threading.Event()
        if server == "granian":
            self._impl: Any = _granian(app, host, port, log_level)
        else:
            self._impl = _uvicorn(app, host, port, log_level, self._stop_hook)

    async def serve(self) -> None:
        """Serve until `stop()` (from this loop's thread) or, for `run()`, SIGINT or SIGTERM."""
        watcher = asyncio.ensure_future(self._watch_listening())
        try:
            await self._serve()
        finally:
            watcher.cancel()

    async def _watch_listening(self) -> None:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else "::1" if self.host == "::" else self.host
        while True:
            try:
                _, writer = await asyncio.open_connection(host, self.port)
            except OSError:
                await asyncio.sleep(0.01)
                continue
            writer.close()
            self.listening.set()
            return

    async def _serve(self) -> None:
        if self.name == "uvicorn":
            await self._impl.serve()
            return
        self._stopping = asyncio.Event()
        serving = asyncio.ensure_future(self._impl.serve())
        stopping = asyncio.ensure_future(self._stopping.wait())
        await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not serving.done():
            self._impl.stop()
            done, _ = await asyncio.wait({serving}, timeout=GRACEFUL_S)
            if not done:  # a request still running: it is cut, as uvicorn does after its grace period
                serving.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await serving
                return
        serving.result()  # a start-up failure (the port taken, ...) is raised here

    def stop(self) -> None:
        self._stop_hook()
        if self.name == "uvicorn":
            self._impl.should_exit = True
        elif self._stopping is not None:
            self._stopping.set()

    def _stop_hook(self) -> None:
        if self._on_stop is not None:
            on_stop, self._on_stop = self._on_stop, None
            on_stop()

    def run(self) -> None:
        """Serve in a new event loop until SIGINT or SIGTERM (the command line's `roost serve`)."""

        async def main() -> None:
            if self.name == "granian":  # uvicorn installs handlers of its own (see _Uvicorn)
                loop = asyncio.get_running_loop()
                for number in (signal.SIGINT, signal.SIGTERM):
                    loop.add_signal_handler(number, self.stop)
            await self.serve()

        with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises the SIGINT it handled
            _loop_runner()(main())


def _granian(app: ASGIApp, host: str, port: int, log_level: str) -> Any:
    from granian.constants import Interfaces
    from granian.log import LogLevels
    from granian.server.embed import Server as Embedded

    try:
        level = LogLevels(log_level)
    except ValueError:
        level = LogLevels.warning
    server = Embedded(
        app,
        address=host,
        port=port,
        interface=Interfaces.ASGI,
        log_level=level,
        log_access=False,
        backlog=1024,
    )
    # The embedded mode announces itself as experimental at every start; roost's tests and
    # benchmarks run on it, so the notice is dropped rather than shown to every user.
    logging.getLogger("_granian").addFilter(_NotExperimental())
    return server


def _uvicorn(app: ASGIApp, host: str, port: int, log_level: str, on_exit: Callable[[], None]) -> Any:
    import uvicorn

    class UvicornServer(uvicorn.Server):
        """uvicorn's server, calling the stop hook when a signal asks it to exit."""

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            on_exit()
            super().handle_exit(sig, frame)

    return UvicornServer(
        uvicorn.Config(
            app,
            host=host,
            port=port,
            loop="uvloop",
            http="httptools",
            log_level=log_level,
            lifespan="on",
            access_log=False,
            timeout_graceful_shutdown=GRACEFUL_S,
            # Clients keep connections in pools for a while; a short server keep-alive races with
            # their reuse and turns into "server disconnected" errors on POSTs they will not retry.
            timeout_keep_alive=KEEP_ALIVE_S,
        )
    )


class _NotExperimental(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "experimental" not in record.getMessage()


def _loop_runner() -> Callable[[Any], Any]:
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        return asyncio.run
    return uvloop.run  # type: ignore[no-any-return]
