"""Reading direct-message events: a user's, a conversation's, one by id; each only for participants,
paged newest first with the platform's meta."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from roost.core import pagination
from roost.core.errors import resource_not_found_item
from roost.core.pagination import PageToken
from roost.core.records import Row
from roost.domain.dms import one_to_one_id
from roost.domain.pages import Page
from roost.storage.dms import DmStore
from roost.storage.posts import MAX_ID
from roost.storage.users import UserStore


class DmEvents:
    def __init__(self, dms: DmStore, users: UserStore) -> None:
        self._dms = dms
        self._users = users

    async def of_user(
        self, user_id: int, event_types: Collection[str], limit: int, token: PageToken | None
    ) -> Page:
        return await self._page("dm_events", event_types, limit, token, user_id=user_id)

    async def of_conversation(
        self,
        user_id: int,
        conversation_id: str,
        event_types: Collection[str],
        limit: int,
        token: PageToken | None,
    ) -> Page:
        if not await self._dms.is_participant(conversation_id, user_id):
            return Page([], errors=[resource_not_found_item("dm_conversation", "id", conversation_id)])
        return await self._page(
            "dm_conversation_events", event_types, limit, token, conversation_id=conversation_id
        )

    async def with_participant(
        self,
        user_id: int,
        participant_id: int,
        event_types: Collection[str],
        limit: int,
        token: PageToken | None,
    ) -> Page:
        if await self._users.get(participant_id) is None:
            return Page([], errors=[resource_not_found_item("user", "participant_id", str(participant_id))])
        conversation_id = one_to_one_id(user_id, participant_id)
        return await self._page(
            "dm_conversation_events", event_types, limit, token, conversation_id=conversation_id
        )

    async def event(self, user_id: int, event_id: int) -> tuple[Row | None, list[dict[str, Any]]]:
        row = await self._dms.event(event_id)
        if row is None or not await self._dms.is_participant(row["conversation_id"], user_id):
            # Events of conversations the caller is not in do not exist for them.
            return None, [resource_not_found_item("dm_event", "event_id", str(event_id))]
        return row, []

    async def _page(
        self, scope: str, event_types: Collection[str], limit: int, token: PageToken | None, **where: Any
    ) -> Page:
        since_id, until_id, direction = 0, MAX_ID, pagination.NEXT
        if token is not None:
            cursor, direction = token.position(scope)
            if direction == pagination.NEXT:
                until_id = cursor
            else:
                since_id = cursor
        rows = await self._dms.events(
            event_types=sorted(event_types),
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
        return Page(rows, meta)
