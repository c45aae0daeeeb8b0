"""Several server processes on one database: a post created through one process reaches a filtered
stream held by another (PostgreSQL: announced by NOTIFY; SQLite: seen by the stream's poll)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.api.helpers import create_ok, new_user, unique_text
from tests.api.test_filtered_stream import RULES, STREAM, Lines
from tests.api.test_persistence import _serve, _wait_ready
from tests.support.client import Api
from tests.support.server import LiveServer, free_port, fresh_database_url


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    db_url = fresh_database_url("two_processes")
    first = LiveServer(tag="two_processes", db_url=db_url, rate_limits=False).start()
    port = free_port()
    second = _serve(db_url, port, tmp_path_factory.mktemp("second"))
    second_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(second_url, second)
        yield first, second_url
    finally:
        second.terminate()
        second.wait(timeout=15)
        first.stop()


def _api(base_url: str, credentials: dict[str, Any]) -> Api:
    return Api(base_url, credentials, check=False)


@pytest.mark.parametrize("direction", ["post on the second, stream on the first", "the other way"])
def test_post_reaches_a_stream_held_by_another_process(pair: tuple[LiveServer, str], direction: str) -> None:
    first, second_url = pair
    credentials = httpx.get(first.base_url + "/_roost/credentials", timeout=10).json()
    streaming_url, posting_url = (first.base_url, second_url)
    if direction == "the other way":
        streaming_url, posting_url = second_url, first.base_url
    streaming, posting = _api(streaming_url, credentials), _api(posting_url, credentials)
    try:
        word = unique_text("proc").split()[1]
        added = streaming.post(RULES, json={"add": [{"value": word, "tag": "cross"}]})
        assert added.status_code == 201, added.text
        rule_id = added.json()["data"][0]["id"]
        author = new_user(posting)
        with (
            httpx.Client(base_url=streaming_url, timeout=15) as client,
            client.stream("GET", STREAM, headers=streaming.bearer()) as response,
        ):
            assert response.status_code == 200
            lines = Lines(response)
            post = create_ok(posting, author, text=f"from the other process {word}")
            line = lines.next_post(timeout=10)
            assert line["data"]["id"] == post["id"]
            assert line["matching_rules"] == [{"id": rule_id, "tag": "cross"}]
        streaming.post(RULES, json={"delete": {"ids": [rule_id]}})
    finally:
        streaming.close()
        posting.close()


def test_connections_are_listed_and_ended_across_processes(pair: tuple[LiveServer, str]) -> None:
    first, second_url = pair
    credentials = httpx.get(first.base_url + "/_roost/credentials", timeout=10).json()
    here, there = _api(first.base_url, credentials), _api(second_url, credentials)
    try:
        there.delete("/2/connections/all")
        with (
            httpx.Client(base_url=second_url, timeout=15) as client,
            client.stream("GET", "/2/tweets/sample/stream", headers=there.bearer()) as response,
        ):
            assert response.status_code == 200
            listed = here.get("/2/connections", params={"status": "active"}).json()
            ids = [item["id"] for item in listed.get("data", [])]
            assert len(ids) == 1 and listed["data"][0]["endpoint_name"] == "sample_stream"
            ended = here.delete("/2/connections/all").json()["data"]
            assert ended["successful_kills"] == 1 and ended["results"][0]["uuid"] == ids[0]
            # The process holding the stream sends the in-band disconnect line, then closes it.
            lines = [line for line in b"".join(response.iter_bytes()).split(b"\r\n") if line.strip()]
            assert json.loads(lines[-1])["errors"][0]["disconnect_type"] == "ForceDisconnect"
        history = here.get(
            "/2/connections", params={"status": "inactive", "connection.fields": "disconnect_reason"}
        ).json()["data"]
        assert ids[0] in [item["id"] for item in history]
        assert not here.get("/2/connections", params={"status": "active"}).json().get("data")
    finally:
        here.close()
        there.close()


def test_the_connection_limit_counts_every_process(pair: tuple[LiveServer, str]) -> None:
    first, second_url = pair
    credentials = httpx.get(first.base_url + "/_roost/credentials", timeout=10).json()
    here, there = _api(first.base_url, credentials), _api(second_url, credentials)
    try:
        here.delete("/2/connections/all")
        with (
            httpx.Client(base_url=second_url, timeout=15) as client,
            client.stream("GET", "/2/tweets/sample/stream", headers=there.bearer()) as response,
        ):
            assert response.status_code == 200
            # The default limit is one connection per app and endpoint, held by the other process.
            refused = here.get("/2/tweets/sample/stream")
            assert refused.status_code == 429
            assert refused.json()["connection_issue"] == "TooManyConnections"
            listed = here.get(
                "/2/connections", params={"status": "active", "connection.fields": "client_ip"}
            ).json()["data"]
            assert [item["client_ip"] for item in listed] == ["127.0.0.1"]
        here.delete("/2/connections/all")
    finally:
        here.close()
        there.close()
