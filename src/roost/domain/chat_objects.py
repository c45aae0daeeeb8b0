"""The object kinds of encrypted chat: `chat_conversation` (its member lists expand to users),
`chat_message_event` (an event of a conversation, its `encoded_event` the platform's Thrift blob) and
`public_key` (a user's registered chat key). Rows are built by `domain/chat.py` and
`domain/chat_keys.py` as plain mappings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.core.fields import Expansion, ObjectKind, RenderContext, Row

CONVERSATION_FIELDS = (
    "admin_ids",
    "created_at",
    "group_avatar_url",
    "group_name",
    "id",
    "is_muted",
    "member_ids",
    "message_ttl_ms",
    "participant_ids",
    "screen_capture_blocking_enabled",
    "screen_capture_detection_enabled",
    "type",
    "updated_at",
)
MESSAGE_EVENT_FIELDS = (
    "conversation_id",
    "conversation_token",
    "created_at",
    "encoded_event",
    "id",
    "is_trusted",
    "message_event_signature",
    "previous_id",
    "sender_id",
)
PUBLIC_KEY_FIELDS = (
    "identity_public_key_signature",
    "juicebox_config",
    "public_key",
    "public_key_version",
    "signing_public_key",
)


def _present(row: Row, names: Sequence[str]) -> dict[str, Any]:
    return {name: row[name] for name in names if row.get(name) is not None}


def render_plain(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    """The rows carry each field already rendered; absent or None fields are left out."""
    return _present(row, names)


CHAT_KINDS = (
    ObjectKind(
        "chat_conversation",
        "chat_conversation",
        ("chat_conversation.fields",),
        CONVERSATION_FIELDS,
        {},
        ("id", "type"),
        {"tweet": "chat_conversations", "post": "chat_conversations"},
        render_plain,
        lambda row: row["id"],
    ),
    ObjectKind(
        "chat_message_event",
        "chat_message_event",
        ("chat_message_event.fields",),
        MESSAGE_EVENT_FIELDS,
        {},
        ("id", "encoded_event"),
        {"tweet": "chat_message_events", "post": "chat_message_events"},
        render_plain,
        lambda row: row["id"],
    ),
    ObjectKind(
        "public_key",
        "public_key",
        ("public_key.fields",),
        PUBLIC_KEY_FIELDS,
        {},
        ("public_key_version", "public_key", "signing_public_key", "identity_public_key_signature"),
        {"tweet": "public_keys", "post": "public_keys"},
        render_plain,
        lambda row: (row["user_id"], row["public_key_version"]),
    ),
)


def _ids(column: str) -> Any:
    return lambda row: [int(user_id) for user_id in row.get(column) or ()]


CHAT_EXPANSIONS = {
    "chat_conversation": (
        Expansion("admin_ids", "user", _ids("admin_ids"), implies=("admin_ids",)),
        Expansion("member_ids", "user", _ids("member_ids"), implies=("member_ids",)),
        Expansion("participant_ids", "user", _ids("participant_ids"), implies=("participant_ids",)),
    )
}
