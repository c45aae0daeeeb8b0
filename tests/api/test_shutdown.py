"""Stopping a server with streams open: each stream ends at once with its last chunk, the
connection history records why, and the server exits instead of waiting for the streams."""

from __future__ import annotations

import sqlite3
import threading
import time

import httpx
import pytest
from tests.support.server import PG_ENV, LiveServer

from roost.storage.db import sqlite_path

pytestmark = pytest.mark.sqlite_only  # reads the history from the SQLite file after the server stopped


def test_open_streams_end_and_the_server_exits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PG_ENV, raising=False)
    live = LiveServer(tag="shutdown").start()
    credentials = httpx.get(live.base_url + "/_roost/credentials", timeout=10).json()
    ended: list[float] = []
    received: list[bytes] = []

    def hold_stream() -> None:
        headers = {"Authorization": f"Bearer {credentials['bearer_token']}"}
        with (
            httpx.Client(base_url=live.base_url, timeout=30) as client,
            client.stream("GET", "/2/tweets/sample/stream", headers=headers) as response,
        ):
            assert response.status_code == 200
            opened.set()
            received.extend(response.iter_raw())  # returns when the server ends the stream
        ended.append(time.monotonic())

    opened = threading.Event()
    holder = threading.Thread(target=hold_stream, daemon=True)
    holder.start()
    assert opened.wait(10)
    asked = time.monotonic()
    live.stop()
    holder.join(10)
    assert ended and ended[0] - asked < 2.5  # not the 20 s keep-alive, nor the server's grace period
    assert not live.thread.is_alive()
    with sqlite3.connect(sqlite_path(live.settings.db_url)) as conn:
        reasons = [row[0] for row in conn.execute("SELECT disconnect_reason FROM stream_connections")]
    assert reasons == ["server_shutdown"]
