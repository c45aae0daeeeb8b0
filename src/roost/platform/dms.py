"""Direct messages: create (1:1, into a conversation, group) and event lookups."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, ClassVar

from roost.core.errors import ParamError
from roost.core.pagination import PageToken
from roost.core.params import EnumSet, IntRange, Kind, Param, Snowflake, Token
from roost.domain.dms import EVENT_TYPES
from roost.platform.operations import USER_AUTH, DailyCap, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.platform.timelines import page_objects

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
    data = await call.domain.dms.send_to_participant(
        call.principal.user_id, call.params["participant_id"], call.body, call.principal.app_id
    )
    return {"data": data}


async def send_to_conversation(call: Call) -> dict[str, Any]:
    assert call.principal.user_id is not None
    conversation_id = call.params["dm_conversation_id"]
    data = await call.domain.dms.send_to_conversation(
        call.principal.user_id, conversation_id, call.body, call.principal.app_id
    )
    return {"data": data}


async def create_group(call: Call) -> dict[str, Any]:
    assert call.principal.user_id is not None
    return {
        "data": await call.domain.dms.create_group(call.principal.user_id, call.body, call.principal.app_id)
    }


# ---- reads --------------------------------------------------------------------------------------


def _paging(call: Call) -> tuple[Collection[str], int, PageToken | None]:
    params = call.params
    return params.get("event_types") or EVENT_TYPES, params["max_results"], params.get("pagination_token")


async def user_events(call: Call) -> Objects:
    assert call.principal.user_id is not None
    return page_objects(await call.domain.dm_events.of_user(call.principal.user_id, *_paging(call)))


async def conversation_events(call: Call) -> Objects:
    assert call.principal.user_id is not None
    page = await call.domain.dm_events.of_conversation(
        call.principal.user_id, call.params["id"], *_paging(call)
    )
    return page_objects(page)


async def participant_events(call: Call) -> Objects:
    assert call.principal.user_id is not None
    page = await call.domain.dm_events.with_participant(
        call.principal.user_id, call.params["participant_id"], *_paging(call)
    )
    return page_objects(page)


async def event_by_id(call: Call) -> Objects:
    assert call.principal.user_id is not None
    row, problems = await call.domain.dm_events.event(call.principal.user_id, call.params["event_id"])
    return Objects([] if row is None else [row], single=True, errors=problems)


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
