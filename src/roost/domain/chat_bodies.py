"""Encrypted chat's request bodies and objects: the checks of what clients send (ids, participant
keys, signed actions, Thrift blobs) and the renderings of conversations, events and activity payloads.
Pure, used by `domain/chat.py`."""

from __future__ import annotations

import re
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import iso_ms
from roost.core.ids import MAX_SNOWFLAKE
from roost.core.records import Row
from roost.domain import chat_thrift as thrift

USER = re.compile(r"[0-9]{1,19}")


def refused(detail: str, resource_type: str, resource_id: str) -> errors.ApiError:
    """A 403 of the document's problem kinds (the DM rules' wording as its detail)."""
    return errors.problem(
        "not-authorized-for-resource",
        "Authorization Error",
        detail,
        403,
        resource_type=resource_type,
        parameter="id",
        resource_id=resource_id,
        value=resource_id,
        section="data",
    )


def wire_id(conversation_id: str) -> str:
    """The id inside events (`A:B` for two users, as the activity events show it)."""
    return conversation_id.replace("-", ":")


def text_field(body: dict[str, Any], name: str, prefix: str = "$", required: bool = True) -> str | None:
    if name not in body:
        if required:
            raise errors.invalid_body(f"{prefix}.{name}: is missing but it is required")
        return None
    value = body[name]
    if not isinstance(value, str):
        raise errors.invalid_body(f"{prefix}.{name}: string expected")
    return value


def thrift_field(body: dict[str, Any], name: str, prefix: str = "$", required: bool = True) -> bytes | None:
    """A base64 field holding one whole Thrift struct (checked, so the events built around it parse)."""
    value = text_field(body, name, prefix, required)
    if value is None:
        return None
    try:
        data = thrift.b64decode(value)
        thrift.read_struct(data)
    except thrift.Malformed:
        raise errors.invalid_body(f"{prefix}.{name}: is not a valid encoded Thrift struct") from None
    return data


def json_object(body: Any, prefix: str = "$") -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.invalid_body(f"{prefix}: a JSON object is expected")
    return body


def user_ids(value: Any, name: str) -> list[int]:
    if not isinstance(value, list) or not value:
        raise errors.invalid_body(f"$.{name}: a non-empty array of user ids is expected")
    out = []
    for item in value:
        if not isinstance(item, str) or USER.fullmatch(item) is None or int(item) > MAX_SNOWFLAKE:
            raise errors.invalid_body(f"$.{name}: [{item}] is not a user id")
        out.append(int(item))
    return list(dict.fromkeys(out))


def participant_keys(body: dict[str, Any], members: list[int]) -> str:
    """`conversation_participant_keys`, one for each member and no one else, as JSON."""
    keys = body.get("conversation_participant_keys")
    if "conversation_participant_keys" not in body:
        raise errors.invalid_body("$.conversation_participant_keys: is missing but it is required")
    if not isinstance(keys, list):
        raise errors.invalid_body("$.conversation_participant_keys: array expected")
    named: set[int] = set()
    for index, item in enumerate(keys):
        prefix = f"$.conversation_participant_keys[{index}]"
        item = json_object(item, prefix)
        for name in ("user_id", "encrypted_conversation_key", "public_key_version"):
            text_field(item, name, prefix)
        if USER.fullmatch(item["user_id"]) is None or int(item["user_id"]) not in members:
            raise errors.invalid_body(f"{prefix}.user_id: [{item['user_id']}] is not a participant")
        named.add(int(item["user_id"]))
    missing = [user_id for user_id in members if user_id not in named]
    if missing:
        raise errors.invalid_body(f"$.conversation_participant_keys: no key for participant [{missing[0]}]")
    return jsonio.dumps(keys).decode()


def action_signatures(body: dict[str, Any]) -> list[tuple[str, bytes, bytes, dict[str, Any]]]:
    """`action_signatures`: (message id, detail struct, signature struct, signature JSON) each."""
    items = body.get("action_signatures")
    if not isinstance(items, list) or not items:
        raise errors.invalid_body("$.action_signatures: is missing but it is required")
    out = []
    for index, item in enumerate(items):
        prefix = f"$.action_signatures[{index}]"
        item = json_object(item, prefix)
        message_id = text_field(item, "message_id", prefix)
        detail = thrift_field(item, "encoded_message_event_detail", prefix)
        signature = json_object(item.get("message_event_signature"), f"{prefix}.message_event_signature")
        for name in ("signature", "public_key_version", "signature_version"):
            text_field(signature, name, f"{prefix}.message_event_signature")
        for name in ("public_key_version", "signature_version"):
            if not signature[name].isdigit():
                raise errors.invalid_body(
                    f"{prefix}.message_event_signature.{name}: a numeric string is expected"
                )
        assert message_id is not None and detail is not None
        if not message_id:
            raise errors.invalid_body(f"{prefix}.message_id: must not be empty")
        shown = {
            k: signature[k] for k in thrift.SIGNATURE_FIELDS.values() if isinstance(signature.get(k), str)
        }
        out.append((message_id, detail, thrift.signature_struct(signature), shown))
    return out


def conversation_object(row: Row, members: list[Row]) -> dict[str, Any]:
    """A conversation as the `chat_conversation` kind renders it."""
    group = row["type"] == "group"
    ids = [str(member["user_id"]) for member in members]
    out: dict[str, Any] = {
        "id": row["id"],
        "type": row["type"],
        "created_at": iso_ms(row["created_at"]),
        "updated_at": iso_ms(row["updated_at"]),
        "is_muted": False,
        "screen_capture_blocking_enabled": False,
        "screen_capture_detection_enabled": False,
        "member_ids": ids,
        "participant_ids": ids,
    }
    if group:
        out["admin_ids"] = [str(member["user_id"]) for member in members if member["is_admin"]]
        out["group_name"] = row["group_name"]
        out["group_avatar_url"] = row["group_avatar_url"]
    if row["ttl_msec"] is not None:
        out["message_ttl_ms"] = int(row["ttl_msec"])
    return out


def event_object(row: Row) -> dict[str, Any]:
    """A conversation event as the `chat_message_event` kind renders it."""
    return {
        "id": str(row["id"]),
        "conversation_id": row["conversation_id"],
        "conversation_token": row["conversation_token"],
        "created_at": iso_ms(row["created_at"]),
        "encoded_event": row["encoded_event"],
        "is_trusted": True,
        "message_event_signature": jsonio.loads(row["signature"]) if row["signature"] else None,
        "previous_id": None if row["previous_id"] is None else str(row["previous_id"]),
        "sender_id": str(row["sender_id"]),
    }


def activity_payload(event: Row, key_version: str | None, key_event: Row | None) -> dict[str, Any]:
    """The activity-event payload of a conversation event, in the samples' key order."""
    payload: dict[str, Any] = {}
    if event["conversation_token"]:
        payload["conversation_token"] = event["conversation_token"]
    payload.update(
        id=event["message_id"],
        created_at_msec=str(event["created_at"]),
        sender_id=str(event["sender_id"]),
        conversation_id=wire_id(event["conversation_id"]),
    )
    if key_version is not None:
        payload["conversation_key_version"] = key_version
    payload["encoded_event"] = event["encoded_event"]
    if key_event is not None and key_event["id"] != event["id"]:
        payload["conversation_key_change_event"] = key_event["encoded_event"]
    if event["signature"]:
        payload["message_event_signature"] = jsonio.loads(event["signature"])
    return payload
