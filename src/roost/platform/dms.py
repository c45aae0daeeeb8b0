"""Direct messages: create (1:1, into a conversation, group) and event lookups."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from roost.core import pagination
from roost.core.errors import resource_not_found_item
from roost.core.params import EnumSet, IntRange, Kind, Param, ParamError, Snowflake, Token
from roost.domain.dms import EVENT_TYPES, DmService, one_to_one_id
from roost.platform.operations import USER_AUTH, DailyCap, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.storage.posts import MAX_ID

CONVERSATION_PATTERN = "^([0-9]{1,19}-[0-9]{1,19}|[0-9]{15,19})$"
_CONVERSATION = re.compile(CONVERSATION_PATTERN)


class ConversationId(Kind):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "pattern": CONVERSATION_PATTERN}

    def parse(self, name: str, raw: str) -> str:
        if _CONVERSATION.fullmatch(raw) is None:
            raise ParamError(
                f"The `{name}` query parameter value [{raw}] does not match {CONVERSATION_PATTERN}"
            )
        return raw


class DmPageToken(Token):
    """DM event pagination tokens (the platform's 16-character minimum)."""

    openapi: ClassVar[dict[str, Any]] = {"type": "string", "minLength": 16}


PAGE_PARAMS = (
    Param("max_results", IntRange(1, 100), default=100),
    Param("pagination_token", DmPageToken()),
    Param("event_types", EnumSet(EVENT_TYPES)),
)


# ---- writes -------------------------------------------------------------------------------------


async def send_to_participant(call: Call) -> dict[str, Any]:
    assert call.principal.user_id is not None
    data = await DmService(call.services).send_to_participant(
        call.principal.user_id, call.params["participant_id"], call.body
    )
    return {"data": data}


async def send_to_conversation(call: Call) -> dict[str, Any]:
    assert call.principal.user_id is not None
    data = await DmService(call.services).send_to_conversation(
        call.principal.user_id, call.params["dm_conversation_id"], call.body
    )
    return {"data": data}


async def create_group(call: Call) -> dict[str, Any]:
    assert call.principal.user_id is not None
    return {"data": await DmService(call.services).create_group(call.principal.user_id, call.body)}


# ---- reads --------------------------------------------------------------------------------------


async def _page(call: Call, scope: str, **where: Any) -> Objects:
    params = call.params
    limit = params["max_results"]
    token = params.get("pagination_token")
    since_id, until_id, direction = 0, MAX_ID, pagination.NEXT
    if token is not None:
        cursor, direction = token.position(scope)
        if direction == pagination.NEXT:
            until_id = cursor
        else:
            since_id = cursor
    rows = await call.services.dms.events(
        event_types=sorted(params.get("event_types") or EVENT_TYPES),
        since_id=since_id,
        until_id=until_id,
        limit=limit + 1,
        ascending=direction == pagination.PREVIOUS,
        **where,
    )
    more = len(rows) > limit
    rows = rows[:limit]
    if direction == pagination.PREVIOUS:
        rows.reverse()
    meta: dict[str, Any] = {"result_count": len(rows)}
    if rows:
        if more or direction == pagination.PREVIOUS:
            meta["next_token"] = pagination.encode(rows[-1]["id"], pagination.NEXT, scope)
        if token is not None and (direction == pagination.NEXT or more):
            meta["previous_token"] = pagination.encode(rows[0]["id"], pagination.PREVIOUS, scope)
    return Objects(rows, meta=meta)


async def user_events(call: Call) -> Objects:
    return await _page(call, "dm_events", user_id=call.principal.user_id)


async def conversation_events(call: Call) -> Objects:
    conversation_id: str = call.params["id"]
    assert call.principal.user_id is not None
    if not await call.services.dms.is_participant(conversation_id, call.principal.user_id):
        return Objects([], errors=[resource_not_found_item("dm_conversation", "id", conversation_id)])
    return await _page(call, "dm_conversation_events", conversation_id=conversation_id)


async def participant_events(call: Call) -> Objects:
    participant_id: int = call.params["participant_id"]
    assert call.principal.user_id is not None
    if await call.services.users.get(participant_id) is None:
        return Objects([], errors=[resource_not_found_item("user", "participant_id", str(participant_id))])
    conversation_id = one_to_one_id(call.principal.user_id, participant_id)
    return await _page(call, "dm_conversation_events", conversation_id=conversation_id)


async def event_by_id(call: Call) -> Objects:
    event_id: int = call.params["event_id"]
    assert call.principal.user_id is not None
    row = await call.services.dms.event(event_id)
    if row is None or not await call.services.dms.is_participant(
        row["conversation_id"], call.principal.user_id
    ):
        # Events of conversations the caller is not in do not exist for them.
        return Objects(
            [], single=True, errors=[resource_not_found_item("dm_event", "event_id", str(event_id))]
        )
    return Objects([row], single=True)


# ---- declarations -------------------------------------------------------------------------------

WRITE_SCOPES = ("dm.write", "tweet.read", "users.read")
READ_SCOPES = ("dm.read", "tweet.read", "users.read")
LOOKUP_LIMIT = RateLimit(user=15)
CREATE_LIMIT = RateLimit(user=15)
CREATE_CAP = DailyCap(app=1_440, user=1_440)


def _create(
    operation_id: str, path: str, handler: Any, summary: str, params: tuple[Param, ...] = ()
) -> Operation:
    return Operation(
        operation_id,
        "POST",
        path,
        handler,
        USER_AUTH,
        WRITE_SCOPES,
        write=True,
        dm=True,
        params=params,
        body=True,
        rate_limit=CREATE_LIMIT,
        daily_cap=CREATE_CAP,
        status=201,
        tag="Direct Messages",
        summary=summary,
    )


def _lookup(operation_id: str, path: str, handler: Any, summary: str, params: tuple[Param, ...]) -> Operation:
    return Operation(
        operation_id,
        "GET",
        path,
        handler,
        USER_AUTH,
        READ_SCOPES,
        dm=True,
        params=params,
        returns="dm_event",
        rate_limit=LOOKUP_LIMIT,
        tag="Direct Messages",
        summary=summary,
    )


OPERATIONS = (
    _create(
        "createDirectMessagesByParticipantId",
        "/2/dm_conversations/with/{participant_id}/messages",
        send_to_participant,
        "Send a new message to a user",
        (Param("participant_id", Snowflake(), required=True, in_path=True),),
    ),
    _create(
        "createDirectMessagesByConversationId",
        "/2/dm_conversations/{dm_conversation_id}/messages",
        send_to_conversation,
        "Send a new message to a DM Conversation",
        (Param("dm_conversation_id", ConversationId(), required=True, in_path=True),),
    ),
    _create(
        "createDirectMessagesConversation",
        "/2/dm_conversations",
        create_group,
        "Create a new DM Conversation",
    ),
    _lookup(
        "getDirectMessagesEvents",
        "/2/dm_events",
        user_events,
        "Get recent DM Events",
        PAGE_PARAMS,
    ),
    _lookup(
        "getDirectMessagesEventsById",
        "/2/dm_events/{event_id}",
        event_by_id,
        "Get DM event by ID",
        (Param("event_id", Snowflake(), required=True, in_path=True),),
    ),
    _lookup(
        "getDirectMessagesEventsByParticipantId",
        "/2/dm_conversations/with/{participant_id}/dm_events",
        participant_events,
        "Get DM Events for a DM Conversation",
        (Param("participant_id", Snowflake(), required=True, in_path=True), *PAGE_PARAMS),
    ),
    _lookup(
        "getDirectMessagesEventsByConversationId",
        "/2/dm_conversations/{id}/dm_events",
        conversation_events,
        "Get DM Events for a DM Conversation",
        (Param("id", ConversationId(), required=True, in_path=True), *PAGE_PARAMS),
    ),
)
