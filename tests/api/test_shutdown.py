"""Stopping a server with streams open: each stream ends at once with its last chunk, the
connection history records why, and the server exits instead of waiting for the streams."""

from __future__ import annotations

import sqlite3
import threading

import httpx
import pytest
from tests.support.server import PG_ENV, LiveServer

from roost.storage.db import sqlite_path

pytestmark = pytest.mark.sqlite_only  # reads the history from the SQLite file after the server stopped


def test_open_streams_end_and_the_server_exits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PG_ENV, raising=False)
    live = LiveServer(tag="shutdown").start()
    credentials = httpx.get(live.base_url + "/_roost/credentials", timeout=10).json()
    ended: list[bool] = []
    received: list[bytes] = []

    def hold_stream() -> None:
        headers = {"Authorization": f"Bearer {credentials['bearer_token']}"}
        with (
            httpx.Client(base_url=live.base_url, timeout=30) as client,
            client.stream("GET", "/2/tweets/sample/stream", headers=headers) as response,
        ):
            assert response.status_code == 200
            opened.set()
            # Returns when the server ends the stream with its last chunk; a connection cut at the end
            # of the server's grace period raises instead (an incomplete chunked body).
            received.extend(response.iter_raw())
        ended.append(True)

    opened = threading.Event()
    holder = threading.Thread(target=hold_stream, daemon=True)
    holder.start()
    assert opened.wait(10)
    live.stop()
    # Bounded by the 10 s join: the 20 s keep-alive would not end the stream within it.
    holder.join(10)
    assert not holder.is_alive(), "the stream was still open 10 s after the server was asked to stop"
    assert ended == [True], "the stream did not end cleanly with its last chunk"
    assert not live.thread.is_alive()
    with sqlite3.connect(sqlite_path(live.settings.db_url)) as conn:
        reasons = [row[0] for row in conn.execute("SELECT disconnect_reason FROM stream_connections")]
    assert reasons == ["server_shutdown"]


def test_a_stream_opened_while_the_server_stops_ends_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client reconnecting in the moment between the streams' end and the listener's close is
    ended like the others, instead of holding the stop until the grace period cuts it."""
    monkeypatch.delenv(PG_ENV, raising=False)
    live = LiveServer(tag="shutdown-reconnect").start()
    try:
        credentials = httpx.get(live.base_url + "/_roost/credentials", timeout=10).json()
        live.loop.call_soon_threadsafe(live.app.end_streams)  # the stop's first step, and no more
        headers = {"Authorization": f"Bearer {credentials['bearer_token']}"}
        with (
            httpx.Client(base_url=live.base_url, timeout=10) as client,
            client.stream("GET", "/2/tweets/sample/stream", headers=headers) as response,
        ):
            assert response.status_code == 200
            # Ends by itself well before the 20 s keep-alive, or the 10 s read timeout raises.
            body = b"".join(response.iter_raw())
        assert b'"data"' not in body
    finally:
        live.stop()
