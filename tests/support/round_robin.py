"""A request-level round-robin proxy for the API suite against two server processes (issue 16).

Each request goes to the next backend in turn (not each connection: test clients keep one connection
for a whole test), bodies and responses streamed both ways, so streams work through it too. Headers
pass unchanged, `Host` included: OAuth 1.0a signatures cover the URL the client used.

The one place it waits: after a request that changes what every process must agree on (the clock,
feature settings, a reset or an import), it holds the answer until every backend reports the same
clock and settings. Processes take those within a second, by design; the suite's tests were written
for one process and move on at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Iterator
from typing import Any

import aiohttp
import yarl
from multidict import CIMultiDict
from tests.support.server import free_port

from roost.serving import Server

# Responses' framing and the server's own headers: the proxy's server writes its own.
_DROPPED = {b"transfer-encoding", b"connection", b"keep-alive", b"date", b"server", b"content-length"}
_AGREEMENT_PATHS = ("/_roost/clock", "/_roost/settings", "/_roost/reset", "/_roost/import")


class RoundRobinProxy:
    def __init__(self, backends: list[str], admin_headers: dict[str, str] | None = None) -> None:
        self._backends = backends
        self._turns: Iterator[str] = itertools.cycle(backends)
        self._admin = admin_headers or {}
        self._client: aiohttp.ClientSession | None = None
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._server = Server(self, "127.0.0.1", self.port)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: Any = None

    # ---- lifetime ----------------------------------------------------------------------------------

    def start(self) -> RoundRobinProxy:
        import threading

        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(),), daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.listening.is_set():
            if time.monotonic() > deadline:
                raise TimeoutError("the round-robin proxy did not start")
            time.sleep(0.01)
        return self

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        # aiohttp, not httpx: httpx refuses URLs over 64 KiB, which the suite sends on purpose.
        connector = aiohttp.TCPConnector(limit=200)
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=10)
        async with aiohttp.ClientSession(
            connector=connector, timeout=timeout, auto_decompress=False, trust_env=False
        ) as client:
            self._client = client
            await self._server.serve()

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._server.stop)
        if self._thread is not None:
            self._thread.join(timeout=15)

    # ---- one request -------------------------------------------------------------------------------

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                kind = (await receive())["type"]
                await send({"type": kind + ".complete"})  # lifespan.startup / lifespan.shutdown
                if kind == "lifespan.shutdown":
                    return
        assert self._client is not None
        backend = next(self._turns)
        target = scope.get("raw_path") or scope["path"].encode()
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        body = b""
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
        url = yarl.URL(backend + target.decode("latin-1"), encoded=True)
        headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"]]
        try:
            upstream = await self._client.request(
                scope["method"],
                url,
                headers=CIMultiDict(headers),
                data=body or None,
                allow_redirects=False,
                skip_auto_headers=("Accept", "Accept-Encoding", "User-Agent", "Content-Type"),
            )
        except aiohttp.ClientError as exc:
            await _answer(send, 502, f"round-robin proxy: {backend} failed: {exc!r}".encode())
            return
        try:
            headers_out = [(n, v) for n, v in upstream.raw_headers if n.lower() not in _DROPPED]
            length = upstream.headers.get("content-length")
            if length is not None:
                headers_out.append((b"content-length", length.encode()))
                content = await upstream.read()
                if scope["path"].startswith(_AGREEMENT_PATHS) and scope["method"] != "GET":
                    await self._until_backends_agree()
                start = {"type": "http.response.start", "status": upstream.status, "headers": headers_out}
                await send(start)
                await send({"type": "http.response.body", "body": content})
                return
            await send({"type": "http.response.start", "status": upstream.status, "headers": headers_out})
            await _relay(upstream, receive, send)
        finally:
            upstream.release()
            upstream.close()

    async def _until_backends_agree(self) -> None:
        """Until every backend reports the same settings and a clock within 100 ms of the others'."""
        assert self._client is not None
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            views = []
            for backend in self._backends:
                async with self._client.get(backend + "/_roost/clock", headers=self._admin) as clock:
                    now = (await clock.json())["now"]
                async with self._client.get(backend + "/_roost/settings", headers=self._admin) as settings:
                    views.append((now, await settings.text()))
            if len({settings for _, settings in views}) == 1 and _close_enough([now for now, _ in views]):
                return
            await asyncio.sleep(0.02)


def _close_enough(stamps: list[Any]) -> bool:
    from roost.core.clock import parse_rfc3339

    values = [stamp if isinstance(stamp, int) else parse_rfc3339(str(stamp)) for stamp in stamps]
    if any(value is None for value in values):
        return False
    numbers = [value for value in values if value is not None]
    return max(numbers) - min(numbers) < 100


async def _relay(upstream: aiohttp.ClientResponse, receive: Any, send: Any) -> None:
    """Stream the upstream body until it ends or the client goes (then the upstream is closed too)."""

    async def client_gone() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    watcher = asyncio.ensure_future(client_gone())
    try:
        while True:
            reading = asyncio.ensure_future(upstream.content.readany())
            done, _ = await asyncio.wait({reading, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if reading not in done:
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError, aiohttp.ClientError):
                    await reading
                return
            try:
                chunk = reading.result()
            except aiohttp.ClientError:
                break
            if not chunk:
                break
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    finally:
        watcher.cancel()


async def _answer(send: Any, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
