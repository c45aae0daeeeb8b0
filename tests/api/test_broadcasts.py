"""Scheduled broadcasts: create, get, list, update, delete, going live and chat; the lifecycle on the
roost clock (Scheduled → Running → Ended) and every refused transition; credentials and scopes; the
control plane's early end (docs/broadcasts.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.api.broadcast_support import (
    MINUTE_MS,
    SCHEDULED,
    advance,
    broadcaster,
    call,
    chat,
    conforming,
    create,
    get,
    schedule_body,
)
from tests.api.helpers import PROBLEMS, new_user, server_clock_ms
from tests.support.client import Api
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    """A server of its own: these tests move its clock."""
    live = LiveServer(tag="broadcasts", rate_limits=False).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


def message(response: httpx.Response) -> str:
    body = response.json()
    return str(body["errors"][0]["message"]) if "errors" in body else str(body["detail"])


# ---- the operations -------------------------------------------------------------------------------


def test_create_get_list_update_delete(api: Api) -> None:
    user = broadcaster(api)
    made = create(api, user, title="Launch", description="The launch", locale="en", chat_option="1")
    assert made["broadcast_id"].isalnum() and len(made["broadcast_id"]) == 13
    assert made["scheduled_broadcast_id"].isdigit()
    assert (made["state"], made["title"], made["locale"], made["chat_option"]) == (
        "Scheduled",
        "Launch",
        "en",
        "1",
    )
    assert (made["manual_publish"], made["available_for_replay"]) == (False, False)
    assert "recurring_schedule_id" not in made
    assert get(api, user, made["broadcast_id"]) == made

    listed = call(api, user, "GET", SCHEDULED)
    assert listed.status_code == 200
    assert listed.json() == {"data": [made], "meta": {"result_count": 1}}

    # A full replacement: the fields left out (title, description, chat option) are cleared.
    body = schedule_body(
        api, start_in_ms=30 * MINUTE_MS, scheduled_broadcast_id=made["scheduled_broadcast_id"]
    )
    body["locale"] = "fr"
    updated = call(api, user, "PUT", f"{SCHEDULED}/{made['broadcast_id']}", json=body)
    assert updated.status_code == 200, updated.text
    data = updated.json()["data"]
    assert data["scheduled_start_ms"] == body["scheduled_start_ms"]
    assert data["locale"] == "fr" and "title" not in data and "chat_option" not in data
    assert data["source_id"] == made["source_id"]  # the source stays bound

    deleted = call(api, user, "DELETE", f"{SCHEDULED}/{made['broadcast_id']}")
    assert deleted.status_code == 200
    assert deleted.json() == {"data": {"deleted": True}}
    gone = call(api, user, "GET", f"{SCHEDULED}/{made['broadcast_id']}")
    assert gone.status_code == 404
    assert gone.json()["detail"] == f"Could not find broadcast with id: [{made['broadcast_id']}]."
    assert call(api, user, "GET", SCHEDULED).json() == {"meta": {"result_count": 0}}


def test_list_window_and_pages(api: Api) -> None:
    user = broadcaster(api)
    made = [create(api, user, start_in_ms=(index + 1) * 60 * MINUTE_MS) for index in range(3)]
    first = call(api, user, "GET", SCHEDULED, params={"max_results": "2"}).json()
    assert [b["broadcast_id"] for b in first["data"]] == [b["broadcast_id"] for b in made[:2]]
    assert first["meta"]["result_count"] == 2
    rest = call(
        api,
        user,
        "GET",
        SCHEDULED,
        params={"max_results": "2", "pagination_token": first["meta"]["next_token"]},
    ).json()
    assert [b["broadcast_id"] for b in rest["data"]] == [made[2]["broadcast_id"]]
    assert "next_token" not in rest["meta"]

    # The window is inclusive at both ends.
    window = {
        "oldest_start_time": made[1]["scheduled_start_ms"],
        "newest_start_time": made[2]["scheduled_start_ms"],
    }
    within = call(api, user, "GET", SCHEDULED, params=window).json()
    assert [b["broadcast_id"] for b in within["data"]] == [b["broadcast_id"] for b in made[1:]]

    for name, value in (
        ("oldest_start_time", "yesterday"),
        ("max_results", "101"),
        ("pagination_token", "x"),
    ):
        refused = call(api, user, "GET", SCHEDULED, params={name: value})
        assert refused.status_code == 400, (name, refused.text)
        assert refused.json()["errors"][0]["parameters"] == {name: [value]}


def test_recurring_series(api: Api) -> None:
    user = broadcaster(api)
    first = create(api, user, recurrence={"frequency": "Daily", "repeats": "2"})
    series = first["recurring_schedule_id"]
    listed = call(api, user, "GET", SCHEDULED).json()["data"]
    assert [b["recurring_schedule_id"] for b in listed] == [series] * 3
    starts = [int(b["scheduled_start_ms"]) for b in listed]
    assert starts == [starts[0], starts[0] + 86_400_000, starts[0] + 2 * 86_400_000]
    assert listed[0] == first

    # Moving the head with roll_forward moves the later occurrences by as much.
    body = schedule_body(
        api, start_in_ms=70 * MINUTE_MS, scheduled_broadcast_id=first["scheduled_broadcast_id"]
    )
    body["roll_forward"] = True
    assert call(api, user, "PUT", f"{SCHEDULED}/{first['broadcast_id']}", json=body).status_code == 200
    moved = [int(b["scheduled_start_ms"]) for b in call(api, user, "GET", SCHEDULED).json()["data"]]
    shift = int(body["scheduled_start_ms"]) - starts[0]
    assert moved == [start + shift for start in starts]

    # Deleting the second with roll_forward removes it and the third.
    second = call(api, user, "GET", SCHEDULED).json()["data"][1]
    path = f"{SCHEDULED}/{second['broadcast_id']}"
    assert call(api, user, "DELETE", path, params={"roll_forward": "true"}).status_code == 200
    left = call(api, user, "GET", SCHEDULED).json()["data"]
    assert [b["broadcast_id"] for b in left] == [first["broadcast_id"]]


# ---- the lifecycle on the roost clock -----------------------------------------------------------------


def test_automatic_schedule_starts_and_ends_on_the_clock(api: Api) -> None:
    owner, viewer = broadcaster(api), broadcaster(api)
    made = create(api, owner, start_in_ms=MINUTE_MS, length_ms=30 * MINUTE_MS)
    early = chat(api, viewer, made["broadcast_id"], "too early")
    assert early.status_code == 400
    assert message(early) == f"Broadcast [{made['broadcast_id']}] is not live."

    advance(api, 61)
    assert get(api, owner, made["broadcast_id"])["state"] == "Running"
    sent = chat(api, viewer, made["broadcast_id"], "hello from the audience")
    assert sent.status_code == 200, sent.text
    data = sent.json()["data"]
    assert data["success"] is True
    # The server time of the message in nanoseconds.
    assert abs(int(data["timestamp"]) // 1_000_000 - server_clock_ms(api.http)) < 5_000

    # Running: no edits, no deletion, no second go-live.
    path = f"{SCHEDULED}/{made['broadcast_id']}"
    edit = call(
        api,
        owner,
        "PUT",
        path,
        json=schedule_body(api, scheduled_broadcast_id=made["scheduled_broadcast_id"]),
    )
    assert edit.status_code == 400
    assert message(edit) == f"Broadcast [{made['broadcast_id']}] is live and can no longer be changed."
    removed = call(api, owner, "DELETE", path)
    assert removed.status_code == 400
    assert (
        message(removed) == f"Broadcast [{made['broadcast_id']}] is live and cannot be deleted until it ends."
    )

    advance(api, 30 * 60)
    ended = get(api, owner, made["broadcast_id"])
    assert ended["state"] == "Ended"
    late = chat(api, viewer, made["broadcast_id"], "too late")
    assert late.status_code == 400
    edit = call(
        api,
        owner,
        "PUT",
        path,
        json=schedule_body(api, scheduled_broadcast_id=made["scheduled_broadcast_id"]),
    )
    assert edit.status_code == 400
    assert message(edit) == f"Broadcast [{made['broadcast_id']}] has ended and can no longer be changed."
    # An ended schedule may be removed.
    assert call(api, owner, "DELETE", path).status_code == 200


def test_manual_publish_waits_for_go_live(api: Api) -> None:
    owner = broadcaster(api)
    made = create(api, owner, start_in_ms=MINUTE_MS, manual_publish=True)
    assert made["manual_publish"] is True
    advance(api, 120)
    assert get(api, owner, made["broadcast_id"])["state"] == "Scheduled"  # not published at its start

    live = call(api, owner, "POST", f"{SCHEDULED}/{made['broadcast_id']}/live")
    assert live.status_code == 200, live.text
    assert live.json()["data"]["state"] == "Running"
    again = call(api, owner, "POST", f"{SCHEDULED}/{made['broadcast_id']}/live")
    assert again.status_code == 400
    assert message(again) == f"Broadcast [{made['broadcast_id']}] is already live."
    assert chat(api, owner, made["broadcast_id"], "the host speaks").status_code == 200

    automatic = create(api, owner)
    refused = call(api, owner, "POST", f"{SCHEDULED}/{automatic['broadcast_id']}/live")
    assert refused.status_code == 400
    assert "published automatically" in message(refused)


def test_manual_schedule_never_published_ends_at_its_end(api: Api) -> None:
    owner = broadcaster(api)
    made = create(api, owner, start_in_ms=MINUTE_MS, length_ms=10 * MINUTE_MS, manual_publish=True)
    advance(api, 12 * 60)
    assert get(api, owner, made["broadcast_id"])["state"] == "Ended"
    late = call(api, owner, "POST", f"{SCHEDULED}/{made['broadcast_id']}/live")
    assert late.status_code == 400
    assert message(late) == f"Broadcast [{made['broadcast_id']}] has ended and can no longer be published."


def test_the_control_plane_ends_a_running_broadcast(api: Api) -> None:
    owner = broadcaster(api)
    made = create(api, owner, start_in_ms=0, manual_publish=True)
    assert call(api, owner, "POST", f"{SCHEDULED}/{made['broadcast_id']}/live").status_code == 200
    ended = api.http.post(f"/_roost/broadcasts/{made['broadcast_id']}/end")
    assert ended.status_code == 200, ended.text
    assert (ended.json()["state"], ended.json()["ended_now"]) == ("Ended", True)
    assert api.http.post(f"/_roost/broadcasts/{made['broadcast_id']}/end").json()["ended_now"] is False
    assert get(api, owner, made["broadcast_id"])["state"] == "Ended"
    assert api.http.post("/_roost/broadcasts/1AAAAAAAAAAAA/end").status_code == 404


# ---- whose broadcast, and what is refused ---------------------------------------------------------------


def test_only_the_owner_reads_or_changes_a_schedule(api: Api) -> None:
    owner, other = broadcaster(api), broadcaster(api)
    made = create(api, owner)
    path = f"{SCHEDULED}/{made['broadcast_id']}"
    body = schedule_body(api, scheduled_broadcast_id=made["scheduled_broadcast_id"])
    for method, target, kwargs in (
        ("GET", path, {}),
        ("PUT", path, {"json": body}),
        ("DELETE", path, {}),
        ("POST", f"{path}/live", {}),
    ):
        refused = call(api, other, method, target, **kwargs)
        assert refused.status_code == 403, (method, target, refused.text)
        assert refused.json()["type"] == PROBLEMS + "not-authorized-for-resource"
    assert call(api, other, "GET", SCHEDULED).json() == {"meta": {"result_count": 0}}
    unknown = call(api, owner, "GET", f"{SCHEDULED}/1AAAAAAAAAAAA")
    assert unknown.status_code == 404
    bad_id = call(api, owner, "GET", f"{SCHEDULED}/not-an-id")
    assert bad_id.status_code == 400
    # The chat of a broadcast that does not exist: 400, as the platform documents.
    assert chat(api, other, "1AAAAAAAAAAAA", "anyone?").status_code == 400


def test_update_names_the_scheduler_id(api: Api) -> None:
    owner = broadcaster(api)
    made = create(api, owner)
    wrong = schedule_body(api, scheduled_broadcast_id="12345")
    refused = call(api, owner, "PUT", f"{SCHEDULED}/{made['broadcast_id']}", json=wrong)
    assert refused.status_code == 400
    assert message(refused).startswith("$.scheduled_broadcast_id: [12345] is not the scheduler id")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"source_id": None}, "$.source_id: is missing but it is required"),
        ({"scheduled_end_ms": None}, "$.scheduled_end_ms: is missing but it is required"),
        (
            {"extra": 1},
            "$.extra: is not defined in the schema and the schema does not allow additional properties",
        ),
        ({"source_id": ""}, "$.source_id: must be at least 1 characters long"),
        (
            {"scheduled_start_ms": "soon"},
            "$.scheduled_start_ms: does not match the regex pattern ^[0-9]{1,19}$",
        ),
        ({"scheduled_start_ms": 5}, "$.scheduled_start_ms: integer found, string expected"),
        ({"manual_publish": "yes"}, "$.manual_publish: string found, boolean expected"),
        ({"telecast_id": "t1"}, "$.telecast_id: does not match the regex pattern ^[0-9]{1,19}$"),
        (
            {"recurrence": {"frequency": "Hourly", "repeats": "2"}},
            "$.recurrence.frequency: does not have a value",
        ),
        ({"recurrence": {"frequency": "Daily"}}, "$.recurrence.repeats: is missing but it is required"),
        (
            {"recurrence": {"frequency": "Daily", "repeats": "101"}},
            "$.recurrence.repeats: must be less than or",
        ),
        ({"scheduled_start_ms": "1000"}, "$.scheduled_start_ms: must be a time from now to 366 days ahead"),
        ({"scheduled_start_ms": "9999999999999999999"}, "$.scheduled_start_ms: must be a time from now"),
    ],
)
def test_create_body_refusals(api: Api, change: dict[str, Any], expected: str) -> None:
    user = broadcaster(api)
    body = schedule_body(api)
    for name, value in change.items():
        if value is None:
            body.pop(name)
        else:
            body[name] = value
    refused = call(api, user, "POST", SCHEDULED, json=body)
    assert refused.status_code == 400, refused.text
    assert message(refused).startswith(expected), message(refused)


def test_end_before_start_and_chat_text(api: Api) -> None:
    user = broadcaster(api)
    body = schedule_body(api)
    body["scheduled_end_ms"] = body["scheduled_start_ms"]
    refused = call(api, user, "POST", SCHEDULED, json=body)
    assert refused.status_code == 400
    assert message(refused) == "$.scheduled_end_ms: must be after scheduled_start_ms"

    made = create(api, user, start_in_ms=0)
    assert get(api, user, made["broadcast_id"])["state"] == "Running"
    assert chat(api, user, made["broadcast_id"], "x" * 140).status_code == 200
    for text, expected in (
        ("x" * 141, "$.text: may only be 140 characters long"),
        ("", "$.text: must be at least 1"),
    ):
        too = chat(api, user, made["broadcast_id"], text)
        assert too.status_code == 400
        assert message(too).startswith(expected)
    extra = call(
        api, user, "POST", f"/2/broadcasts/{made['broadcast_id']}/chat", json={"text": "a", "reply_to": "1"}
    )
    assert extra.status_code == 400


def test_credentials_and_scopes(api: Api) -> None:
    owner = broadcaster(api)
    made = create(api, owner)
    app_only = api.get(SCHEDULED, conform=False)
    assert app_only.status_code == 403
    # (2.167's Problem lists no unsupported-authentication subtype: the platform's own body, unchecked.)
    assert app_only.json()["type"] == PROBLEMS + "unsupported-authentication"

    reader = broadcaster(api, "broadcast.read tweet.read users.read")
    assert call(api, reader, "GET", SCHEDULED).status_code == 200
    refused = call(api, reader, "POST", SCHEDULED, checked=False, json=schedule_body(api))
    assert (refused.status_code, refused.json()["detail"]) == (403, "Forbidden")
    narrow = broadcaster(api, "tweet.read users.read")
    assert call(api, narrow, "GET", SCHEDULED, checked=False).status_code == 403

    # OAuth 1.0a user context: the demo user reads and writes its own schedules.
    path = SCHEDULED
    signed = api.request("POST", path, auth="oauth1", json=schedule_body(api), conform=False)
    assert signed.status_code == 201, signed.text
    mine = conforming(signed)["data"]
    listed = api.request("GET", path, auth="oauth1", conform=False)
    assert mine in conforming(listed)["data"]
    assert made not in listed.json()["data"]


def test_someone_else_may_chat_but_not_as_a_read_only_token(api: Api) -> None:
    owner = broadcaster(api)
    made = create(api, owner, start_in_ms=0)
    viewer = new_user(api)  # default scopes: no broadcast.write
    refused = api.post(
        f"/2/broadcasts/{made['broadcast_id']}/chat",
        auth="none",
        headers={"Authorization": f"Bearer {viewer['oauth2']}"},
        json={"text": "hi"},
        conform=False,
    )
    assert refused.status_code == 403


def test_broadcast_event_subscriptions(api: Api) -> None:
    """`broadcast.start` and `broadcast.end` are public; `broadcast.chat` is the owner's own, with
    `broadcast.read`."""
    owner = broadcaster(api)
    subs = "/2/activity/subscriptions"
    for event_type in ("broadcast.start", "broadcast.end"):
        made = api.post(
            subs, json={"event_type": event_type, "filter": {"user_id": owner["id"]}}, conform=False
        )
        assert made.status_code == 200, made.text
    chat_body = {"event_type": "broadcast.chat", "filter": {"user_id": owner["id"]}}
    app_only = api.post(subs, json=chat_body, conform=False)
    assert app_only.status_code == 403
    without_scope = new_user(api)  # default scopes: no broadcast.read
    refused = api.post(
        subs,
        json={"event_type": "broadcast.chat", "filter": {"user_id": without_scope["id"]}},
        auth="none",
        headers={"Authorization": f"Bearer {without_scope['oauth2']}"},
        conform=False,
    )
    assert refused.status_code == 403
    other = call(api, broadcaster(api), "POST", subs, checked=False, json=chat_body)
    assert other.status_code == 403
    assert "may only filter on the authenticated user" in other.json()["detail"]
    mine = call(api, owner, "POST", subs, checked=False, json=chat_body)
    assert mine.status_code == 200, mine.text
    assert mine.json()["data"]["subscription"]["event_type"] == "broadcast.chat"
