"""xdk's encrypted chat against roost (in process, `base_url`): public keys, a 1:1 conversation's key,
messages and events, a group, and encrypted media, each user with their own OAuth 2.0 token."""

from __future__ import annotations

import base64
import uuid
from typing import Any

import httpx
import pytest
from tests.api.chat_support import action, create_event, participant_keys, signature_blob
from tests.support.server import LiveServer
from xdk import Client
from xdk.chat import models

pytestmark = pytest.mark.clients


def new_user(server: LiveServer, credentials: dict[str, Any]) -> dict[str, Any]:
    user: dict[str, Any] = httpx.post(
        server.base_url + "/_roost/users", json={"username": f"c_{uuid.uuid4().hex[:12]}"}
    ).json()
    token = httpx.post(
        server.base_url + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()
    return {**user, "client": Client(base_url=server.base_url, access_token=token["access_token"])}


def test_keys_messages_and_events(server: LiveServer, credentials: dict[str, Any]) -> None:
    alice, bob = new_user(server, credentials), new_user(server, credentials)
    chat_a, chat_b = alice["client"].chat, bob["client"].chat
    key = {"public_key": base64.b64encode(b"identity").decode(), "signing_public_key": "c2lnbmluZw=="}
    added = chat_a.add_user_public_key(
        alice["id"], models.AddUserPublicKeyRequest(public_key=key, version="7")
    )
    assert added.data is not None and added.data.public_key_version == "7"
    keys = bob["client"].users.get_public_keys([alice["id"]], public_key_fields=["public_key_version"])
    assert [item.public_key_version for item in keys.data or []] == ["7"]
    own = bob["client"].users.get_public_key(alice["id"], public_key_fields=["public_key_version"])
    assert [item.public_key_version for item in own.data or []] == ["7"]

    made = chat_a.add_conversation_keys(
        bob["id"],
        models.AddConversationKeysRequest(
            conversation_key_version="1700000000000",
            conversation_participant_keys=participant_keys(alice, bob),
            action_signatures=[action(3)],
        ),
    )
    assert made.data is not None
    conversation = made.data.conversation_id
    assert conversation is not None and "-" in conversation
    sent = chat_a.send_message(
        bob["id"],
        models.SendMessageRequest(
            message_id=str(uuid.uuid4()),
            encoded_message_create_event=create_event("hello"),
            encoded_message_event_signature=signature_blob(),
        ),
    )
    assert sent.data is not None and sent.data.encoded_message_event
    page = next(iter(chat_b.get_conversation_events(conversation, max_results=10)))
    encoded = [event.encoded_event for event in page.data or []]
    assert encoded[0] == sent.data.encoded_message_event and len(encoded) == 2
    assert page.meta is not None and len(page.meta.conversation_key_events or []) == 1

    one = chat_b.get_conversation(conversation)
    assert one.data is not None and one.data.id == conversation
    listed = next(iter(chat_b.get_conversations(max_results=10)))
    assert [item.id for item in listed.data or []] == [conversation]
    read = chat_b.mark_conversation_read(
        conversation, models.MarkConversationReadRequest(seen_until_sequence_id=str(page.data[0].id))
    )
    assert read.data is not None and read.data.success is True
    typing = chat_b.send_typing_indicator(alice["id"])
    assert typing.data is not None and typing.data.success is True


def test_group_and_media(server: LiveServer, credentials: dict[str, Any]) -> None:
    owner, member, late = (new_user(server, credentials) for _ in range(3))
    chat = owner["client"].chat
    group = chat.initialize_group().data
    assert group is not None and group.conversation_id.startswith("g")
    created = chat.create_conversation(
        models.CreateConversationRequest(
            conversation_id=group.conversation_id,
            conversation_key_version="1",
            conversation_participant_keys=participant_keys(owner, member),
            group_members=[member["id"]],
            action_signatures=[action(4), action(3)],
        )
    )
    assert created.data is not None and created.data.conversation_id == group.conversation_id
    added = chat.add_group_members(
        group.conversation_id,
        models.AddGroupMembersRequest(
            user_ids=[late["id"]],
            conversation_key_version="2",
            conversation_participant_keys=participant_keys(owner, member, late),
            action_signatures=[action(4), action(3)],
        ),
    )
    assert added.data is not None

    blob = bytes(range(200)) * 5
    started = chat.media_upload_initialize(
        models.MediaUploadInitializeRequest(conversation_id=group.conversation_id, total_bytes=len(blob))
    )
    assert started.data is not None
    session, hash_key = started.data.session_id, started.data.media_hash_key
    appended = chat.media_upload_append(
        session,
        models.MediaUploadAppendRequest(
            conversation_id=group.conversation_id,
            media_hash_key=hash_key,
            segment_index=0,
            media=base64.b64encode(blob).decode(),
        ),
    )
    assert appended.data is not None
    done = chat.media_upload_finalize(
        session,
        models.MediaUploadFinalizeRequest(
            conversation_id=group.conversation_id, media_hash_key=hash_key, num_parts="1"
        ),
    )
    assert done.data is not None and done.data.success is True
    assert late["client"].chat.media_download(group.conversation_id, hash_key) == blob
