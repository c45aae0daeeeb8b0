"""Encrypted chat (`schema_chat`): public keys, conversations and members, key versions, events in
sequence, and the media of a conversation. Writes take the caller's transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select, update

from roost.storage.db import Executor, Row
from roost.storage.schema_chat import (
    chat_conversations,
    chat_events,
    chat_keys,
    chat_media,
    chat_members,
    chat_public_keys,
)
from roost.storage.statements import insert_all

_insert_key = insert_all(chat_public_keys)
_key = select(chat_public_keys).where(
    chat_public_keys.c.user_id == bindparam("user_id"), chat_public_keys.c.version == bindparam("version")
)
# Newest first: what a client reads as `data[0]`.
_keys_of = (
    select(chat_public_keys)
    .where(chat_public_keys.c.user_id == bindparam("user_id"))
    .order_by(chat_public_keys.c.created_at.desc(), chat_public_keys.c.version.desc())
)
_insert_conversation = insert_all(chat_conversations)
_conversation = select(chat_conversations).where(chat_conversations.c.id == bindparam("id"))
_update_conversation = (
    update(chat_conversations)
    .where(chat_conversations.c.id == bindparam("conversation_id"))
    .values({c.name: bindparam(c.name) for c in chat_conversations.columns if c.name != "id"})
)
_insert_member = insert_all(chat_members)
_members = (
    select(chat_members)
    .where(chat_members.c.conversation_id == bindparam("conversation_id"))
    .order_by(chat_members.c.joined_at, chat_members.c.user_id)
)
_set_seen = (
    update(chat_members)
    .where(
        chat_members.c.conversation_id == bindparam("conversation_id"),
        chat_members.c.user_id == bindparam("user_id"),
    )
    .values(seen_until=bindparam("seen_until"))
)
# A member's conversations, the most recently updated first (offset paging).
_conversations_of = (
    select(chat_conversations)
    .join(chat_members, chat_members.c.conversation_id == chat_conversations.c.id)
    .where(chat_members.c.user_id == bindparam("user_id"), chat_conversations.c.state == "active")
    .order_by(chat_conversations.c.updated_at.desc(), chat_conversations.c.id)
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)
_insert_event = insert_all(chat_events)
_event_by_message = select(chat_events).where(
    chat_events.c.conversation_id == bindparam("conversation_id"),
    chat_events.c.message_id == bindparam("message_id"),
)
_event = select(chat_events).where(chat_events.c.id == bindparam("id"))
_last_event = (
    select(chat_events.c.id)
    .where(chat_events.c.conversation_id == bindparam("conversation_id"))
    .order_by(chat_events.c.id.desc())
    .limit(1)
)
# Newest first (offset paging).
_events_of = (
    select(chat_events)
    .where(chat_events.c.conversation_id == bindparam("conversation_id"))
    .order_by(chat_events.c.id.desc())
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)
_key_events = (
    select(chat_events)
    .where(chat_events.c.conversation_id == bindparam("conversation_id"), chat_events.c.kind == "key_change")
    .order_by(chat_events.c.id)
)
_insert_key_version = insert_all(chat_keys)
_key_version = select(chat_keys).where(
    chat_keys.c.conversation_id == bindparam("conversation_id"), chat_keys.c.version == bindparam("version")
)
_insert_media = insert_all(chat_media)
_media = select(chat_media).where(chat_media.c.media_hash_key == bindparam("media_hash_key"))
_media_of_upload = select(chat_media).where(chat_media.c.upload_id == bindparam("upload_id"))


# ---- public keys --------------------------------------------------------------------------------


async def public_key(tx: Executor, user_id: int, version: str) -> Row | None:
    return await tx.fetch_one(_key, {"user_id": user_id, "version": version})


async def public_keys(tx: Executor, user_id: int) -> list[Row]:
    return await tx.fetch_all(_keys_of, {"user_id": user_id})


async def insert_public_key(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_key, row)


# ---- conversations and members ------------------------------------------------------------------


async def conversation(tx: Executor, conversation_id: str) -> Row | None:
    return await tx.fetch_one(_conversation, {"id": conversation_id})


async def insert_conversation(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_conversation, row)


async def update_conversation(tx: Executor, row: dict[str, Any]) -> None:
    """Write back a whole conversation row (read, changed, written in one transaction)."""
    values = {name: value for name, value in row.items() if name != "id"}
    await tx.execute(_update_conversation, {**values, "conversation_id": row["id"]})


async def members(tx: Executor, conversation_id: str) -> list[Row]:
    return await tx.fetch_all(_members, {"conversation_id": conversation_id})


async def insert_member(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_member, row)


async def set_seen(tx: Executor, conversation_id: str, user_id: int, seen_until: str) -> None:
    await tx.execute(
        _set_seen, {"conversation_id": conversation_id, "user_id": user_id, "seen_until": seen_until}
    )


async def conversations_of(tx: Executor, user_id: int, limit: int, offset: int) -> list[Row]:
    return await tx.fetch_all(_conversations_of, {"user_id": user_id, "limit": limit, "offset": offset})


# ---- events and keys ----------------------------------------------------------------------------


async def insert_event(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_event, row)


async def event(tx: Executor, event_id: int) -> Row | None:
    return await tx.fetch_one(_event, {"id": event_id})


async def event_by_message(tx: Executor, conversation_id: str, message_id: str) -> Row | None:
    return await tx.fetch_one(
        _event_by_message, {"conversation_id": conversation_id, "message_id": message_id}
    )


async def last_event_id(tx: Executor, conversation_id: str) -> int | None:
    value = await tx.fetch_value(_last_event, {"conversation_id": conversation_id})
    return None if value is None else int(value)


async def events(tx: Executor, conversation_id: str, limit: int, offset: int) -> list[Row]:
    return await tx.fetch_all(
        _events_of, {"conversation_id": conversation_id, "limit": limit, "offset": offset}
    )


async def key_events(tx: Executor, conversation_id: str) -> list[Row]:
    return await tx.fetch_all(_key_events, {"conversation_id": conversation_id})


async def key_version(tx: Executor, conversation_id: str, version: str) -> Row | None:
    return await tx.fetch_one(_key_version, {"conversation_id": conversation_id, "version": version})


async def insert_key_version(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_key_version, row)


# ---- media --------------------------------------------------------------------------------------


async def insert_media(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_media, row)


async def media(tx: Executor, media_hash_key: str) -> Row | None:
    return await tx.fetch_one(_media, {"media_hash_key": media_hash_key})


async def media_of_upload(tx: Executor, upload_id: int) -> Row | None:
    return await tx.fetch_one(_media_of_upload, {"upload_id": upload_id})
