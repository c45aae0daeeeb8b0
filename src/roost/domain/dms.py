"""Direct messages: 1:1 and group conversations, message creation, the events they append.

Every write runs in one transaction that also appends `dm.sent` (for the sender) and `dm.received`
(for each other participant) to the event log.
"""

from __future__ import annotations

import re
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.ids import MAX_SNOWFLAKE, SnowflakeGenerator
from roost.domain.dm_extras import DM_REFUSED
from roost.domain.media_uploads import MediaUploads
from roost.domain.text import extract_entities
from roost.storage import dm_extras as dm_block_rows
from roost.storage import dms as dm_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor
from roost.storage.events import append_event
from roost.storage.users import UserStore

MAX_TEXT = 10_000
MAX_GROUP = 49
MESSAGE_FIELDS = frozenset({"text", "attachments"})
GROUP_FIELDS = frozenset({"conversation_type", "participant_ids", "message"})
ONE_TO_ONE = re.compile(r"^([0-9]{1,19})-([0-9]{1,19})$")
MESSAGE_CREATE = "MessageCreate"
PARTICIPANTS_JOIN = "ParticipantsJoin"
PARTICIPANTS_LEAVE = "ParticipantsLeave"
EVENT_TYPES = (MESSAGE_CREATE, PARTICIPANTS_JOIN, PARTICIPANTS_LEAVE)


def one_to_one_id(first: int, second: int) -> str:
    """The platform's 1:1 conversation id: `<lowerUserId>-<higherUserId>`."""
    low, high = sorted((first, second))
    return f"{low}-{high}"


def _not_allowed_fields(body: dict[str, Any], allowed: frozenset[str], prefix: str) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise errors.invalid_body(
            f"{prefix}.{unknown[0]}: is not defined in the schema and the schema does not allow "
            "additional properties"
        )


def _user_not_found(parameter: str, user_id: int | str) -> errors.ApiError:
    value = str(user_id)
    return errors.problem(
        "resource-not-found",
        "Not Found Error",
        f"Could not find user with {parameter}: [{value}].",
        404,
        value=value,
        resource_type="user",
        parameter=parameter,
        resource_id=value,
    )


def _conversation_not_found(value: str) -> errors.ApiError:
    return errors.problem(
        "resource-not-found",
        "Not Found Error",
        f"Could not find dm_conversation with dm_conversation_id: [{value}].",
        404,
        value=value,
        resource_type="dm_conversation",
        parameter="dm_conversation_id",
        resource_id=value,
    )


def _id_string(name: str, value: Any) -> int:
    if not isinstance(value, str) or not value.isascii() or not value.isdigit() or len(value) > 19:
        shown = value if isinstance(value, str) else jsonio.dumps(value).decode()
        raise errors.invalid_request(
            [
                errors.param_error(
                    name, shown, f"The `{name}` field value [{shown}] does not match ^[0-9]{{1,19}}$"
                )
            ]
        )
    number = int(value)
    if number > MAX_SNOWFLAKE:
        raise errors.invalid_request(
            [errors.param_error(name, value, f"The `{name}` field value [{value}] is not valid")]
        )
    return number


class DmService:
    """Sending direct messages (1:1, into a conversation, to a new group) and the read and typing
    signals the control plane raises."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        users: UserStore,
        media: MediaUploads | None = None,
    ) -> None:
        self._media = media  # uploaded media: the sender's own, less than 24 hours old
        self._db = db
        self._clock = clock
        self._ids = ids
        self._users = users

    # ---- message bodies ----------------------------------------------------------------------

    async def _message(
        self, body: Any, prefix: str = "$", sender_id: int | None = None
    ) -> tuple[str | None, list[str]]:
        """(text, media keys) of a message body `{"text"?, "attachments"?: [{"media_id"}]}`."""
        if not isinstance(body, dict):
            raise errors.invalid_body(f"{prefix}: a JSON object is expected")
        _not_allowed_fields(body, MESSAGE_FIELDS, prefix)
        text = body.get("text")
        attachments = body.get("attachments")
        if text is not None and not isinstance(text, str):
            raise errors.invalid_body(f"{prefix}.text: {type(text).__name__} found, string expected")
        if attachments is not None and not isinstance(attachments, list):
            raise errors.invalid_body(f"{prefix}.attachments: array expected")
        if text is None and attachments is None:
            raise errors.invalid_body(f"{prefix}: at least one of text, attachments is required")
        if text is not None:
            text = text.replace("\x00", "")
            if not text:
                raise errors.invalid_body(f"{prefix}.text: must be at least 1 characters long")
            if len(text) > MAX_TEXT:
                raise errors.invalid_body(f"{prefix}.text: must be at most {MAX_TEXT} characters long")
        media_keys: list[str] = []
        for index, item in enumerate(attachments or []):
            if not isinstance(item, dict) or set(item) != {"media_id"}:
                raise errors.invalid_body(
                    f"{prefix}.attachments[{index}]: an object with media_id is expected"
                )
            media_id = _id_string("media_id", item["media_id"])
            row = await self._users.media_by_id(media_id)
            if row is None or (
                self._media is not None
                and sender_id is not None
                and not await self._media.dm_attachable(media_id, sender_id)
            ):
                raise errors.invalid_request(
                    [errors.param_error("media_id", item["media_id"], "Your media IDs are invalid.")]
                )
            media_keys.append(row["media_key"])
        if len(media_keys) > 1:
            raise errors.invalid_body(f"{prefix}.attachments: at most 1 attachment is allowed")
        return text, media_keys

    # ---- writes ----------------------------------------------------------------------------------

    async def send_to_participant(
        self, sender_id: int, participant_id: int, body: Any, app_id: int | None = None
    ) -> dict[str, str]:
        text, media_keys = await self._message(body, sender_id=sender_id)
        async with self._db.transaction() as tx:
            if await user_rows.get_user_tx(tx, participant_id) is None:
                raise _user_not_found("participant_id", participant_id)
            if await dm_block_rows.dm_blocked(tx, participant_id, sender_id):
                raise errors.forbidden(DM_REFUSED)  # the participant refuses this sender's messages
            conversation_id = one_to_one_id(sender_id, participant_id)
            if await dm_rows.get_conversation_tx(tx, conversation_id) is None:
                await self._new_conversation(tx, conversation_id, "one_to_one", [sender_id, participant_id])
            event_id = await self._message_event(tx, conversation_id, sender_id, text, media_keys, app_id)
        return {"dm_conversation_id": conversation_id, "dm_event_id": str(event_id)}

    async def send_to_conversation(
        self, sender_id: int, conversation_id: str, body: Any, app_id: int | None = None
    ) -> dict[str, str]:
        pair = ONE_TO_ONE.fullmatch(conversation_id)
        if pair is not None:
            low, high = int(pair.group(1)), int(pair.group(2))
            if sender_id in (low, high) and one_to_one_id(low, high) == conversation_id:
                # A 1:1 conversation exists implicitly between any two users.
                other = high if sender_id == low else low
                return await self.send_to_participant(sender_id, other, body, app_id)
            raise _conversation_not_found(conversation_id)
        text, media_keys = await self._message(body, sender_id=sender_id)
        async with self._db.transaction() as tx:
            if await dm_rows.get_conversation_tx(tx, conversation_id) is None:
                raise _conversation_not_found(conversation_id)
            if sender_id not in await dm_rows.participants_tx(tx, conversation_id):
                raise _conversation_not_found(conversation_id)  # non-members learn nothing
            event_id = await self._message_event(tx, conversation_id, sender_id, text, media_keys, app_id)
        return {"dm_conversation_id": conversation_id, "dm_event_id": str(event_id)}

    async def create_group(self, sender_id: int, body: Any, app_id: int | None = None) -> dict[str, str]:
        if not isinstance(body, dict):
            raise errors.invalid_body("$: a JSON object is expected")
        _not_allowed_fields(body, GROUP_FIELDS, "$")
        for name in ("conversation_type", "participant_ids", "message"):
            if name not in body:
                raise errors.invalid_body(f"$.{name}: is missing but it is required")
        if body["conversation_type"] != "Group":
            shown = jsonio.dumps(body["conversation_type"]).decode()
            raise errors.invalid_body(
                f'$.conversation_type: does not have a value in the enumeration ["Group"] ({shown})'
            )
        ids = body["participant_ids"]
        if not isinstance(ids, list) or not 2 <= len(ids) <= MAX_GROUP:
            raise errors.invalid_body(f"$.participant_ids: an array of 2 to {MAX_GROUP} user ids is expected")
        participant_ids = list(dict.fromkeys(_id_string("participant_ids", item) for item in ids))
        text, media_keys = await self._message(body["message"], "$.message", sender_id)
        members = [sender_id, *(user_id for user_id in participant_ids if user_id != sender_id)]
        async with self._db.transaction() as tx:
            for user_id in members[1:]:
                if await user_rows.get_user_tx(tx, user_id) is None:
                    raise _user_not_found("participant_ids", user_id)
            conversation_id = str(self._ids.next_id())
            await self._new_conversation(tx, conversation_id, "group", members)
            await dm_rows.insert_event(
                tx,
                self._event_row(
                    conversation_id, PARTICIPANTS_JOIN, sender_id, participant_ids=[str(m) for m in members]
                ),
            )
            event_id = await self._message_event(tx, conversation_id, sender_id, text, media_keys, app_id)
        return {"dm_conversation_id": conversation_id, "dm_event_id": str(event_id)}

    # ---- helpers -------------------------------------------------------------------------------

    async def _new_conversation(
        self, tx: Executor, conversation_id: str, kind: str, members: list[int]
    ) -> None:
        now = self._clock.now_ms()
        await dm_rows.insert_conversation(tx, {"id": conversation_id, "kind": kind, "created_at": now})
        for user_id in dict.fromkeys(members):
            await dm_rows.insert_participant(
                tx, {"conversation_id": conversation_id, "user_id": user_id, "joined_at": now}
            )

    def _event_row(
        self,
        conversation_id: str,
        event_type: str,
        sender_id: int,
        *,
        text: str | None = None,
        media_keys: list[str] | None = None,
        participant_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        entities = extract_entities(text) if text else {}
        return {
            "id": self._ids.next_id(),
            "conversation_id": conversation_id,
            "event_type": event_type,
            "sender_id": sender_id,
            "text": text,
            "created_at": self._clock.now_ms(),
            "entities": jsonio.dumps(entities).decode() if entities else None,
            "attachments": jsonio.dumps({"media_keys": media_keys}).decode() if media_keys else None,
            "referenced_post_ids": None,
            "participant_ids": jsonio.dumps(participant_ids).decode() if participant_ids else None,
        }

    async def _message_event(
        self,
        tx: Executor,
        conversation_id: str,
        sender_id: int,
        text: str | None,
        media_keys: list[str],
        app_id: int | None,
    ) -> int:
        row = self._event_row(conversation_id, MESSAGE_CREATE, sender_id, text=text, media_keys=media_keys)
        await dm_rows.insert_event(tx, row)
        payload = {
            "dm_event_id": str(row["id"]),
            "dm_conversation_id": conversation_id,
            "sender_id": str(sender_id),
            "event_type": MESSAGE_CREATE,
        }
        if app_id is not None:
            payload["app_id"] = str(app_id)  # the sending app: account activity's `source_app_id`
        recipients = [m for m in await dm_rows.participants_tx(tx, conversation_id) if m != sender_id]
        for kind, user_id in [("dm.sent", sender_id), *(("dm.received", r) for r in recipients)]:
            await append_event(
                tx,
                event_id=self._ids.next_id(),
                kind=kind,
                created_at=row["created_at"],
                user_id=user_id,
                object_id=row["id"],
                payload=payload,
            )
        return int(row["id"])

    async def signal(
        self, conversation_id: str, user_id: int, kind: str, last_read_event_id: int | None = None
    ) -> int:
        """`dm.read` (user read up to `last_read_event_id`) or `dm.indicate_typing` (user is typing):
        one event per participant, each participant's row carrying the same payload. The v2 surface has
        no endpoint for either; the control plane calls this so the events have a real cause. Answers the
        number of participants told."""
        async with self._db.transaction() as tx:
            members = await dm_rows.participants_tx(tx, conversation_id)
            if not members:
                raise _conversation_not_found(conversation_id)
            if user_id not in members:
                raise errors.forbidden(f"User {user_id} is not a participant of this conversation.")
            payload = {"dm_conversation_id": conversation_id, "sender_id": str(user_id)}
            if kind == "dm.read":
                payload["last_read_event_id"] = str(last_read_event_id)
            now = self._clock.now_ms()
            for member in members:
                await append_event(
                    tx,
                    event_id=self._ids.next_id(),
                    kind=kind,
                    created_at=now,
                    user_id=member,
                    object_id=None,
                    payload=payload,
                )
        return len(members)
