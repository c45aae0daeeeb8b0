"""Users search over name, username and bio, and the users affiliated with an organisation account.

User objects are public, protected accounts included (their posts are what protection hides), so
both lists show every matching account.
"""

from __future__ import annotations

from typing import Any

from roost.core import jsonio
from roost.core.errors import resource_not_found_item
from roost.core.pagination import PageToken
from roost.domain.pages import Page, offset_of, offset_page
from roost.storage.user_search import UserSearchStore
from roost.storage.users import UserStore


def affiliated_with(affiliation: Any, org_id: int) -> bool:
    """Whether a user's `affiliation` (JSON: `{"user_id": [ids], …}`) names the organisation."""
    value = jsonio.loads(affiliation) if isinstance(affiliation, str) else affiliation
    if not isinstance(value, dict):
        return False
    ids = value.get("user_id")
    if not isinstance(ids, list):
        ids = [ids]  # the single string of the affiliation shape before February 2025
    return str(org_id) in {str(item) for item in ids}


class UserSearch:
    def __init__(self, store: UserSearchStore, users: UserStore) -> None:
        self._store = store
        self._users = users

    async def search(self, query: str, limit: int, token: PageToken | None) -> Page:
        """Users whose name, username or bio contains every word of the query (any case)."""
        terms = query.split()
        if not terms:
            return Page([], {"result_count": 0})
        scope = "users_search:" + " ".join(term.lower() for term in terms)
        offset = offset_of(token, scope)
        rows = await self._store.search(terms, query.strip(), limit + 1, offset)
        return offset_page(rows, rows[:limit], offset, limit, scope)

    async def affiliates(self, org_id: int, limit: int, token: PageToken | None) -> Page:
        """Users whose affiliation badge names the organisation account, by id."""
        if await self._users.get(org_id) is None:
            return Page([], errors=[resource_not_found_item("user", "id", str(org_id))])
        scope = f"affiliates:{org_id}"
        offset = offset_of(token, scope)
        rows = [
            row
            for row in await self._store.affiliate_candidates(org_id)
            if row["id"] != org_id and affiliated_with(row["affiliation"], org_id)
        ]
        window = rows[offset : offset + limit + 1]
        return offset_page(window, window[:limit], offset, limit, scope)
