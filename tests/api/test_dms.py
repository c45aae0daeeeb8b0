"""Direct messages: 1:1 and group creation, event lookups, visibility, permissions (code 93), events log."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.api.helpers import User, bearer, unique_text
from tests.support.client import Api
from tests.support.server import LiveServer

CODE_93 = {
    "errors": [
        {"code": 93, "message": "This application is not allowed to access or delete your direct messages."}
    ]
}


def send(api: Api, sender: User, participant: User, body: dict[str, Any] | None = None) -> httpx.Response:
    payload = body if body is not None else {"text": unique_text("dm")}
    return api.post(
        f"/2/dm_conversations/with/{participant['id']}/messages",
        auth="none",
        headers=bearer(sender),
        json=payload,
    )


def send_ok(api: Api, sender: User, participant: User, **body: Any) -> dict[str, str]:
    response = send(api, sender, participant, body or None)
    assert response.status_code == 201, response.text
    data: dict[str, str] = response.json()["data"]
    return data


def get(api: Api, user: User, path: str, **params: str) -> httpx.Response:
    return api.get(path, auth="none", headers=bearer(user), params=params)


def get_ok(api: Api, user: User, path: str, **params: str) -> dict[str, Any]:
    response = get(api, user, path, **params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def oauth2_token(api: Api, user: User, scopes: str) -> str:
    response = api.http.post(
        "/_roost/tokens",
        json={
            "consumer_key": api.creds["consumer_key"],
            "user_id": user["id"],
            "kind": "oauth2",
            "scopes": scopes,
        },
    )
    assert response.status_code == 201, response.text
    token: str = response.json()["access_token"]
    return token


def test_one_to_one_create_returns_ids(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    response = send(api, alice, bob, {"text": "hello bob"})
    assert response.status_code == 201
    body = response.json()
    low, high = sorted((int(alice["id"]), int(bob["id"])))
    assert body == {
        "data": {"dm_conversation_id": f"{low}-{high}", "dm_event_id": body["data"]["dm_event_id"]}
    }
    assert body["data"]["dm_event_id"].isdigit()
    # Bob answering lands in the same conversation.
    assert send_ok(api, bob, alice)["dm_conversation_id"] == f"{low}-{high}"


def test_reply_into_conversation_and_read_it_back(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    first = send_ok(api, alice, bob, text="first")
    conversation = first["dm_conversation_id"]
    response = api.post(
        f"/2/dm_conversations/{conversation}/messages",
        auth="none",
        headers=bearer(bob),
        json={"text": "second"},
    )
    assert response.status_code == 201, response.text
    second = response.json()["data"]
    assert second["dm_conversation_id"] == conversation
    body = get_ok(api, alice, f"/2/dm_conversations/{conversation}/dm_events")
    assert body["data"] == [
        {"id": second["dm_event_id"], "event_type": "MessageCreate", "text": "second"},
        {"id": first["dm_event_id"], "event_type": "MessageCreate", "text": "first"},
    ]
    assert body["meta"] == {"result_count": 2}
    by_participant = get_ok(api, bob, f"/2/dm_conversations/with/{alice['id']}/dm_events")
    assert [item["id"] for item in by_participant["data"]] == [second["dm_event_id"], first["dm_event_id"]]


def test_fields_and_sender_expansion(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    sent = send_ok(api, alice, bob, text=f"hi @{bob['username']} see https://example.com #roost")
    body = get_ok(
        api,
        bob,
        f"/2/dm_events/{sent['dm_event_id']}",
        **{"dm_event.fields": "created_at,dm_conversation_id,sender_id,entities", "expansions": "sender_id"},
    )
    data = body["data"]
    assert data["id"] == sent["dm_event_id"]
    assert data["sender_id"] == alice["id"]
    assert data["dm_conversation_id"] == sent["dm_conversation_id"]
    assert data["created_at"].endswith("Z")
    assert "participant_ids" not in data
    assert data["entities"]["mentions"][0]["username"] == bob["username"]
    assert data["entities"]["hashtags"][0]["tag"] == "roost"
    [included] = body["includes"]["users"]
    assert included["id"] == alice["id"] and included["username"] == alice["username"]
    assert set(included) == {"id", "name", "username"}


def test_group_creation_emits_join_then_message(api: Api, make_user: Any) -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    response = api.post(
        "/2/dm_conversations",
        auth="none",
        headers=bearer(alice),
        json={
            "conversation_type": "Group",
            "participant_ids": [bob["id"], carol["id"]],
            "message": {"text": "hey"},
        },
    )
    assert response.status_code == 201, response.text
    created = response.json()["data"]
    conversation = created["dm_conversation_id"]
    assert conversation.isdigit() and 15 <= len(conversation) <= 19
    fields = {"dm_event.fields": "participant_ids,sender_id", "expansions": "participant_ids"}
    body = get_ok(api, carol, f"/2/dm_conversations/{conversation}/dm_events", **fields)
    message, join = body["data"]
    assert message == {
        "id": created["dm_event_id"],
        "event_type": "MessageCreate",
        "text": "hey",
        "sender_id": alice["id"],
    }
    assert join["event_type"] == "ParticipantsJoin"
    assert sorted(join["participant_ids"]) == sorted([alice["id"], bob["id"], carol["id"]])
    assert "text" not in join
    assert {user["id"] for user in body["includes"]["users"]} == {alice["id"], bob["id"], carol["id"]}
    only_joins = get_ok(
        api, bob, f"/2/dm_conversations/{conversation}/dm_events", event_types="ParticipantsJoin"
    )
    assert [item["event_type"] for item in only_joins["data"]] == ["ParticipantsJoin"]
    # Any member may write into the group.
    reply = api.post(
        f"/2/dm_conversations/{conversation}/messages",
        auth="none",
        headers=bearer(carol),
        json={"text": "yo"},
    )
    assert reply.status_code == 201, reply.text


def test_user_events_paginate_newest_first(api: Api, make_user: Any) -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    ids = [send_ok(api, alice, bob)["dm_event_id"], send_ok(api, carol, alice)["dm_event_id"]]
    ids.append(send_ok(api, alice, carol)["dm_event_id"])
    first = get_ok(api, alice, "/2/dm_events", max_results="2")
    assert [item["id"] for item in first["data"]] == [ids[2], ids[1]]
    assert first["meta"]["result_count"] == 2 and "previous_token" not in first["meta"]
    second = get_ok(api, alice, "/2/dm_events", max_results="2", pagination_token=first["meta"]["next_token"])
    assert [item["id"] for item in second["data"]] == [ids[0]]
    assert "next_token" not in second["meta"]
    back = get_ok(
        api, alice, "/2/dm_events", max_results="2", pagination_token=second["meta"]["previous_token"]
    )
    assert [item["id"] for item in back["data"]] == [ids[2], ids[1]]
    # Bob sees only his own conversation.
    assert [item["id"] for item in get_ok(api, bob, "/2/dm_events")["data"]] == [ids[0]]


def test_empty_page_has_no_data(api: Api, make_user: Any) -> None:
    assert get_ok(api, make_user(), "/2/dm_events") == {"meta": {"result_count": 0}}


def test_outsider_cannot_read_or_write(api: Api, make_user: Any) -> None:
    alice, bob, eve = make_user(), make_user(), make_user()
    sent = send_ok(api, alice, bob)
    conversation = sent["dm_conversation_id"]
    body = get_ok(api, eve, f"/2/dm_conversations/{conversation}/dm_events")
    assert "data" not in body and body["errors"][0]["resource_id"] == conversation
    body = get_ok(api, eve, f"/2/dm_events/{sent['dm_event_id']}")
    assert "data" not in body and body["errors"][0]["resource_type"] == "dm_event"
    assert get_ok(api, eve, "/2/dm_events") == {"meta": {"result_count": 0}}
    response = api.post(
        f"/2/dm_conversations/{conversation}/messages", auth="none", headers=bearer(eve), json={"text": "x"}
    )
    assert response.status_code == 404


def test_unknown_participant_is_not_found(api: Api, make_user: Any) -> None:
    alice = make_user()
    response = api.post(
        "/2/dm_conversations/with/1234567/messages", auth="none", headers=bearer(alice), json={"text": "x"}
    )
    assert response.status_code == 404
    assert response.json()["resource_type"] == "user"


def _oauth1_user(api: Api, make_user: Any, level: str) -> User:
    user: User = make_user()
    token = api.http.post(
        "/_roost/tokens",
        json={"consumer_key": api.creds["consumer_key"], "user_id": user["id"], "access_level": level},
    ).json()
    return {**user, "token": token["access_token"], "secret": token["access_token_secret"]}


def test_code_93_without_direct_message_access(api: Api, make_user: Any) -> None:
    alice, bob = _oauth1_user(api, make_user, "read-write"), make_user()
    path = f"/2/dm_conversations/with/{bob['id']}/messages"
    headers = api.oauth1("POST", path, token=alice["token"], secret=alice["secret"])
    response = api.post(path, auth="none", headers=headers, json={"text": "hi"})
    assert response.status_code == 403
    assert response.json() == CODE_93
    headers = api.oauth1("GET", "/2/dm_events", token=alice["token"], secret=alice["secret"])
    response = api.get("/2/dm_events", auth="none", headers=headers)
    assert response.status_code == 403
    assert response.json() == CODE_93


def test_oauth1_with_direct_message_access(api: Api, make_user: Any) -> None:
    alice, bob = _oauth1_user(api, make_user, "read-write-directmessages"), make_user()
    path = f"/2/dm_conversations/with/{bob['id']}/messages"
    headers = api.oauth1("POST", path, token=alice["token"], secret=alice["secret"])
    response = api.post(path, auth="none", headers=headers, json={"text": "hi"})
    assert response.status_code == 201, response.text


def test_oauth2_scopes_and_app_only(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    token = oauth2_token(api, alice, "tweet.read users.read dm.read")
    response = api.post(
        f"/2/dm_conversations/with/{bob['id']}/messages",
        auth="none",
        headers={"Authorization": f"Bearer {token}"},
        json={"text": "x"},
    )
    assert response.status_code == 403
    assert response.json() == {
        "title": "Forbidden",
        "type": "about:blank",
        "status": 403,
        "detail": "Forbidden",
    }
    response = api.get("/2/dm_events", auth="none", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    response = api.get("/2/dm_events")  # app-only bearer
    assert response.status_code == 403
    assert response.json()["type"].endswith("/unsupported-authentication")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"text": ""},
        {"text": 5},
        {"text": "x" * 10_001},
        {"text": "x", "extra": 1},
        {"attachments": [{"media_id": "nope"}]},
        {"attachments": [{"media_id": "1"}]},
    ],
)
def test_bad_message_bodies(api: Api, make_user: Any, body: dict[str, Any]) -> None:
    response = send(api, make_user(), make_user(), body)
    assert response.status_code == 400, response.text
    assert response.json()["title"] == "Invalid Request"


@pytest.mark.parametrize(
    "body",
    [
        {"conversation_type": "OneToOne", "participant_ids": ["1", "2"], "message": {"text": "x"}},
        {"conversation_type": "Group", "participant_ids": ["1"], "message": {"text": "x"}},
        {"conversation_type": "Group", "participant_ids": ["1", "2"]},
        {"conversation_type": "Group", "participant_ids": ["1", "2"], "message": {}},
    ],
)
def test_bad_group_bodies(api: Api, make_user: Any, body: dict[str, Any]) -> None:
    response = api.post("/2/dm_conversations", auth="none", headers=bearer(make_user()), json=body)
    assert response.status_code == 400, response.text


def test_long_text_is_accepted(api: Api, make_user: Any) -> None:
    assert send(api, make_user(), make_user(), {"text": "y" * 10_000}).status_code == 201


def test_bad_conversation_id_parameter(api: Api, make_user: Any) -> None:
    response = get(api, make_user(), "/2/dm_conversations/abc/dm_events")
    assert response.status_code == 400


def test_writes_append_sent_and_received_events(api: Api, server: LiveServer, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    sent = send_ok(api, alice, bob)
    services = server.app.server.stores  # type: ignore[union-attr]
    rows = server.run(services.events.after(0, 1_000_000))
    mine = [
        (row["kind"], str(row["user_id"])) for row in rows if str(row["object_id"]) == sent["dm_event_id"]
    ]
    assert sorted(mine) == [("dm.received", bob["id"]), ("dm.sent", alice["id"])]
