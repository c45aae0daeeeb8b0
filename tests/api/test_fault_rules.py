"""Fault rules (issue 17): `/_roost/faults` makes chosen requests answer the platform's error for a
status, after a delay, a number of times; streams end with an operational disconnect or stall."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def faulty() -> Iterator[Api]:
    live = LiveServer(tag="faults", rate_limits=False).start()
    creds = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
    client = Api(live.base_url, creds)
    yield client
    client.close()
    live.stop()


@pytest.fixture(autouse=True)
def no_rules(faulty: Api) -> Iterator[None]:
    yield
    faulty.http.delete("/_roost/faults")


def add(api: Api, **rule: Any) -> dict[str, Any]:
    response = api.http.post("/_roost/faults", json=rule)
    assert response.status_code == 201, response.text
    return response.json()["data"]


def test_a_rule_answers_its_status_with_the_platform_body_then_runs_out(faulty: Api) -> None:
    rule = add(faulty, method="GET", path="/2/tweets/search/*", status=503, times=2)
    assert rule["remaining"] == 2 and rule["hits"] == 0
    answers = [faulty.get("/2/tweets/search/recent", params={"query": "x"}, conform=False) for _ in range(3)]
    assert [a.status_code for a in answers] == [503, 503, 200]
    assert answers[0].json() == {
        "title": "Service Unavailable",
        "detail": "Service Unavailable",
        "type": "about:blank",
        "status": 503,
    }
    assert answers[0].headers["content-type"].startswith("application/problem+json")
    assert "x-transaction-id" in answers[0].headers
    listed = faulty.http.get("/_roost/faults").json()["data"]
    assert listed[0]["hits"] == 2 and listed[0]["remaining"] == 0
    journal = faulty.http.get("/_roost/requests", params={"status": "503", "limit": 1}).json()["data"]
    assert journal[0]["reason"].startswith(f"fault rule {rule['id']}")


def test_method_and_glob_must_match(faulty: Api) -> None:
    add(faulty, method="POST", path="/2/tweets", status=500)
    assert faulty.get("/2/tweets/search/recent", params={"query": "x"}).status_code == 200
    add(faulty, path="/2/users/*", status=429)
    refused = faulty.get("/2/users/me", auth="oauth2", conform=False)
    assert refused.status_code == 429
    assert refused.json()["title"] == "Too Many Requests"


def test_ads_and_v1_dialects_shape_the_fault(faulty: Api) -> None:
    add(faulty, path="/12/accounts", status=503)
    ads = faulty.http.get("/12/accounts", headers=faulty.oauth1("GET", "/12/accounts"))
    assert ads.status_code == 503
    body = ads.json()
    assert "errors" in body and "request" in body


def test_latency_only_delays_the_answer(faulty: Api) -> None:
    add(faulty, path="/2/tweets/search/recent", latency_ms=300, times=1)
    slow = faulty.get("/2/tweets/search/recent", params={"query": "x"})
    assert slow.status_code == 200
    assert slow.elapsed.total_seconds() >= 0.3


def test_bad_rules_are_400s(faulty: Api) -> None:
    for rule in (
        {"status": 200},
        {"status": "503"},
        {"path": "no-slash", "status": 503},
        {"method": "BREW", "status": 503},
        {"probability": 0, "status": 503},
        {"colour": "red", "status": 503},
        {"path": "/2/*"},
        {"stream": {"disconnect_type": "Nope"}},
        [1, 2],
    ):
        assert faulty.http.post("/_roost/faults", json=rule).status_code == 400, rule
    assert faulty.http.get("/_roost/faults").json()["data"] == []


def test_delete_one_and_all(faulty: Api) -> None:
    first = add(faulty, path="/2/a", status=500)
    add(faulty, path="/2/b", status=500)
    assert faulty.http.delete(f"/_roost/faults/{first['id']}").status_code == 204
    assert faulty.http.delete(f"/_roost/faults/{first['id']}").status_code == 404
    assert [r["path"] for r in faulty.http.get("/_roost/faults").json()["data"]] == ["/2/b"]
    assert faulty.http.delete("/_roost/faults").status_code == 204
    assert faulty.http.get("/_roost/faults").json()["data"] == []


def test_a_stream_ends_with_an_operational_disconnect_after_n_lines(faulty: Api) -> None:
    add(
        faulty,
        path="/2/tweets/sample/stream",
        stream={"after_lines": 0, "disconnect_type": "ForceDisconnect"},
    )
    with faulty.http.stream("GET", "/2/tweets/sample/stream", headers=faulty.bearer()) as response:
        assert response.status_code == 200
        lines = [line for line in response.iter_lines() if line.strip()]
    assert len(lines) == 1
    assert '"disconnect_type":"ForceDisconnect"' in lines[0]
    assert '"title":"operational-disconnect"' in lines[0]
