"""The v2 Spaces reads: lookups by id and by creator, search by title, a ticketed Space's buyers and
the posts that share a Space.

Ended Spaces stay retrievable by id (live traffic returned them), but by-creator and search list only
live and scheduled ones (`state=all` of search means both). Posts that share a Space are those
linking to it; the viewer sees them as any other read shows posts (protected authors hidden).
"""

from __future__ import annotations

from roost.core import errors
from roost.core.errors import resource_not_found_item
from roost.core.pagination import PageToken
from roost.core.records import Row
from roost.domain.lookup import Lookup
from roost.domain.pages import Page, offset_of, offset_page
from roost.storage.spaces import SpaceStore

_SEARCH_STATES = {"live": ["live"], "scheduled": ["scheduled"], "all": ["live", "scheduled"]}


def title_matches(title: str | None, query: str) -> bool:
    """Every word of the query appears in the title, ignoring case."""
    if not title:
        return False
    words = title.lower().split()
    text = title.lower()
    return all(term in words or term in text for term in query.lower().split())


class SpaceReads:
    def __init__(self, store: SpaceStore, lookup: Lookup) -> None:
        self._store = store
        self._lookup = lookup

    async def one(self, space_id: str) -> Page:
        row = await self._store.get(space_id)
        if row is None:
            return Page([], None, [resource_not_found_item("space", "id", space_id)])
        return Page([row])

    async def many(self, space_ids: list[str]) -> Page:
        """By id in request order; each unknown id is a partial error. No `meta` (live traffic)."""
        rows = {row["id"]: row for row in await self._store.get_many(space_ids)}
        unique = list(dict.fromkeys(space_ids))
        problems = [resource_not_found_item("space", "ids", i) for i in unique if i not in rows]
        return Page([rows[i] for i in unique if i in rows], None, problems)

    async def by_creators(self, user_ids: list[int]) -> Page:
        rows = await self._store.by_creators(user_ids)
        return Page(rows, {"result_count": len(rows)})

    async def search(self, query: str, state: str, max_results: int) -> Page:
        candidates = await self._store.in_states(_SEARCH_STATES[state])
        rows = [row for row in candidates if title_matches(row["title"], query)][:max_results]
        return Page(rows, {"result_count": len(rows)})

    async def buyers(self, viewer_id: int | None, space_id: str, limit: int, token: PageToken | None) -> Page:
        """Who bought tickets, oldest purchase first: for the Space's creator only."""
        space = await self._space(space_id)
        if space is None:
            return Page([], None, [resource_not_found_item("space", "id", space_id)])
        if viewer_id != space["creator_id"]:
            raise errors.not_authorized_for_resource("space", "id", space_id)
        scope = f"space_buyers:{space_id}"
        offset = offset_of(token, scope)
        rows = await self._store.buyers(space_id, limit + 1, offset)
        return offset_page(rows, rows[:limit], offset, limit, scope)

    async def posts(self, viewer_id: int | None, space_id: str, limit: int, token: PageToken | None) -> Page:
        """Posts linking to the Space, newest first; those the viewer may not see are left out."""
        if await self._space(space_id) is None:
            return Page([], None, [resource_not_found_item("space", "id", space_id)])
        scope = f"space_posts:{space_id}"
        offset = offset_of(token, scope)
        rows = await self._store.posts(space_id, limit + 1, offset)
        hidden = await self._lookup.hidden_authors(viewer_id, (row["author_id"] for row in rows[:limit]))
        shown = [row for row in rows[:limit] if row["author_id"] not in hidden]
        return offset_page(rows, shown, offset, limit, scope)

    async def _space(self, space_id: str) -> Row | None:
        return await self._store.get(space_id)
