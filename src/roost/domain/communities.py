"""Communities: lookup and search (`/2/communities*`), membership (the community check of
`POST /2/tweets`), and creating communities and adding members through the control plane.

Search finds communities whose name or description contains every word of the query, in any case,
the most members first.
"""

from __future__ import annotations

import re
from typing import Any

from roost.core import errors
from roost.core.clock import Clock
from roost.core.errors import resource_not_found_item
from roost.core.ids import SnowflakeGenerator
from roost.core.pagination import PageToken
from roost.core.params import MAX_ID
from roost.core.records import Row
from roost.domain.pages import Page, offset_of, offset_page
from roost.storage import communities as community_rows
from roost.storage.communities import CommunityStore
from roost.storage.db import Database, Executor
from roost.storage.users import UserStore

ACCESS = ("Public", "Closed")
JOIN_POLICIES = ("Open", "RestrictedJoinRequestsRequireModeratorApproval")
ROLES = ("Admin", "Moderator", "Member")
SEARCH_SCOPE = "communities-search"
_WORD = re.compile(r"\w+", re.UNICODE)
CREATE_FIELDS = frozenset({"name", "description", "access", "join_policy", "creator_id"})


def community_view(row: Row) -> dict[str, Any]:
    return {key: row[key] for key in row}


async def check_member(tx: Executor, user_id: int, community_id: int) -> None:
    """The rule of posting into a community (`POST /2/tweets` with `community_id`): the community
    exists and the author is one of its members."""
    community = await community_rows.community_tx(tx, community_id) if community_id <= MAX_ID else None
    if community is None:
        raise errors.invalid_request(
            [
                errors.param_error(
                    "community_id",
                    str(community_id),
                    f"Could not find community with community_id: [{community_id}].",
                )
            ]
        )
    if await community_rows.member_tx(tx, community_id, user_id) is None:
        raise errors.forbidden("You are not a member of this community.")


def _choice(body: dict[str, Any], name: str, allowed: tuple[str, ...]) -> str:
    value = body.get(name, allowed[0])
    if value not in allowed:
        raise errors.invalid_body(f"{name} must be one of {', '.join(allowed)}")
    return str(value)


class Communities:
    def __init__(
        self, db: Database, clock: Clock, ids: SnowflakeGenerator, store: CommunityStore, users: UserStore
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._store = store
        self._users = users

    async def community(self, community_id: int) -> Page:
        row = await self._store.get(community_id) if community_id <= MAX_ID else None
        if row is None:
            return Page([], None, [resource_not_found_item("community", "id", str(community_id))])
        return Page([community_view(row)])

    async def search(self, query: str, limit: int, token: PageToken | None) -> Page:
        words = [word.lower() for word in _WORD.findall(query)]
        if not words:
            return Page([], {"result_count": 0})
        found = [
            community_view(row)
            for row in await self._store.containing(words[0])
            if all(word in _words(row) for word in words)
        ]
        offset = offset_of(token, SEARCH_SCOPE)
        rows = found[offset : offset + limit + 1]
        return offset_page(rows, rows[:limit], offset, limit, SEARCH_SCOPE)

    # ---- the control plane's writes ---------------------------------------------------------------

    async def create(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise errors.invalid_body("a JSON object is expected")
        extra = sorted(set(body) - CREATE_FIELDS)
        if extra:
            raise errors.invalid_body(f"unknown field {extra[0]}")
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 30:
            raise errors.invalid_body("name must be a string of 1 to 30 characters")
        description = body.get("description", "")
        if not isinstance(description, str) or len(description) > 160:
            raise errors.invalid_body("description must be a string of at most 160 characters")
        creator = await self._user(body.get("creator_id"), "creator_id")
        now = self._clock.now_ms()
        row = {
            "id": self._ids.next_id(),
            "name": name,
            "description": description,
            "access": _choice(body, "access", ACCESS),
            "join_policy": _choice(body, "join_policy", JOIN_POLICIES),
            "creator_id": creator,
            "created_at": now,
            "member_count": 0,
        }
        async with self._db.transaction() as tx:
            await community_rows.insert_community(tx, row)
            await community_rows.add_member(
                tx, {"community_id": row["id"], "user_id": creator, "role": "Admin", "created_at": now}
            )
        return {**row, "member_count": 1}

    async def join(self, community_id: int, user_id: int, role: str = "Member") -> bool:
        """Add a member; False if the user is one already."""
        if role not in ROLES:
            raise errors.invalid_body(f"role must be one of {', '.join(ROLES)}")
        await self._user(str(user_id), "user_id")
        async with self._db.transaction() as tx:
            if await community_rows.community_tx(tx, community_id) is None:
                raise errors.not_found_problem(f"Could not find community with id: [{community_id}].")
            if await community_rows.member_tx(tx, community_id, user_id) is not None:
                return False
            await community_rows.add_member(
                tx,
                {
                    "community_id": community_id,
                    "user_id": user_id,
                    "role": role,
                    "created_at": self._clock.now_ms(),
                },
            )
        return True

    async def _user(self, raw: Any, name: str) -> int:
        text = str(raw) if isinstance(raw, str | int) and not isinstance(raw, bool) else ""
        if not (text.isascii() and text.isdigit()) or int(text) > MAX_ID:
            raise errors.invalid_body(f"{name} must be a numeric id")
        if await self._users.get(int(text)) is None:
            raise errors.invalid_body(f"{name}: user {text} does not exist")
        return int(text)


def _words(row: Row) -> set[str]:
    return {word.lower() for word in _WORD.findall(f"{row['name']} {row['description']}")}
