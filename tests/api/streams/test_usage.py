"""Usage: posts delivered by the post streams count against the project's monthly cap (and an
optional daily cap); over a cap a stream ends with the `usage-capped` problem and new connections
get it as a 429; `GET /2/usage/tweets` reports the counts (checked against SPEC 2.167)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests.api.helpers import PROBLEMS, create_ok, new_user
from tests.api.streams.stream_support import conforms_167, finite, now_iso, stream, window
from tests.support.client import Api
from tests.support.server import LiveServer

USAGE = "/2/usage/tweets"
SAMPLE = "/2/tweets/sample/stream"
FIREHOSE = "/2/tweets/firehose/stream"
ALL_FIELDS = "cap_reset_day,daily_client_app_usage,daily_project_usage,project_cap,project_id,project_usage"
SERVER_SETTINGS = {"sample_stream_percent": "100"}


@pytest.fixture(autouse=True)
def reset_caps(api: Api) -> Iterator[None]:
    yield
    api.http.post("/_roost/settings", json={"usage_monthly_cap": None, "usage_daily_cap": None})


def usage(api: Api, **params: str) -> dict[str, Any]:
    response = api.get(USAGE, params=params, conform=False)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    conforms_167("GET", USAGE, 200, body)
    return body["data"]


def used(api: Api) -> int:
    return int(usage(api)["project_usage"])


def test_defaults_and_all_fields(api: Api, credentials: dict[str, Any]) -> None:
    data = usage(api)
    assert set(data) == {"cap_reset_day", "project_cap", "project_id", "project_usage"}
    assert data["project_cap"] == "500000" and data["cap_reset_day"] == 1
    every = usage(api, days="3", **{"usage.fields": ALL_FIELDS})
    assert len(every["daily_project_usage"]["usage"]) == 3
    assert every["daily_project_usage"]["project_id"] == data["project_id"]
    apps = every["daily_client_app_usage"]
    assert apps and all(app["usage_result_count"] == 3 for app in apps)
    narrowed = usage(api, **{"usage.fields": "project_cap"})
    assert narrowed == {"project_cap": "500000"}


def test_the_cap_is_the_packages_unless_a_setting_holds_for_all(
    api: Api, credentials: dict[str, Any]
) -> None:
    self_serve = {"Authorization": f"Bearer {credentials['pay_per_use']['bearer_token']}"}
    response = api.http.get(USAGE, headers=self_serve)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["project_cap"] == "3000000"  # pay-per-use: 3 million post reads a month
    assert usage(api)["project_cap"] == "500000"  # enterprise: the seed's number
    api.http.post("/_roost/settings", json={"usage_monthly_cap": "1234"})
    assert api.http.get(USAGE, headers=self_serve).json()["data"]["project_cap"] == "1234"
    assert usage(api)["project_cap"] == "1234"


def test_streamed_posts_are_counted(api: Api, server: LiveServer) -> None:
    author = new_user(api)
    before = used(api)
    start = now_iso(server)
    for _ in range(3):
        create_ok(api, author)
    lines = finite(server, api, "/2/tweets/sample10/stream", partition="1", **window(server, start))
    lines += finite(server, api, "/2/tweets/sample10/stream", partition="2", **window(server, start))
    assert used(api) == before + len(lines)
    today = usage(api, days="1", **{"usage.fields": "daily_project_usage"})["daily_project_usage"]
    assert int(today["usage"][0]["usage"]) >= len(lines)


def test_compliance_streams_are_not_counted(api: Api, server: LiveServer) -> None:
    author = new_user(api)
    post = create_ok(api, author)["id"]
    before = used(api)
    start = now_iso(server)
    api.delete(f"/2/tweets/{post}", auth="none", headers={"Authorization": f"Bearer {author['oauth2']}"})
    for part in range(1, 5):
        finite(server, api, "/2/tweets/compliance/stream", partition=str(part), **window(server, start))
    assert used(api) == before


def test_monthly_cap_ends_the_stream_and_refuses_connections(api: Api, server: LiveServer) -> None:
    author = new_user(api)
    for _ in range(3):
        create_ok(api, author)
    cap = used(api) + 1
    api.http.post("/_roost/settings", json={"usage_monthly_cap": str(cap)})
    with stream(server, api, SAMPLE, backfill_minutes="5") as response:
        assert response.status_code == 200
        lines = [json.loads(line) for line in b"".join(response.iter_bytes()).split(b"\r\n") if line.strip()]
    assert ["data" in line for line in lines] == [True, False]  # one post, then the problem; closed
    problem = lines[-1]["errors"][0]
    assert problem["type"] == PROBLEMS + "usage-capped"
    assert (problem["period"], problem["scope"]) == ("Monthly", "Product")
    assert used(api) == cap
    refused = api.get(SAMPLE)
    assert refused.status_code == 429
    body = refused.json()
    assert body["title"] == "UsageCapExceeded" and (body["period"], body["scope"]) == ("Monthly", "Product")
    assert body["detail"] == "Usage cap exceeded: Monthly product cap"
    # Compliance streams deliver no posts and stay available.
    with stream(server, api, "/2/likes/compliance/stream") as compliance:
        assert compliance.status_code == 200


def test_daily_cap(api: Api, server: LiveServer) -> None:
    project_id = int(usage(api)["project_id"])
    assert server.app.server is not None
    server.run(server.app.server.domain.usage.record(project_id, 1))
    today = usage(api, days="1", **{"usage.fields": "daily_project_usage"})["daily_project_usage"]
    api.http.post("/_roost/settings", json={"usage_daily_cap": today["usage"][0]["usage"]})
    refused = api.get(FIREHOSE, params={"partition": "1"})
    assert refused.status_code == 429
    assert (refused.json()["period"], refused.json()["scope"]) == ("Daily", "Account")
    assert refused.json()["detail"] == "Usage cap exceeded: Daily account cap"


def test_record_usage_for_other_operations(api: Api, server: LiveServer) -> None:
    before = usage(api)
    assert server.app.server is not None
    server.run(server.app.server.domain.usage.record(int(before["project_id"]), 5))
    assert int(usage(api)["project_usage"]) == int(before["project_usage"]) + 5


@pytest.mark.parametrize(
    "params", [{"days": "0"}, {"days": "91"}, {"days": "x"}, {"usage.fields": "nope"}, {"other": "1"}]
)
def test_bad_requests(api: Api, params: dict[str, str]) -> None:
    response = api.get(USAGE, params=params)
    assert response.status_code == 400
    assert response.json()["type"] == PROBLEMS + "invalid-request"


def test_bearer_only(api: Api) -> None:
    assert api.get(USAGE, auth="oauth2").status_code == 403
    assert api.get(USAGE, auth="none").status_code == 401


def test_search_results_count_and_are_capped(api: Api) -> None:
    api.http.post("/_roost/settings", json={"search_default_end_lag_s": "0"})
    try:
        author = new_user(api)
        word = "u" + author["id"][-8:]
        for index in range(3):
            create_ok(api, author, text=f"counted {word} {index}")
        before = used(api)
        found = api.get("/2/tweets/search/recent", params={"query": word})
        assert found.status_code == 200, found.text
        assert found.json()["meta"]["result_count"] == 3
        assert used(api) == before + 3
        api.http.post("/_roost/settings", json={"usage_monthly_cap": str(before + 3)})
        refused = api.get("/2/tweets/search/recent", params={"query": word}, conform=False)
        assert refused.status_code == 429
        assert refused.json()["type"] == PROBLEMS + "usage-capped"
    finally:
        api.http.post("/_roost/settings", json={"search_default_end_lag_s": None})
