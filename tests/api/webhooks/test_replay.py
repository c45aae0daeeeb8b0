"""Replay jobs: `POST /2/webhooks/replay` and the deprecated account-activity replay."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from tests.api.helpers import PROBLEMS, User, create_ok, new_user
from tests.api.webhooks.helpers import make_hook, subscribe, wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

from roost.storage.deliveries import DeliveryStore

MINUTE = 60
HOUR = 3600


# A server of this module's own: the tests move its clock and shorten the retry schedule.
@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    extra = {"webhook_limit": "20", "subscription_limit": "100", "delivery_retry_schedule": "60"}
    live = LiveServer(tag="replay", rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


def now_ms(api: Api) -> int:
    raw = api.http.get("/_roost/clock").json()["now"]
    return int(datetime.strptime(raw, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp() * 1000)


def stamp(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y%m%d%H%M")


def ago(api: Api, seconds: float) -> str:
    return stamp(now_ms(api) - int(seconds * 1000))


def replay(api: Api, body: Any) -> httpx.Response:
    # 2.159 puts the job at the top level; 2.167 and the docs wrap it in `data` (roost follows them).
    return api.post("/2/webhooks/replay", json=body, conform=False)


def reason(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == PROBLEMS + "invalid-request" and body["title"] == "Invalid Request"
    message: str = body["errors"][0]["message"]
    return message


def routes(server: LiveServer, webhook_id: str) -> list[tuple[str, str, str]]:
    assert server.app.state is not None
    rows = server.run(DeliveryStore(server.app.server.stores.db).listing(int(webhook_id)))
    return [(str(row["route"]), str(row["event_id"]), str(row["state"])) for row in rows]


def bodies(receiver: Receiver, hook: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(post["raw"]) for post in receiver.received(urlsplit(hook["url"]).path)]


def live_hook(api: Api, receiver: Receiver, posts: int = 2) -> tuple[dict[str, Any], User]:
    hook = make_hook(api, receiver)
    user = new_user(api)
    subscribe(api, hook["id"], user)
    for _ in range(posts):
        create_ok(api, user)
    path = urlsplit(hook["url"]).path
    assert wait_for(lambda: len(receiver.received(path)) == posts)
    return hook, user


# ---- validation ---------------------------------------------------------------------------------


def test_body_fields_are_required(api: Api, receiver: Receiver) -> None:
    hook = make_hook(api, receiver)
    full = {"webhook_id": hook["id"], "from_date": ago(api, HOUR), "to_date": ago(api, 0)}
    for name in full:
        body = {key: value for key, value in full.items() if key != name}
        assert reason(replay(api, body)) == f"$.{name}: is missing but it is required"
    assert reason(replay(api, {**full, "webhook_id": "12ab"})).startswith("$.webhook_id:")
    assert reason(replay(api, {**full, "webhook_id": 12})).startswith("$.webhook_id:")


@pytest.mark.parametrize("bad", ["2025", "abcdefghijkl", "202513011200", "2025010112000", 202501011200])
def test_dates_must_be_yyyymmddhhmm(api: Api, receiver: Receiver, bad: Any) -> None:
    hook = make_hook(api, receiver)
    good = ago(api, HOUR)
    message = reason(replay(api, {"webhook_id": hook["id"], "from_date": bad, "to_date": good}))
    assert message.startswith("QueryParamInvalid: from_date")
    message = reason(replay(api, {"webhook_id": hook["id"], "from_date": good, "to_date": bad}))
    assert message.startswith("QueryParamInvalid: to_date")


def test_window_rules(api: Api, receiver: Receiver) -> None:
    hook = make_hook(api, receiver)

    def message(from_date: str, to_date: str) -> str:
        return reason(replay(api, {"webhook_id": hook["id"], "from_date": from_date, "to_date": to_date}))

    assert message(ago(api, 25 * HOUR), ago(api, HOUR)) == (
        "QueryParamInvalid: from_date must be within the last 24 hours"
    )
    assert message(ago(api, -10 * MINUTE), ago(api, -20 * MINUTE)) == (
        "QueryParamInvalid: from_date must not be in the future"
    )
    assert message(ago(api, HOUR), ago(api, -10 * MINUTE)) == (
        "QueryParamInvalid: to_date must not be in the future"
    )
    assert message(ago(api, 10 * MINUTE), ago(api, HOUR)) == (
        "QueryParamInvalid: from_date must not be after to_date"
    )
    # The edge of the window is accepted: 23 h 59 min ago, and the current minute.
    response = replay(
        api, {"webhook_id": hook["id"], "from_date": ago(api, 24 * HOUR - 60), "to_date": ago(api, 0)}
    )
    assert response.status_code == 200, response.text


def test_webhook_of_another_app_is_refused(api: Api) -> None:
    now = now_ms(api)
    body = {"webhook_id": "1234567890", "from_date": stamp(now - HOUR * 1000), "to_date": stamp(now)}
    assert reason(replay(api, body)).startswith("WebhookIdInvalid: ")


def test_needs_the_app_bearer(api: Api, receiver: Receiver) -> None:
    hook = make_hook(api, receiver)
    body = {"webhook_id": hook["id"], "from_date": ago(api, HOUR), "to_date": ago(api, 0)}
    response = api.post("/2/webhooks/replay", auth="oauth1", json=body, conform=False)
    assert response.status_code == 403, response.text
    assert response.json()["type"] == PROBLEMS + "unsupported-authentication"


def test_a_second_job_while_one_runs_is_a_conflict(api: Api, receiver: Receiver) -> None:
    hook, _ = live_hook(api, receiver, posts=1)
    receiver.fail_posts = 100  # the copy stays pending, waiting for its retry a minute later
    body = {"webhook_id": hook["id"], "from_date": ago(api, 10 * MINUTE), "to_date": ago(api, 0)}
    first = replay(api, body)
    assert first.status_code == 200, first.text
    assert wait_for(lambda: len(receiver.received(urlsplit(hook["url"]).path)) == 2)
    second = replay(api, body)
    assert second.status_code == 409, second.text
    problem = second.json()
    assert problem["type"] == PROBLEMS + "conflict" and problem["title"] == "Conflict"
    assert problem["status"] == 409
    assert problem["detail"].startswith("ReplayConflictError: ")


# ---- the job ------------------------------------------------------------------------------------


def test_replay_redelivers_the_window_then_reports(api: Api, receiver: Receiver, server: LiveServer) -> None:
    hook, _ = live_hook(api, receiver, posts=2)
    originals = bodies(receiver, hook)
    path = urlsplit(hook["url"]).path
    first_ids = [post["headers"]["x-roost-event-id"] for post in receiver.received(path)]

    response = replay(
        api, {"webhook_id": hook["id"], "from_date": ago(api, 5 * MINUTE), "to_date": ago(api, 0)}
    )
    assert response.status_code == 200, response.text
    job = response.json()["data"]
    assert set(job) == {"job_id", "created_at"} and job["job_id"].isdigit()
    assert job["created_at"].endswith("Z")

    got = wait_for(lambda: len(receiver.received(path)) >= 5 and receiver.received(path))
    assert len(got) == 5
    # Deliveries are concurrent, so the copies may arrive in either order; the status comes last.
    replayed = sorted(got[2:4], key=lambda post: post["headers"]["x-roost-event-id"])
    by_event = sorted(zip(first_ids, originals, strict=True))
    assert [post["headers"]["x-roost-event-id"] for post in replayed] == [pair[0] for pair in by_event]
    assert [json.loads(post["raw"]) for post in replayed] == [pair[1] for pair in by_event]
    status = json.loads(got[4]["raw"])
    assert status == {
        "replay_job_status": {
            "webhook_id": hook["id"],
            "job_state": "Complete",
            "job_state_description": "Job completed successfully",
            "job_id": job["job_id"],
        }
    }
    recorded = routes(server, hook["id"])
    assert [route for route, _, _ in recorded[2:4]] == [
        f"replay:{job['job_id']}:{row_id}" for row_id in _original_ids(server, hook["id"])
    ]
    assert recorded[4][0] == f"replay:{job['job_id']}:status"
    # The receiver logs a post before its answer reaches roost, so the last state may still be moving.
    settled = wait_for(lambda: all(state == "delivered" for _, _, state in routes(server, hook["id"])))
    assert settled, routes(server, hook["id"])

    # The job is over: another may start, and it replays the originals only, never earlier replays.
    again = replay(api, {"webhook_id": hook["id"], "from_date": ago(api, 5 * MINUTE), "to_date": ago(api, 0)})
    assert again.status_code == 200, again.text
    second_job = again.json()["data"]["job_id"]
    # The job copies its rows when it starts and reports once none is pending: when its status row is
    # there, every copy it made is too.
    status_route = f"replay:{second_job}:status"
    assert wait_for(lambda: status_route in [route for route, _, _ in routes(server, hook["id"])])
    copies = [
        route for route, _, _ in routes(server, hook["id"]) if route.startswith(f"replay:{second_job}:")
    ]
    assert copies == [f"replay:{second_job}:{row_id}" for row_id in _original_ids(server, hook["id"])] + [
        status_route
    ]
    # Eight rows in all (two originals, three rows per job), each sent once when it is delivered.
    settled = wait_for(lambda: all(state == "delivered" for _, _, state in routes(server, hook["id"])))
    assert settled, routes(server, hook["id"])
    assert len(routes(server, hook["id"])) == 8
    assert len(receiver.received(path)) == 8


def _original_ids(server: LiveServer, webhook_id: str) -> list[str]:
    assert server.app.state is not None
    rows = server.run(DeliveryStore(server.app.server.stores.db).listing(int(webhook_id)))
    return [str(row["id"]) for row in rows if not str(row["route"]).startswith("replay:")]


def test_only_the_window_is_replayed(api: Api, receiver: Receiver) -> None:
    hook, user = live_hook(api, receiver, posts=1)
    path = urlsplit(hook["url"]).path
    api.http.post("/_roost/clock", json={"advance_seconds": 10 * MINUTE})
    late = create_ok(api, user)
    assert wait_for(lambda: len(receiver.received(path)) == 2)
    response = replay(
        api, {"webhook_id": hook["id"], "from_date": ago(api, 2 * MINUTE), "to_date": ago(api, 0)}
    )
    assert response.status_code == 200, response.text
    got = wait_for(lambda: len(receiver.received(path)) >= 4 and receiver.received(path))
    replayed = json.loads(got[2]["raw"])
    assert replayed["tweet_create_events"][0]["id_str"] == late["id"]
    assert json.loads(got[3]["raw"])["replay_job_status"]["job_state"] == "Complete"


def test_an_empty_window_completes_at_once(api: Api, receiver: Receiver) -> None:
    hook = make_hook(api, receiver)
    response = replay(api, {"webhook_id": hook["id"], "from_date": ago(api, HOUR), "to_date": ago(api, 0)})
    assert response.status_code == 200, response.text
    got = wait_for(lambda: bodies(receiver, hook))
    assert [body["replay_job_status"]["job_state"] for body in got] == ["Complete"]


def test_undeliverable_copies_make_the_job_incomplete(api: Api, receiver: Receiver) -> None:
    hook, _ = live_hook(api, receiver, posts=1)
    path = urlsplit(hook["url"]).path
    receiver.fail_posts = 2  # the copy's first attempt and its one retry
    response = replay(
        api, {"webhook_id": hook["id"], "from_date": ago(api, 5 * MINUTE), "to_date": ago(api, 0)}
    )
    assert response.status_code == 200, response.text
    assert wait_for(lambda: len(receiver.received(path)) == 2)
    api.http.post("/_roost/clock", json={"advance_seconds": 61})
    got = wait_for(lambda: len(receiver.received(path)) >= 4 and receiver.received(path))
    assert [post["status"] for post in got] == [200, 500, 500, 200]
    status = json.loads(got[3]["raw"])["replay_job_status"]
    assert status["job_state"] == "Incomplete"
    assert status["job_state_description"].startswith("Job completed with errors")


# ---- the deprecated account-activity replay -------------------------------------------------


def test_deprecated_replay_answers_at_the_top_level(api: Api, receiver: Receiver) -> None:
    hook, _ = live_hook(api, receiver, posts=1)
    path = urlsplit(hook["url"]).path
    url = f"/2/account_activity/replay/webhooks/{hook['id']}/subscriptions/all"
    # to_date is exclusive here: the post's minute is covered by a to_date of the next minute,
    # which is in the future until the clock moves on.
    params = {"from_date": ago(api, 5 * MINUTE), "to_date": stamp(now_ms(api) + 60_000)}
    early = api.post(url, params=params)
    assert reason(early) == "QueryParamInvalid: to_date must not be in the future"
    api.http.post("/_roost/clock", json={"advance_seconds": MINUTE})
    response = api.post(url, params=params)
    assert response.status_code == 200, response.text
    job = response.json()
    assert set(job) == {"job_id", "created_at"}
    got = wait_for(lambda: len(receiver.received(path)) >= 3 and receiver.received(path))
    assert json.loads(got[2]["raw"])["replay_job_status"]["job_id"] == job["job_id"]


def test_deprecated_replay_validates(api: Api, receiver: Receiver) -> None:
    hook = make_hook(api, receiver)
    url = f"/2/account_activity/replay/webhooks/{hook['id']}/subscriptions/all"
    missing = api.post(url, params={"from_date": ago(api, HOUR)})
    assert missing.status_code == 400
    assert missing.json()["errors"][0]["parameters"] == {"to_date": []}
    bad = api.post(url, params={"from_date": "yesterday", "to_date": ago(api, 0)})
    assert reason(bad).startswith("QueryParamInvalid: from_date")
    other = api.post(
        "/2/account_activity/replay/webhooks/1234567890/subscriptions/all",
        params={"from_date": ago(api, HOUR), "to_date": ago(api, 0)},
    )
    assert reason(other).startswith("WebhookIdInvalid: ")
