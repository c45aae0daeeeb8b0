"""`/2/connections`: active and historical connections of the app, and deleting them by all, by
endpoint and by UUID — a deleted stream receives the in-band `operational-disconnect` line and ends."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from tests.api.helpers import PROBLEMS
from tests.api.streams.stream_support import conforms_167, stream, wait_for
from tests.api.test_filtered_stream import Lines
from tests.support.client import Api
from tests.support.server import LiveServer

CONNECTIONS = "/2/connections"
SAMPLE = "/2/tweets/sample/stream"
LABELS = "/2/tweets/label/stream"
DISCONNECT = {
    "errors": [
        {
            "title": "operational-disconnect",
            "disconnect_type": "ForceDisconnect",
            "detail": "This stream has been disconnected upstream for operational reasons.",
            "type": PROBLEMS + "operational-disconnect",
        }
    ]
}


def call(api: Api, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
    response = api.request(method, path, conform=False, **kwargs)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    conforms_167(method, path, 200, body)
    return body


def listed(api: Api, **params: str) -> list[dict[str, Any]]:
    return call(api, "GET", CONNECTIONS, params=params).get("data", [])


def opened(response: httpx.Response) -> Lines:
    """The stream's lines after its first one (held: a dropped iterator closes the response)."""
    assert response.status_code == 200
    lines = Lines(response)
    lines.next_raw()
    return lines


def ends_with_disconnect(lines: Lines) -> None:
    """The rest of the stream ends, and its last line is the disconnect message."""
    rest = lines._buffer + b"".join(lines._chunks)
    assert rest.endswith(b"\r\n")
    last = [line for line in rest.split(b"\r\n") if line.strip()][-1]
    assert json.loads(last) == DISCONNECT


def test_active_then_history(api: Api, server: LiveServer) -> None:
    with stream(server, api, SAMPLE) as response:
        held = opened(response)
        active = listed(api)
        assert len(active) == 1
        item = active[0]
        assert item["endpoint_name"] == "sample_stream" and item["connected_at"].endswith("Z")
        assert len(item["id"]) == 36  # a UUID
        del held

    def closed() -> list[dict[str, Any]]:
        fields = "disconnect_reason,disconnected_at"
        found = listed(api, status="inactive", **{"connection.fields": fields})
        return [c for c in found if c["id"] == item["id"]]

    history = wait_for(closed)
    assert history and history[0]["disconnect_reason"] == "client_disconnect"
    assert history[0]["disconnected_at"] >= history[0]["connected_at"]
    assert all(c["id"] != item["id"] for c in listed(api))  # no longer active


def test_delete_all_sends_the_disconnect_line(api: Api, server: LiveServer) -> None:
    with stream(server, api, SAMPLE) as first, stream(server, api, LABELS) as second:
        one, two = opened(first), opened(second)
        body = call(api, "DELETE", CONNECTIONS + "/all")
        assert body["data"]["successful_kills"] == 2 and body["data"]["failed_kills"] == 0
        assert all(r["success"] for r in body["data"]["results"])
        ends_with_disconnect(one)
        ends_with_disconnect(two)
    assert listed(api) == []
    reasons = wait_for(
        lambda: (
            {
                c["disconnect_reason"]
                for c in listed(api, status="all", **{"connection.fields": "disconnect_reason"})
                if c["id"] in {r["uuid"] for r in body["data"]["results"]}
            }
            == {"operator_disconnect"}
        )
    )
    assert reasons
    # The slot is free at once: the same stream can be opened again.
    with stream(server, api, SAMPLE) as again:
        assert again.status_code == 200


def test_delete_by_endpoint_leaves_other_streams(api: Api, server: LiveServer) -> None:
    with stream(server, api, SAMPLE) as sample, stream(server, api, LABELS) as labels:
        killed, kept = opened(sample), opened(labels)
        body = call(api, "DELETE", CONNECTIONS + "/sample_stream")
        assert body["data"]["successful_kills"] == 1
        ends_with_disconnect(killed)
        assert kept.next_raw() == b"\r\n"  # still open
        assert [c["endpoint_name"] for c in listed(api)] == ["tweet_label_stream"]
        assert call(api, "DELETE", CONNECTIONS + "/tweet_label_stream")["data"]["successful_kills"] == 1


def test_delete_by_uuids(api: Api, server: LiveServer) -> None:
    with stream(server, api, SAMPLE) as response:
        held = opened(response)
        uuid = listed(api, endpoints="sample_stream")[0]["id"]
        missing = "00000000-0000-4000-8000-000000000000"
        body = call(api, "DELETE", CONNECTIONS, json={"uuids": [uuid, missing]})
        assert body["data"]["successful_kills"] == 1 and body["data"]["failed_kills"] == 1
        results = {r["uuid"]: r for r in body["data"]["results"]}
        assert results[uuid]["success"] is True
        assert results[missing]["success"] is False and results[missing]["error_message"]
        ends_with_disconnect(held)


def test_pagination_and_filters(api: Api, server: LiveServer) -> None:
    for _ in range(3):
        with stream(server, api, LABELS) as response:
            opened(response)
    wait_for(lambda: len(listed(api, status="inactive", endpoints="tweet_label_stream")) >= 3)
    first = call(api, "GET", CONNECTIONS, params={"status": "inactive", "max_results": "2"})
    assert first["meta"]["result_count"] == 2 and "next_token" in first["meta"]
    token = first["meta"]["next_token"]
    second = call(
        api, "GET", CONNECTIONS, params={"status": "inactive", "max_results": "2", "pagination_token": token}
    )
    assert not {c["id"] for c in first["data"]} & {c["id"] for c in second["data"]}
    only = listed(api, status="inactive", endpoints="filtered_stream")
    assert all(c["endpoint_name"] == "filtered_stream" for c in only)


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("GET", CONNECTIONS, {"params": {"status": "gone"}}),
        ("GET", CONNECTIONS, {"params": {"max_results": "101"}}),
        ("GET", CONNECTIONS, {"params": {"endpoints": "nope"}}),
        ("GET", CONNECTIONS, {"params": {"connection.fields": "nope"}}),
        ("GET", CONNECTIONS, {"params": {"pagination_token": "zz"}}),
        ("DELETE", CONNECTIONS + "/nope", {}),
        ("DELETE", CONNECTIONS, {"json": {}}),
        ("DELETE", CONNECTIONS, {"json": {"uuids": []}}),
        ("DELETE", CONNECTIONS, {"json": {"uuids": [1]}}),
        ("DELETE", CONNECTIONS, {"json": {"uuids": ["a"], "other": 1}}),
        ("DELETE", CONNECTIONS, {"json": ["a"]}),
    ],
)
def test_bad_requests(api: Api, method: str, path: str, kwargs: dict[str, Any]) -> None:
    response = api.request(method, path, **kwargs)
    assert response.status_code == 400, response.text
    assert response.json()["type"] == PROBLEMS + "invalid-request"


def test_bearer_only(api: Api) -> None:
    assert api.get(CONNECTIONS, auth="oauth2").status_code == 403
    assert api.delete(CONNECTIONS + "/all", auth="none").status_code == 401


def test_powerstream_rules_list_the_filtered_stream_rules(api: Api) -> None:
    rules = "/2/tweets/search/stream/rules"
    added = api.post(rules, json={"add": [{"value": "powerstream words", "tag": "ps"}]}, conform=False)
    assert added.status_code == 201, added.text
    try:
        listing = api.get("/2/powerstream/rules")
        assert listing.status_code == 200
        assert listing.json()["data"] == api.get(rules).json()["data"]
        assert listing.json()["data"][0]["tag"] == "ps"
        assert api.get("/2/powerstream/rules", params={"max_results": "0"}).status_code == 400
    finally:
        api.post(rules, params={"delete_all": "true"}, json={}, conform=False)
