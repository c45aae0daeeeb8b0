"""The pytest plugin (entry point `pytest11: roost`): a live roost for the tests of your own program.

Fixtures (docs/testing.md):

- `roost_server` (session): a roost on a free loopback port of this process, on a temporary SQLite
  database with the demo data; `url`, `credentials`, `reset()`, `advance(seconds)`, `control(...)`.
- `roost` (function): the same server, reset to the seed before the test.
- `roost_redirect` (function): while the test runs, requests, httpx, aiohttp and urllib send the
  platform's public hosts (api.x.com, api.twitter.com, upload.*, ads-api.*, …) to that server.
- `roost_server_options` (session): `roost.config.Settings` fields for the server; override it in a
  conftest.py (e.g. `{"rate_limits": False}`).

pytest loads this module in every run once roost is installed, so it only defines fixtures: the
server and the redirect are imported when a test asks for them. Under pytest-xdist each worker has
its own session, so its own server, port and database.
"""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import asyncio

    import httpx

    from roost.config import Settings
    from roost.serving import Server

__all__ = ["RoostServer", "roost", "roost_redirect", "roost_server", "roost_server_options"]

START_TIMEOUT_S = 60.0  # migrations and the demo seed take about two seconds
STOP_TIMEOUT_S = 30.0
CONTROL_TIMEOUT_S = 60.0  # a reset re-seeds the database


class RoostServer:
    """A roost served by a background thread of this process on 127.0.0.1 and a free port.

    `url` is its base URL, `credentials` the demo app's and user's (`GET /_roost/credentials`,
    refreshed by `reset()`), `settings` the `roost.config.Settings` it runs with. Keyword arguments
    are `Settings` fields; without `db_url` the database is a SQLite file in a temporary directory
    removed by `stop()`.
    """

    def __init__(self, **settings: Any) -> None:
        for fixed in ("host", "port"):
            if fixed in settings:
                raise ValueError(f"{fixed!r} is chosen by the server itself (127.0.0.1, a free port)")
        self._options = settings
        self.url = ""
        self.credentials: dict[str, Any] = {}
        self.settings: Settings | None = None
        self._server: Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None
        self._socket: socket.socket | None = None
        self._data_dir: tempfile.TemporaryDirectory[str] | None = None
        self._http: httpx.Client | None = None

    def start(self) -> RoostServer:
        """Serve, and return once the port answers and the credentials are read."""
        if self._thread is not None:
            raise RuntimeError(f"the roost server at {self.url} is running already")
        try:
            self._start()
        except BaseException:
            self.stop()  # whatever was made so far: the socket, the thread, the temporary directory
            raise
        return self

    def _start(self) -> None:
        import httpx

        from roost import serving
        from roost.app import RoostApp
        from roost.config import Settings

        options = dict(self._options)
        if not options.get("db_url"):
            self._data_dir = tempfile.TemporaryDirectory(prefix="roost-pytest-", ignore_cleanup_errors=True)
            options["db_url"] = f"sqlite:///{os.path.join(self._data_dir.name, 'roost.db')}"
        # Bound here and handed to the server: the port is this server's from the start, so servers
        # started at once (pytest-xdist workers) can never be given the same one.
        self._socket = _listening_socket()
        port = int(self._socket.getsockname()[1])
        settings = self.settings = Settings(host="127.0.0.1", port=port, **options)
        app = RoostApp(settings)
        timeout = settings.number("request_timeout_s", serving.REQUEST_TIMEOUT_S, positive=True)
        self._server = serving.Server(
            app,
            settings.host,
            port,
            on_stop=app.end_streams,
            request_timeout_s=timeout,
            sock=self._socket,
        )
        self.url = settings.base_url
        worker = os.environ.get("PYTEST_XDIST_WORKER", "")
        self._thread = threading.Thread(target=self._run, name=f"roost-server-{worker or port}", daemon=True)
        self._thread.start()
        self._wait_listening()
        headers = {"X-Roost-Admin-Token": settings.admin_token} if settings.admin_token else {}
        # trust_env off: an HTTP(S)_PROXY of the environment must not stand between us and loopback.
        self._http = httpx.Client(
            base_url=self.url, headers=headers, timeout=CONTROL_TIMEOUT_S, trust_env=False
        )
        if settings.demo:
            self.credentials = self.control("GET", "/_roost/credentials")

    def stop(self) -> None:
        """Stop serving (open streams are ended first), wait for the thread, remove the database."""
        thread, loop, server = self._thread, self._loop, self._server
        if thread is not None and thread.is_alive():
            if loop is not None and server is not None:
                with contextlib.suppress(RuntimeError):  # the loop closed since: nothing to stop
                    loop.call_soon_threadsafe(server.stop)
            thread.join(timeout=STOP_TIMEOUT_S)
        if self._http is not None:
            self._http.close()
            self._http = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        if self._data_dir is not None:
            self._data_dir.cleanup()
            self._data_dir = None
        self._thread = None
        if thread is not None and thread.is_alive():
            raise RuntimeError(f"the roost server at {self.url} did not stop within {STOP_TIMEOUT_S:g}s")

    def control(self, method: str, path: str, **request: Any) -> Any:
        """Call the control plane (`/_roost/...`, see README.md) and return its JSON answer; a status
        of 400 or more raises `httpx.HTTPStatusError`. `request`: httpx's arguments (`json=`, …)."""
        if self._http is None:
            raise RuntimeError("the roost server is not running")
        response = self._http.request(method, path, **request)
        response.raise_for_status()
        return response.json()

    def reset(self) -> dict[str, Any]:
        """Back to the seed (`POST /_roost/reset`); `credentials` become the new seed's."""
        answer: dict[str, Any] = self.control("POST", "/_roost/reset")
        self.credentials = answer.get("credentials") or {}
        return answer

    def advance(self, seconds: float) -> dict[str, Any]:
        """Move the server clock forward (`POST /_roost/clock`); returns `{"now": …, "frozen": …}`.
        Scheduled work that falls due meanwhile (webhook CRCs, compliance jobs, …) runs at once."""
        answer: dict[str, Any] = self.control("POST", "/_roost/clock", json={"advance_seconds": seconds})
        return answer

    @contextlib.contextmanager
    def redirect(self) -> Iterator[RoostServer]:
        """While the block runs, this process's requests, httpx, aiohttp and urllib send the platform's
        public hosts to this server (`roost run`'s transport redirect); undone after it. The request
        keeps its public Host header, so OAuth 1.0a signatures over the public URL verify.
        `ROOST_REDIRECT_HOSTS` (extra hosts) and `ROOST_REDIRECT_DEBUG=1` are read as by `roost run`."""
        from roost.redirect import sitecustomize as transport

        config = transport.load_config({**os.environ, "ROOST_TARGET": self.url})
        if config is None:  # pragma: no cover - the URL is always http://127.0.0.1:PORT
            raise RuntimeError(f"cannot redirect to {self.url!r}")
        with transport.redirecting(config):
            yield self

    def _run(self) -> None:
        import asyncio

        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported by `start`, which is waiting for the port
            self._failure = exc

    async def _serve(self) -> None:
        import asyncio

        assert self._server is not None
        self._loop = asyncio.get_running_loop()
        await self._server.serve()

    def _wait_listening(self) -> None:
        assert self._server is not None and self._thread is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.listening.wait(0.02):
            if not self._thread.is_alive():
                # uvicorn logs a failed start-up (and its cause) and returns.
                raise RuntimeError(
                    "the roost server did not start (see the log captured above)"
                ) from self._failure
            if time.monotonic() > deadline:
                raise TimeoutError(f"the roost server did not start within {START_TIMEOUT_S:g}s")

    def __repr__(self) -> str:
        return f"<RoostServer {self.url or 'not started'}>"


def _listening_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


@pytest.fixture(scope="session")
def roost_server_options() -> dict[str, Any]:
    """`roost.config.Settings` fields for the session's server; override this fixture to change them."""
    return {}


@pytest.fixture(scope="session")
def roost_server(roost_server_options: dict[str, Any]) -> Iterator[RoostServer]:
    """A roost for the whole session (per pytest-xdist worker), with the demo data."""
    server = RoostServer(**roost_server_options).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def roost(roost_server: RoostServer) -> RoostServer:
    """The session's roost, reset to the seed before this test."""
    roost_server.reset()
    return roost_server


@pytest.fixture()
def roost_redirect(roost_server: RoostServer) -> Iterator[RoostServer]:
    """The platform's public hosts reach the session's roost during this test (this process only)."""
    with roost_server.redirect():
        yield roost_server
