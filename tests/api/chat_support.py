"""Encrypted chat in the tests: Thrift blobs as clients make them, and the calls of a chat client."""

from __future__ import annotations

import base64
import struct
import uuid
from typing import Any

import httpx
from tests.api.helpers import User, bearer
from tests.support.client import Api


def string_field(field_id: int, value: str) -> bytes:
    raw = value.encode()
    return struct.pack(">bhi", 11, field_id, len(raw)) + raw


def blob(*fields: bytes) -> str:
    """A Thrift struct of the given fields, base64."""
    return base64.b64encode(b"".join(fields) + b"\x00").decode()


def create_event(text: str = "ciphertext") -> str:
    return blob(string_field(1, text))


def detail(union_field: int) -> str:
    """A MessageEventDetail holding a key change (3) or a group change (4)."""
    inner = string_field(1, uuid.uuid4().hex) + b"\x00"
    return blob(struct.pack(">bh", 12, union_field) + inner)


def action(union_field: int = 3) -> dict[str, Any]:
    return {
        "message_id": str(uuid.uuid4()),
        "encoded_message_event_detail": detail(union_field),
        "message_event_signature": {
            "signature": base64.b64encode(uuid.uuid4().bytes).decode(),
            "public_key_version": "1",
            "signature_version": "7",
        },
    }


def participant_keys(*users: User) -> list[dict[str, str]]:
    return [
        {"user_id": u["id"], "encrypted_conversation_key": f"key-for-{u['id']}", "public_key_version": "1"}
        for u in users
    ]


def post(api: Api, user: User, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
    return api.post(path, auth="none", headers=bearer(user), json=body, **kwargs)


def get(api: Api, user: User, path: str, **params: Any) -> httpx.Response:
    return api.get(path, auth="none", headers=bearer(user), params=params or None)


def register_key(api: Api, user: User, version: str = "1") -> httpx.Response:
    key = {
        "public_key": base64.b64encode(f"identity-{user['id']}".encode()).decode(),
        "signing_public_key": base64.b64encode(f"signing-{user['id']}".encode()).decode(),
        "identity_public_key_signature": "c2ln",
        "registration_method": "xdk",
    }
    return post(api, user, f"/2/users/{user['id']}/public_keys", {"public_key": key, "version": version})


def add_keys(api: Api, user: User, conversation: str, version: str, *members: User) -> httpx.Response:
    body = {
        "conversation_key_version": version,
        "conversation_participant_keys": participant_keys(*members),
        "action_signatures": [action(3)],
    }
    return post(api, user, f"/2/chat/conversations/{conversation}/keys", body)


def signature_blob(version: str = "1") -> str:
    return blob(string_field(1, "c2lnbmF0dXJl"), string_field(2, version), string_field(3, "7"))


def send(
    api: Api, user: User, conversation: str, message_id: str | None = None, **more: Any
) -> httpx.Response:
    body = {
        "message_id": message_id or str(uuid.uuid4()),
        "encoded_message_create_event": create_event(),
        "encoded_message_event_signature": signature_blob(),
        **more,
    }
    return post(api, user, f"/2/chat/conversations/{conversation}/messages", body)


def one_to_one(api: Api, first: User, second: User) -> str:
    """A 1:1 conversation with its first key: the canonical id."""
    response = add_keys(api, first, second["id"], "1700000000000", first, second)
    assert response.status_code == 200, response.text
    conversation: str = response.json()["data"]["conversation_id"]
    return conversation
