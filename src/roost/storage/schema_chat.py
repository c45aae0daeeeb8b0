"""Encrypted chat (X Chat, issue 22): users' public keys, conversations, their members, key versions,
events and media. Registered on `metadata` by importing this module from `schema`.

roost never decrypts anything: keys, messages and signatures are the clients' opaque base64 blobs,
kept as sent; what roost adds is who may see them (membership) and the order (sequence ids)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, Integer, PrimaryKeyConstraint, Table, Text, UniqueConstraint

from roost.storage.schema_base import RowId, metadata

# One registered key of a user; a user's newest version is the one others encrypt to.
chat_public_keys = Table(
    "chat_public_keys",
    metadata,
    Column("user_id", BigInteger, nullable=False),
    Column("version", Text, nullable=False),
    Column("public_key", Text, nullable=False),  # JSON: the registration's public_key object, as sent
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("user_id", "version"),
    Index("ix_chat_public_keys_user_created", "user_id", "created_at"),
)

# A conversation: `<low>-<high>` for two users, `g<snowflake>` for a group (initialized first, created
# with its members and keys after).
chat_conversations = Table(
    "chat_conversations",
    metadata,
    Column("id", Text, primary_key=True),
    Column("type", Text, nullable=False),  # one_to_one | group
    Column("state", Text, nullable=False),  # initialized (a group id minted, no members yet) | active
    Column("creator_id", BigInteger, nullable=False),
    Column("group_name", Text),  # as sent (clients encrypt it)
    Column("group_avatar_url", Text),
    Column("group_description", Text),
    Column("ttl_msec", BigInteger),
    Column("key_version", Text),  # the newest conversation key version
    Column("key_event_id", BigInteger),  # the sequence id of that key change
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

chat_members = Table(
    "chat_members",
    metadata,
    Column("conversation_id", Text, nullable=False),
    Column("user_id", BigInteger, nullable=False),
    Column("is_admin", Integer, nullable=False, server_default="0"),
    Column("joined_at", BigInteger, nullable=False),
    Column("seen_until", Text),  # the sequence id the member has read up to
    PrimaryKeyConstraint("conversation_id", "user_id"),
    Index("ix_chat_members_user", "user_id", "conversation_id"),
)

# Every conversation event in sequence: messages, key changes, group changes. `encoded_event` is the
# platform's MessageEvent (Thrift, base64) around the client's blobs.
chat_events = Table(
    "chat_events",
    metadata,
    Column("id", RowId, primary_key=True, autoincrement=False),  # the sequence id
    Column("conversation_id", Text, nullable=False),
    Column("kind", Text, nullable=False),  # message | key_change | group_change
    Column("message_id", Text, nullable=False),  # the client's id (a retry reuses it)
    Column("sender_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("key_version", Text),  # the conversation key version the event was sent under
    Column("conversation_token", Text),
    Column("encoded_event", Text, nullable=False),
    Column("signature", Text),  # JSON: the message event signature's fields
    Column("previous_id", BigInteger),
    UniqueConstraint("conversation_id", "message_id", name="uq_chat_events_message"),
    Index("ix_chat_events_conversation", "conversation_id", "id"),
)

# Conversation key versions: the key change event that introduced each.
chat_keys = Table(
    "chat_keys",
    metadata,
    Column("conversation_id", Text, nullable=False),
    Column("version", Text, nullable=False),
    Column("event_id", BigInteger, nullable=False),
    Column("participant_keys", Text, nullable=False),  # JSON, as sent
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("conversation_id", "version"),
)

# An encrypted upload of a conversation: the media upload session (`media_uploads`) it rides on.
chat_media = Table(
    "chat_media",
    metadata,
    Column("media_hash_key", Text, primary_key=True),
    Column("conversation_id", Text, nullable=False),
    Column("upload_id", BigInteger, nullable=False),
    Column("owner_id", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_chat_media_upload", "upload_id"),
)
