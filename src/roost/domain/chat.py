"""Encrypted chat conversations: 1:1 and group conversations, their key versions, messages, reads.

Everything a client sends is ciphertext or a signature over it; roost keeps it exactly as sent and
wraps each event in the platform's `MessageEvent` (`domain/chat_thrift.py`) with the sequence id,
sender, conversation and instant it assigns. What roost decides is who may do what: members only (a
non-member learns nothing: the conversation is not found), admins add members, a 1:1 follows the DM
rules (`domain/dms.py`: a user who blocked the sender's messages refuses them), each key version once.

Each message appends `chat.message` and each member a group gains `chat.conversation_join` to the
event log, in the write's transaction (`events/outgoing.py` lists the payloads)."""

from __future__ import annotations

import re
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.ids import MAX_SNOWFLAKE, SnowflakeGenerator
from roost.core.pagination import PageToken
from roost.core.records import Row
from roost.domain import chat_thrift as thrift
from roost.domain.chat_bodies import (
    USER,
    action_signatures,
    activity_payload,
    conversation_object,
    event_object,
    json_object,
    participant_keys,
    refused,
    text_field,
    thrift_field,
    user_ids,
    wire_id,
)
from roost.domain.dm_extras import DM_REFUSED
from roost.domain.dms import one_to_one_id
from roost.domain.pages import Page, offset_of, offset_page
from roost.storage import chat as chat_rows
from roost.storage import dm_extras as dm_block_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor
from roost.storage.events import append_event

ONE_TO_ONE = re.compile(r"([0-9]{1,19})[-:]([0-9]{1,19})")
GROUP = re.compile(r"g[0-9]{1,19}")
MAX_GROUP_MEMBERS = 50  # not published for X Chat; the DM groups' size (docs/chat.md)
TOO_MANY = "Too many members: adding these members would exceed the allowed group size."
CANNOT_ADD = (
    "Cannot add all members: one or more of the requested members cannot be added to this conversation."
)
NOT_ADMIN = "Only an admin of this group can add members."
NO_KEY = "Conversation keys must be added before sending messages."
DETAIL_KEY_CHANGE = 3


def not_found(value: str) -> errors.ApiError:
    return errors.problem(
        "resource-not-found",
        "Not Found Error",
        f"Could not find chat_conversation with id: [{value}].",
        404,
        value=value,
        resource_type="chat_conversation",
        parameter="id",
        resource_id=value,
    )


def canonical(caller: int, raw: str) -> str:
    """The API id of the conversation a path names: `low-high` for a pair (either order, `:` or `-`),
    the pair of the caller and a recipient's user id, or a `g…` group id; not found otherwise (a pair
    the caller is not in, the caller alone)."""
    pair = ONE_TO_ONE.fullmatch(raw)
    if pair is not None:
        first, second = int(pair.group(1)), int(pair.group(2))
        if caller not in (first, second) or first == second or max(first, second) > MAX_SNOWFLAKE:
            raise not_found(raw)
        return one_to_one_id(first, second)
    if GROUP.fullmatch(raw) is not None:
        return raw
    if USER.fullmatch(raw) is not None and int(raw) != caller and int(raw) <= MAX_SNOWFLAKE:
        return one_to_one_id(caller, int(raw))
    raise not_found(raw)


def _other(conversation_id: str, caller: int) -> int:
    low, high = (int(part) for part in conversation_id.split("-"))
    return high if caller == low else low


async def member_conversation(tx: Executor, caller: int, raw: str) -> Row:
    """The active conversation a path names, if the caller is a member; not found otherwise."""
    conversation_id = canonical(caller, raw)
    row = await chat_rows.conversation(tx, conversation_id)
    if row is None or row["state"] != "active":
        raise not_found(raw)
    if caller not in [int(m["user_id"]) for m in await chat_rows.members(tx, conversation_id)]:
        raise not_found(raw)  # non-members learn nothing
    return row


class ChatService:
    def __init__(self, db: Database, clock: Clock, ids: SnowflakeGenerator) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids

    # ---- groups ------------------------------------------------------------------------------------

    async def initialize_group(self, caller: int) -> dict[str, Any]:
        now = self._clock.now_ms()
        conversation_id = f"g{self._ids.next_id()}"
        row = {
            "id": conversation_id,
            "type": "group",
            "state": "initialized",
            "creator_id": caller,
            "group_name": None,
            "group_avatar_url": None,
            "group_description": None,
            "ttl_msec": None,
            "key_version": None,
            "key_event_id": None,
            "created_at": now,
            "updated_at": now,
        }
        async with self._db.transaction() as tx:
            await chat_rows.insert_conversation(tx, row)
        return {"data": {"conversation_id": conversation_id}}

    async def create_group(self, caller: int, body: Any) -> dict[str, Any]:
        body = json_object(body)
        conversation_id = text_field(body, "conversation_id")
        version = text_field(body, "conversation_key_version")
        assert conversation_id is not None and version is not None
        members = [caller, *(u for u in user_ids(body.get("group_members"), "group_members") if u != caller)]
        admins = user_ids(body["group_admins"], "group_admins") if "group_admins" in body else [caller]
        if any(admin not in members for admin in admins):
            raise errors.invalid_body(CANNOT_ADD)
        keys = participant_keys(body, members)
        signatures = action_signatures(body)
        ttl = text_field(body, "ttl_msec", required=False)
        if ttl is not None and not ttl.isdigit():
            raise errors.invalid_body("$.ttl_msec: a numeric string is expected")
        if len(members) > MAX_GROUP_MEMBERS:
            raise errors.invalid_body(TOO_MANY)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await chat_rows.conversation(tx, conversation_id)
            if row is None or row["type"] != "group" or row["creator_id"] != caller:
                raise not_found(conversation_id)
            if row["state"] != "initialized":
                raise errors.invalid_body(f"Conversation {conversation_id} already exists.")
            await self._check_addable(tx, caller, members[1:])
            for user_id in members:
                member = {"conversation_id": conversation_id, "user_id": user_id, "joined_at": now}
                await chat_rows.insert_member(
                    tx, {**member, "is_admin": int(user_id in admins), "seen_until": None}
                )
            row = {
                **row,
                "state": "active",
                "group_name": text_field(body, "group_name", required=False),
                "group_avatar_url": text_field(body, "group_avatar_url", required=False),
                "group_description": text_field(body, "group_description", required=False),
                "ttl_msec": None if ttl is None else int(ttl),
            }
            key_event, group_event = await self._key_change(tx, row, caller, version, keys, signatures, now)
            await self._joined(tx, row, caller, members[1:], group_event or key_event, key_event, now)
        return {
            "data": {
                "conversation_id": conversation_id,
                "conversation_key_change_sequence_id": str(key_event["id"]),
            }
        }

    async def add_members(self, caller: int, raw: str, body: Any) -> dict[str, Any]:
        body = json_object(body)
        added = user_ids(body.get("user_ids"), "user_ids")
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await member_conversation(tx, caller, raw)
            if row["type"] != "group":
                raise errors.invalid_body("Members can be added to group conversations only.")
            current = await chat_rows.members(tx, row["id"])
            if not any(int(m["user_id"]) == caller and m["is_admin"] for m in current):
                raise refused(NOT_ADMIN, "chat_conversation", row["id"])
            present = [int(m["user_id"]) for m in current]
            new = [user_id for user_id in added if user_id not in present]
            if len(present) + len(new) > MAX_GROUP_MEMBERS:
                raise errors.invalid_body(TOO_MANY)
            await self._check_addable(tx, caller, new)
            for user_id in new:
                member = {
                    "conversation_id": row["id"],
                    "user_id": user_id,
                    "joined_at": now,
                    "seen_until": None,
                }
                await chat_rows.insert_member(tx, {**member, "is_admin": 0})
            data: dict[str, Any] = {"conversation_id": row["id"]}
            key_event = group_event = None
            if "conversation_key_version" in body:
                version = text_field(body, "conversation_key_version")
                assert version is not None
                keys = participant_keys(body, [*present, *new])
                for name in ("encrypted_title", "encrypted_avatar_url"):
                    if text_field(body, name, required=False) is not None:
                        row = {
                            **row,
                            "group_name" if name == "encrypted_title" else "group_avatar_url": body[name],
                        }
                key_event, group_event = await self._key_change(
                    tx, row, caller, version, keys, action_signatures(body), now
                )
                data["conversation_key_change_sequence_id"] = str(key_event["id"])
            else:
                await chat_rows.update_conversation(tx, {**row, "updated_at": now})
            await self._joined(tx, row, caller, new, group_event or key_event, key_event, now)
        return {"data": data}

    async def _check_addable(self, tx: Executor, caller: int, users: list[int]) -> None:
        for user_id in users:
            if await user_rows.get_user_tx(tx, user_id) is None:
                raise errors.invalid_body(CANNOT_ADD)
            if await dm_block_rows.dm_blocked(tx, user_id, caller):
                raise errors.invalid_body(CANNOT_ADD)

    # ---- keys and messages -------------------------------------------------------------------------

    async def add_keys(self, caller: int, raw: str, body: Any) -> dict[str, Any]:
        body = json_object(body)
        version = text_field(body, "conversation_key_version")
        assert version is not None
        signatures = action_signatures(body)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            conversation_id = canonical(caller, raw)
            row = await chat_rows.conversation(tx, conversation_id)
            if row is None and GROUP.fullmatch(conversation_id) is None:
                row = await self._open_one_to_one(tx, caller, conversation_id, now)
            else:
                row = await member_conversation(tx, caller, raw)
            members = [int(m["user_id"]) for m in await chat_rows.members(tx, conversation_id)]
            keys = participant_keys(body, members)
            key_event, _ = await self._key_change(tx, row, caller, version, keys, signatures, now)
        return {"data": {"conversation_id": conversation_id, "sequence_id": str(key_event["id"])}}

    async def _open_one_to_one(self, tx: Executor, caller: int, conversation_id: str, now: int) -> Row:
        other = _other(conversation_id, caller)
        if await user_rows.get_user_tx(tx, other) is None:
            raise not_found(str(other))
        if await dm_block_rows.dm_blocked(tx, other, caller):
            raise refused(DM_REFUSED, "user", str(other))
        row = {
            "id": conversation_id,
            "type": "direct",
            "state": "active",
            "creator_id": caller,
            "group_name": None,
            "group_avatar_url": None,
            "group_description": None,
            "ttl_msec": None,
            "key_version": None,
            "key_event_id": None,
            "created_at": now,
            "updated_at": now,
        }
        await chat_rows.insert_conversation(tx, row)
        for user_id in sorted((caller, other)):
            member = {
                "conversation_id": conversation_id,
                "user_id": user_id,
                "joined_at": now,
                "seen_until": None,
            }
            await chat_rows.insert_member(tx, {**member, "is_admin": 0})
        return row

    async def _key_change(
        self,
        tx: Executor,
        row: Row,
        caller: int,
        version: str,
        keys: str,
        signatures: list[tuple[str, bytes, bytes, dict[str, Any]]],
        now: int,
    ) -> tuple[Row, Row | None]:
        """Record a key version and the signed actions that come with it (a key change, and for groups
        a group change): one event each. Answers (the key change event, the group change event)."""
        if not version.isdigit():
            raise errors.invalid_body("$.conversation_key_version: a numeric string is expected")
        if await chat_rows.key_version(tx, row["id"], version) is not None:
            raise errors.invalid_body(f"Conversation key version {version} already exists.")
        key_event = group_event = None
        for message_id, detail, signature, shown in signatures:
            kind = "key_change" if DETAIL_KEY_CHANGE in thrift.read_struct(detail) else "group_change"
            event = await self._event(
                tx, row, kind, message_id, caller, version, None, detail, signature, shown, now
            )
            if kind == "key_change" and key_event is None:
                key_event = event
            elif kind == "group_change" and group_event is None:
                group_event = event
        key_event = key_event or group_event
        assert key_event is not None
        await chat_rows.insert_key_version(
            tx,
            {
                "conversation_id": row["id"],
                "version": version,
                "event_id": key_event["id"],
                "participant_keys": keys,
                "created_at": now,
            },
        )
        await chat_rows.update_conversation(
            tx, {**row, "key_version": version, "key_event_id": key_event["id"], "updated_at": now}
        )
        return key_event, group_event

    async def _event(
        self,
        tx: Executor,
        row: Row,
        kind: str,
        message_id: str,
        sender: int,
        version: str | None,
        token: str | None,
        detail: bytes,
        signature: bytes | None,
        shown: dict[str, Any] | None,
        now: int,
    ) -> Row:
        if await chat_rows.event_by_message(tx, row["id"], message_id) is not None:
            raise errors.invalid_body(f"Message {message_id} already exists in this conversation.")
        sequence_id = self._ids.next_id()
        previous = await chat_rows.last_event_id(tx, row["id"])
        encoded = thrift.message_event(
            sequence_id=sequence_id,
            message_id=message_id,
            sender_id=sender,
            conversation_id=wire_id(row["id"]),
            created_at_ms=now,
            detail=detail,
            signature=signature,
            conversation_token=token,
            previous_sequence_id=previous,
        )
        event = {
            "id": sequence_id,
            "conversation_id": row["id"],
            "kind": kind,
            "message_id": message_id,
            "sender_id": sender,
            "created_at": now,
            "key_version": version,
            "conversation_token": token,
            "encoded_event": thrift.b64encode(encoded),
            "signature": jsonio.dumps(shown).decode() if shown else None,
            "previous_id": previous,
        }
        await chat_rows.insert_event(tx, event)
        return event

    async def send(self, caller: int, raw: str, body: Any) -> dict[str, Any]:
        body = json_object(body)
        message_id = text_field(body, "message_id")
        create = thrift_field(body, "encoded_message_create_event")
        signature = thrift_field(body, "encoded_message_event_signature", required=False)
        token = text_field(body, "conversation_token", required=False)
        assert message_id is not None and create is not None
        if not message_id:
            raise errors.invalid_body("$.message_id: must not be empty")
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            conversation_id = canonical(caller, raw)
            row = await chat_rows.conversation(tx, conversation_id)
            if row is None and GROUP.fullmatch(conversation_id) is None:
                if await user_rows.get_user_tx(tx, _other(conversation_id, caller)) is None:
                    raise not_found(raw)
                raise errors.invalid_body(NO_KEY)
            row = await member_conversation(tx, caller, raw)
            members = [int(m["user_id"]) for m in await chat_rows.members(tx, row["id"])]
            if row["type"] == "direct" and await dm_block_rows.dm_blocked(
                tx, _other(row["id"], caller), caller
            ):
                raise refused(DM_REFUSED, "user", str(_other(row["id"], caller)))
            if row["key_version"] is None:
                raise errors.invalid_body(NO_KEY)
            stored = await chat_rows.event_by_message(tx, row["id"], message_id)
            if stored is not None:
                if int(stored["sender_id"]) != caller or stored["kind"] != "message":
                    raise errors.invalid_body(f"Message {message_id} already exists in this conversation.")
                return {"data": {"encoded_message_event": stored["encoded_event"]}}  # a retry
            shown = await self._signature_shown(tx, caller, signature)
            detail = thrift.message_create_detail(create)
            event = await self._event(
                tx,
                row,
                "message",
                message_id,
                caller,
                row["key_version"],
                token,
                detail,
                signature,
                shown,
                now,
            )
            await chat_rows.update_conversation(tx, {**row, "updated_at": now})
            key_event = await chat_rows.event(tx, int(row["key_event_id"]))
            payload = activity_payload(event, row["key_version"], key_event)
            payload["recipient_ids"] = [str(m) for m in members if m != caller]
            await append_event(
                tx,
                event_id=self._ids.next_id(),
                kind="chat.message",
                created_at=now,
                user_id=caller,
                object_id=int(event["id"]),
                payload=payload,
            )
        return {"data": {"encoded_message_event": event["encoded_event"]}}

    async def _signature_shown(
        self, tx: Executor, caller: int, signature: bytes | None
    ) -> dict[str, Any] | None:
        """The signature's fields as events show them; the signing key from the sender's registered
        key of that version when the client left it out."""
        if signature is None:
            return None
        shown = thrift.signature_fields(signature)
        version = shown.get("public_key_version")
        if "signing_public_key" not in shown and isinstance(version, str):
            key = await chat_rows.public_key(tx, caller, version)
            if key is not None and jsonio.loads(key["public_key"]).get("signing_public_key"):
                shown["signing_public_key"] = jsonio.loads(key["public_key"])["signing_public_key"]
        return shown

    async def _joined(
        self,
        tx: Executor,
        row: Row,
        caller: int,
        joined: list[int],
        event: Row | None,
        key_event: Row | None,
        now: int,
    ) -> None:
        """`chat.conversation_join` for each member a group gained (the adder's signed group change)."""
        if event is None:
            return
        for user_id in joined:
            payload = activity_payload(
                event, row["key_version"] if key_event is None else key_event["key_version"], key_event
            )
            payload["member_id"] = str(user_id)
            await append_event(
                tx,
                event_id=self._ids.next_id(),
                kind="chat.conversation_join",
                created_at=now,
                user_id=user_id,
                object_id=int(event["id"]),
                payload=payload,
            )

    # ---- reads and signals ---------------------------------------------------------------------------

    async def conversation(self, caller: int, raw: str) -> Page:
        async with self._db.transaction() as tx:
            try:
                row = await member_conversation(tx, caller, raw)
            except errors.ApiError:
                return Page([], errors=[errors.resource_not_found_item("chat_conversation", "id", raw)])
            members = await chat_rows.members(tx, row["id"])
        return Page([conversation_object(row, members)])

    async def conversations(self, caller: int, limit: int, token: PageToken | None) -> Page:
        scope = f"chat_conversations:{caller}"
        offset = offset_of(token, scope)
        async with self._db.transaction() as tx:
            rows = await chat_rows.conversations_of(tx, caller, limit + 1, offset)
            shown = [conversation_object(row, await chat_rows.members(tx, row["id"])) for row in rows[:limit]]
        page = offset_page(rows, shown, offset, limit, scope)
        assert page.meta is not None
        page.meta.update(has_more="next_token" in page.meta, has_message_requests=False)
        return page

    async def events(self, caller: int, raw: str, limit: int, token: PageToken | None) -> Page:
        async with self._db.transaction() as tx:
            row = await member_conversation(tx, caller, raw)
            scope = f"chat_events:{row['id']}"
            offset = offset_of(token, scope)
            rows = await chat_rows.events(tx, row["id"], limit + 1, offset)
            key_events = await chat_rows.key_events(tx, row["id"])
        page = offset_page(rows, [event_object(event) for event in rows[:limit]], offset, limit, scope)
        assert page.meta is not None
        page.meta.update(
            has_more="next_token" in page.meta,
            conversation_key_events=[event["encoded_event"] for event in key_events],
        )
        return page

    async def mark_read(self, caller: int, raw: str, body: Any) -> dict[str, Any]:
        body = json_object(body)
        seen = text_field(body, "seen_until_sequence_id")
        assert seen is not None
        if USER.fullmatch(seen) is None:
            raise errors.invalid_body("$.seen_until_sequence_id: a sequence id is expected")
        async with self._db.transaction() as tx:
            row = await member_conversation(tx, caller, raw)
            await chat_rows.set_seen(tx, row["id"], caller, seen)
        return {"data": {"success": True}}

    async def typing(self, caller: int, raw: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            await member_conversation(tx, caller, raw)
        return {"data": {"success": True}}
