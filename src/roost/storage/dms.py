"""Direct-message storage: conversations, their participants and their events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, bindparam, select

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import dm_conversations, dm_events, dm_participants
from roost.storage.statements import binds, in_params, insert_all, sized

_conversation = select(dm_conversations).where(dm_conversations.c.id == bindparam("id"))
_participants = (
    select(dm_participants.c.user_id)
    .where(dm_participants.c.conversation_id == bindparam("id"))
    .order_by(dm_participants.c.joined_at, dm_participants.c.user_id)
)
_membership = select(dm_participants.c.user_id).where(
    dm_participants.c.conversation_id == bindparam("id"), dm_participants.c.user_id == bindparam("user_id")
)
_event = select(dm_events).where(dm_events.c.id == bindparam("id"))
_insert_conversation = insert_all(dm_conversations)
_insert_participant = insert_all(dm_participants)
_insert_event = insert_all(dm_events)


@sized
def _page_of_conversation(count: int, ascending: bool = False) -> Select:
    order = dm_events.c.id.asc() if ascending else dm_events.c.id.desc()
    return (
        select(dm_events)
        .where(
            dm_events.c.conversation_id == bindparam("conversation_id"),
            dm_events.c.id > bindparam("since_id"),
            dm_events.c.id < bindparam("until_id"),
            dm_events.c.event_type.in_(binds(count)),
        )
        .order_by(order)
        .limit(bindparam("limit"))
    )


@sized
def _page_of_user(count: int, ascending: bool = False) -> Select:
    order = dm_events.c.id.asc() if ascending else dm_events.c.id.desc()
    return (
        select(dm_events)
        .join(dm_participants, dm_participants.c.conversation_id == dm_events.c.conversation_id)
        .where(
            dm_participants.c.user_id == bindparam("user_id"),
            dm_events.c.id > bindparam("since_id"),
            dm_events.c.id < bindparam("until_id"),
            dm_events.c.event_type.in_(binds(count)),
        )
        .order_by(order)
        .limit(bindparam("limit"))
    )


class DmStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def event(self, event_id: int) -> Row | None:
        return await self._db.fetch_one(_event, {"id": event_id})

    async def conversation(self, conversation_id: str) -> Row | None:
        return await self._db.fetch_one(_conversation, {"id": conversation_id})

    async def is_participant(self, conversation_id: str, user_id: int) -> bool:
        found = await self._db.fetch_one(_membership, {"id": conversation_id, "user_id": user_id})
        return found is not None

    async def events(
        self,
        *,
        event_types: Sequence[str],
        since_id: int,
        until_id: int,
        limit: int,
        ascending: bool = False,
        conversation_id: str | None = None,
        user_id: int | None = None,
    ) -> list[Row]:
        """A page of events of one conversation, or of every conversation `user_id` is in."""
        types = sorted(event_types)
        params: dict[str, Any] = {"since_id": since_id, "until_id": until_id, "limit": limit}
        params.update(in_params(types))
        if conversation_id is not None:
            params["conversation_id"] = conversation_id
            return await self._db.fetch_all(_page_of_conversation(len(types), ascending), params)
        params["user_id"] = user_id
        return await self._db.fetch_all(_page_of_user(len(types), ascending), params)


async def get_conversation_tx(tx: Executor, conversation_id: str) -> Row | None:
    return await tx.fetch_one(_conversation, {"id": conversation_id})


async def participants_tx(tx: Executor, conversation_id: str) -> list[int]:
    return [int(row["user_id"]) for row in await tx.fetch_all(_participants, {"id": conversation_id})]


async def insert_conversation(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_conversation, row)


async def insert_participant(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_participant, row)


async def insert_event(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_event, row)
