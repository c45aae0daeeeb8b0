"""Encrypted chat (X Chat): public keys, 1:1 and group conversations, key versions, messages kept as
sent inside the platform's MessageEvent, events, reads, typing; membership and the DM rules; errors."""

from __future__ import annotations

import base64
import uuid
from typing import Any

from tests.api.chat_support import (
    action,
    add_keys,
    create_event,
    get,
    one_to_one,
    participant_keys,
    post,
    register_key,
    send,
)
from tests.api.helpers import PROBLEMS
from tests.support.client import Api


def not_found(value: str) -> dict[str, Any]:
    return {
        "title": "Not Found Error",
        "detail": f"Could not find chat_conversation with id: [{value}].",
        "type": PROBLEMS + "resource-not-found",
        "status": 404,
        "value": value,
        "resource_type": "chat_conversation",
        "parameter": "id",
        "resource_id": value,
    }


def test_public_keys_register_and_read(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    response = register_key(api, alice, "1")
    assert response.status_code == 200
    assert response.json()["data"]["public_key_version"] == "1"
    assert "juicebox_config" in response.json()["data"]
    assert register_key(api, alice, "1").status_code == 200  # the same key again: no change
    assert register_key(api, alice, "2").status_code == 200

    mine = get(
        api,
        alice,
        f"/2/users/{alice['id']}/public_keys",
        **{"public_key.fields": "public_key_version,juicebox_config"},
    )
    assert mine.status_code == 200
    assert [key["public_key_version"] for key in mine.json()["data"]] == ["2", "1"]
    assert "juicebox_config" in mine.json()["data"][0]
    theirs = get(
        api,
        bob,
        f"/2/users/{alice['id']}/public_keys",
        **{"public_key.fields": "public_key_version,juicebox_config"},
    )
    assert [key["public_key_version"] for key in theirs.json()["data"]] == ["2", "1"]
    assert "juicebox_config" not in theirs.json()["data"][0]  # the backup configuration is the owner's
    default = get(api, bob, f"/2/users/{alice['id']}/public_keys").json()["data"][0]
    assert set(default) == {
        "public_key_version",
        "public_key",
        "signing_public_key",
        "identity_public_key_signature",
    }

    many = get(api, bob, "/2/users/public_keys", ids=f"{alice['id']},{bob['id']},1234")
    assert many.status_code == 200
    assert [key["public_key_version"] for key in many.json()["data"]] == ["2"]
    assert many.json()["errors"][0]["resource_id"] == "1234"


def test_public_key_errors(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    other = post(
        api, bob, f"/2/users/{alice['id']}/public_keys", {"public_key": {"public_key": "x"}, "version": "1"}
    )
    assert other.status_code == 403
    missing = post(api, alice, f"/2/users/{alice['id']}/public_keys", {"version": "1"})
    assert missing.status_code == 400
    assert missing.json()["errors"] == [
        {"parameters": {}, "message": "$.public_key: is missing but it is required"}
    ]
    assert register_key(api, alice, "5").status_code == 200
    changed = post(
        api,
        alice,
        f"/2/users/{alice['id']}/public_keys",
        {"public_key": {"public_key": "other"}, "version": "5"},
    )
    assert changed.status_code == 400
    generated = post(
        api,
        alice,
        f"/2/users/{alice['id']}/public_keys",
        {"public_key": {"public_key": "new"}, "version": "", "generate_version": True},
    )
    assert generated.status_code == 200
    assert int(generated.json()["data"]["public_key_version"]) > 5


def test_one_to_one_keys_messages_and_events(api: Api, make_user: Any) -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    low, high = sorted((int(alice["id"]), int(bob["id"])))
    # Messages need a key first.
    early = send(api, alice, bob["id"])
    assert early.status_code == 400
    conversation = one_to_one(api, alice, bob)
    assert conversation == f"{low}-{high}"

    message_id = str(uuid.uuid4())
    sent = send(api, alice, f"{high}-{low}", message_id, conversation_token="tok")
    assert sent.status_code == 201
    encoded = sent.json()["data"]["encoded_message_event"]
    raw = base64.b64decode(encoded)
    # The platform's MessageEvent around the client's bytes: ids as strings, the event verbatim.
    assert message_id.encode() in raw and f"{low}:{high}".encode() in raw
    assert base64.b64decode(create_event())[:-1] in raw
    again = send(api, alice, conversation, message_id)  # a retry with the same id
    assert again.status_code == 201
    assert again.json()["data"]["encoded_message_event"] == encoded
    assert send(api, bob, conversation, message_id).status_code == 400

    page = get(api, bob, f"/2/chat/conversations/{conversation}/events", max_results="1")
    assert page.status_code == 200
    body = page.json()
    assert body["data"] == [{"id": body["data"][0]["id"], "encoded_event": encoded}]
    assert body["meta"]["has_more"] is True and len(body["meta"]["conversation_key_events"]) == 1
    rest = get(
        api,
        bob,
        f"/2/chat/conversations/{conversation}/events",
        pagination_token=body["meta"]["next_token"],
        **{"chat_message_event.fields": "sender_id,previous_id,message_event_signature"},
    )
    [key_change] = rest.json()["data"]
    assert key_change["sender_id"] == alice["id"] and "previous_id" not in key_change
    assert rest.json()["meta"]["has_more"] is False

    # Non-members learn nothing.
    for path in ("events", "read", "typing"):
        response = (get if path == "events" else post)(
            api,
            carol,
            f"/2/chat/conversations/{conversation}/{path}",
            **({} if path == "events" else {"body": {"seen_until_sequence_id": "1"}}),
        )
        assert response.status_code == 404, path
        assert response.json() == not_found(conversation)
    assert send(api, carol, conversation).status_code == 404


def test_conversation_reads_read_marker_and_typing(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    conversation = one_to_one(api, alice, bob)
    assert send(api, bob, alice["id"]).status_code == 201
    one = get(
        api,
        alice,
        f"/2/chat/conversations/{conversation}",
        expansions="participant_ids",
        **{"user.fields": "username"},
    )
    assert one.status_code == 200
    data = one.json()["data"]
    assert (data["id"], data["type"]) == (conversation, "direct")
    assert sorted(data["participant_ids"]) == sorted([alice["id"], bob["id"]])
    assert {u["username"] for u in one.json()["includes"]["users"]} == {alice["username"], bob["username"]}
    listed = get(api, alice, "/2/chat/conversations")
    assert [c["id"] for c in listed.json()["data"]] == [conversation]
    assert listed.json()["meta"]["result_count"] == 1
    missing = get(api, alice, "/2/chat/conversations/g1")
    assert missing.status_code == 200 and missing.json()["errors"][0]["resource_id"] == "g1"

    read = post(api, alice, f"/2/chat/conversations/{conversation}/read", {"seen_until_sequence_id": "12"})
    assert read.status_code == 200 and read.json() == {"data": {"success": True}}
    bad = post(api, alice, f"/2/chat/conversations/{conversation}/read", {})
    assert bad.status_code == 400
    typing = post(api, alice, f"/2/chat/conversations/{conversation}/typing")
    assert typing.status_code == 200 and typing.json() == {"data": {"success": True}}
    pattern = post(api, alice, "/2/chat/conversations/not-an-id/typing")
    assert pattern.status_code == 400


def test_dm_block_refuses_encrypted_messages(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    conversation = one_to_one(api, alice, bob)
    assert post(api, alice, f"/2/users/{bob['id']}/dm/block", conform=False).status_code == 200
    refused = send(api, bob, conversation)
    assert refused.status_code == 403
    assert refused.json()["detail"] == "You cannot send messages to this user."
    assert send(api, alice, conversation).status_code == 201
    carol = make_user()
    assert post(api, alice, f"/2/users/{carol['id']}/dm/block", conform=False).status_code == 200
    assert add_keys(api, carol, alice["id"], "1", carol, alice).status_code == 403


def test_key_versions_and_bodies(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    conversation = one_to_one(api, alice, bob)
    assert add_keys(api, alice, conversation, "1700000000000", alice, bob).status_code == 400
    rotated = add_keys(api, bob, conversation, "1800000000000", alice, bob)
    assert rotated.status_code == 200 and rotated.json()["data"]["conversation_id"] == conversation
    short = add_keys(api, alice, conversation, "1900000000000", alice)
    assert short.status_code == 400
    path = f"/2/chat/conversations/{conversation}/keys"
    unsigned = post(
        api,
        alice,
        path,
        {"conversation_key_version": "2", "conversation_participant_keys": participant_keys(alice, bob)},
    )
    assert unsigned.status_code == 400
    garbage = send(api, alice, conversation, encoded_message_create_event="bm90IHRocmlmdA==")
    assert garbage.status_code == 400
    assert post(api, alice, f"/2/chat/conversations/{conversation}/messages", ["x"]).status_code == 400


def test_groups(api: Api, make_user: Any) -> None:
    owner, member, late, outsider = make_user(), make_user(), make_user(), make_user()
    started = post(api, owner, "/2/chat/conversations/group/initialize")
    assert started.status_code == 200
    group = started.json()["data"]["conversation_id"]
    assert group.startswith("g")
    body = {
        "conversation_id": group,
        "conversation_key_version": "1",
        "conversation_participant_keys": participant_keys(owner, member),
        "group_members": [member["id"]],
        "group_name": "ZW5jcnlwdGVk",
        "action_signatures": [action(4), action(3)],
    }
    created = post(api, owner, "/2/chat/conversations/group", body)
    assert created.status_code == 201
    assert created.json()["data"]["conversation_id"] == group
    assert post(api, owner, "/2/chat/conversations/group", body).status_code == 400
    view = get(
        api,
        member,
        f"/2/chat/conversations/{group}",
        **{"chat_conversation.fields": "group_name", "expansions": "admin_ids"},
    )
    assert view.json()["data"]["group_name"] == "ZW5jcnlwdGVk"
    assert view.json()["data"]["admin_ids"] == [owner["id"]]
    assert send(api, member, group).status_code == 201

    adding = {
        "user_ids": [late["id"]],
        "conversation_key_version": "2",
        "conversation_participant_keys": participant_keys(owner, member, late),
        "action_signatures": [action(4), action(3)],
    }
    assert post(api, member, f"/2/chat/conversations/{group}/members", adding).status_code == 403
    assert post(api, outsider, f"/2/chat/conversations/{group}/members", adding).status_code == 404
    added = post(api, owner, f"/2/chat/conversations/{group}/members", adding)
    assert added.status_code == 200, added.text
    assert get(api, late, f"/2/chat/conversations/{group}/events").status_code == 200
    unknown = post(api, owner, f"/2/chat/conversations/{group}/members", {"user_ids": ["1234"]})
    assert unknown.status_code == 400
    assert unknown.json()["errors"][0]["message"].startswith("Cannot add all members")


def test_chat_media_upload_and_download(api: Api, make_user: Any) -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    conversation = one_to_one(api, alice, bob)
    ciphertext = bytes(range(256)) * 40
    init = post(
        api,
        alice,
        "/2/chat/media/upload/initialize",
        {"conversation_id": conversation, "total_bytes": len(ciphertext)},
    )
    assert init.status_code == 200
    data = init.json()["data"]
    session, key = data["session_id"], data["media_hash_key"]
    assert data["conversation_id"] == conversation
    half = len(ciphertext) // 2
    for index, part in enumerate((ciphertext[:half], ciphertext[half:])):
        appended = api.post(
            f"/2/chat/media/upload/{session}/append",
            auth="none",
            headers={"Authorization": f"Bearer {alice['oauth2']}"},
            files={"media": ("blob", part)},
            data={"conversation_id": conversation, "media_hash_key": key, "segment_index": str(index)},
        )
        assert appended.status_code == 200, appended.text
        assert isinstance(appended.json()["data"]["expires_at"], int)
    finalize = {"conversation_id": conversation, "media_hash_key": key, "num_parts": "2"}
    wrong = post(api, alice, f"/2/chat/media/upload/{session}/finalize", {**finalize, "num_parts": "3"})
    assert wrong.status_code == 400
    done = post(api, alice, f"/2/chat/media/upload/{session}/finalize", finalize)
    assert done.status_code == 200 and done.json() == {"data": {"success": True}}

    downloaded = api.get(
        f"/2/chat/media/{conversation}/{key}",
        auth="none",
        headers={"Authorization": f"Bearer {bob['oauth2']}"},
        conform=False,  # the bytes, not JSON
    )
    assert downloaded.status_code == 200
    assert downloaded.headers["content-type"] == "application/octet-stream"
    assert downloaded.content == ciphertext
    assert get(api, carol, f"/2/chat/media/{conversation}/{key}").status_code == 404
    assert get(api, bob, f"/2/chat/media/{conversation}/abc").status_code == 404
    outsider = post(
        api, carol, "/2/chat/media/upload/initialize", {"conversation_id": conversation, "total_bytes": 5}
    )
    assert outsider.status_code == 404
    extra = post(
        api,
        alice,
        "/2/chat/media/upload/initialize",
        {"conversation_id": conversation, "total_bytes": 5, "x": 1},
    )
    assert extra.status_code == 400
