"""A real roost server on a loopback port, in a background thread, for tests and clients to talk to."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from roost.app import RoostApp
from roost.config import Settings
from roost.serving import REQUEST_TIMEOUT_S, Server

PG_ENV = "ROOST_TEST_DATABASE_URL"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.asynccontextmanager
async def serving_app(app: Any) -> AsyncIterator[int]:
    """Any ASGI app on `roost.serving.Server` in the running loop, listening; yields its port."""
    server = Server(app, "127.0.0.1", free_port())
    task = asyncio.ensure_future(server.serve())
    while not server.listening.is_set():
        await asyncio.sleep(0.01)
    try:
        yield server.port
    finally:
        server.stop()
        await task


def fresh_database_url(tag: str) -> str:
    """A new empty database: a SQLite file, or a new PostgreSQL database when PG_ENV names a server."""
    base = os.environ.get(PG_ENV)
    if not base:
        directory = Path(tempfile.mkdtemp(prefix=f"roost-{tag}-"))
        return f"sqlite:///{directory / 'roost.db'}"
    import psycopg

    prefix = os.environ.get("ROOST_TEST_DB_PREFIX", "roost_test")
    name = f"{prefix}_{tag}_{uuid.uuid4().hex[:10]}"
    admin = base.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return base.rsplit("/", 1)[0] + "/" + name


class RequestLog:
    """An ASGI app wrapped to note the client address of each HTTP request when the app starts on it
    and when it is done with it, so a test can wait for the server to have dealt with a request whose
    answer it cannot see (the client hung up)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.started: list[tuple[str, int]] = []
        self.finished: list[tuple[str, int]] = []

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host, port = scope["client"]
        client = (str(host), int(port))
        self.started.append(client)
        try:
            await self.app(scope, receive, send)
        finally:
            self.finished.append(client)


class LiveServer:
    def __init__(self, **overrides: Any) -> None:
        tag = overrides.pop("tag", "test")
        log_requests = overrides.pop("log_requests", False)
        port = free_port()
        db_url = overrides.pop("db_url", None) or fresh_database_url(tag)
        self.settings = Settings(port=port, db_url=db_url, **overrides)
        self.app = RoostApp(self.settings)
        # Only on request: the wrapper would stand between the server and every other test's requests.
        self.requests = RequestLog(self.app) if log_requests else None
        served = self.requests if self.requests is not None else self.app
        timeout = self.settings.number("request_timeout_s", REQUEST_TIMEOUT_S, positive=True)
        self.server = Server(
            served, "127.0.0.1", port, on_stop=self.app.end_streams, request_timeout_s=timeout
        )
        self.thread = threading.Thread(target=self._run, name=f"roost-{tag}", daemon=True)
        self.base_url = f"http://127.0.0.1:{port}"
        self.loop: asyncio.AbstractEventLoop | None = None

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self.loop = asyncio.get_running_loop()
        await self.server.serve()

    @property
    def started(self) -> bool:
        return self.server.listening.is_set()

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.started:
            if not self.thread.is_alive():
                raise RuntimeError("roost server failed to start")
            if time.monotonic() > deadline:
                raise TimeoutError("roost server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self.loop is not None and self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.server.stop)
        self.thread.join(timeout=15)

    def run(self, coroutine: Any) -> Any:
        """Run a coroutine on the server's own loop (direct access to services in tests)."""
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=60)
