"""Users search (name, username, bio) and the affiliates of an organisation account."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, case, func, or_, select

from roost.storage.db import Database, Row
from roost.storage.schema import users
from roost.storage.statements import sized

_LIKE_ESCAPE = "\\"


def like_pattern(term: str) -> str:
    """A LIKE pattern matching `term` anywhere, its wildcards taken literally."""
    escaped = term.replace(_LIKE_ESCAPE, _LIKE_ESCAPE * 2).replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped.lower()}%"


@sized
def _search(terms: int) -> Select:
    """Users matching every term (`t0`, `t1`, … as LIKE patterns) in name, username or bio: the
    exact username first, then by followers, then by id."""
    matches = [
        or_(
            func.lower(users.c.name).like(bindparam(f"t{index}"), escape=_LIKE_ESCAPE),
            users.c.username_lower.like(bindparam(f"t{index}"), escape=_LIKE_ESCAPE),
            func.lower(users.c.description).like(bindparam(f"t{index}"), escape=_LIKE_ESCAPE),
        )
        for index in range(terms)
    ]
    exact = case((users.c.username_lower == bindparam("exact"), 0), else_=1)
    return (
        select(users)
        .where(*matches)
        .order_by(exact, users.c.followers_count.desc(), users.c.id)
        .limit(bindparam("limit"))
        .offset(bindparam("offset"))
    )


# Candidates only: the id appears somewhere in the affiliation JSON; the caller checks `user_id`.
_affiliate_candidates = (
    select(users)
    .where(users.c.affiliation.like(bindparam("pattern"), escape=_LIKE_ESCAPE))
    .order_by(users.c.id)
)


class UserSearchStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def search(self, terms: list[str], exact: str, limit: int, offset: int) -> list[Row]:
        params: dict[str, Any] = {f"t{index}": like_pattern(term) for index, term in enumerate(terms)}
        params.update(exact=exact.lower(), limit=limit, offset=offset)
        return await self._db.fetch_all(_search(len(terms)), params)

    async def affiliate_candidates(self, org_id: int) -> list[Row]:
        return await self._db.fetch_all(_affiliate_candidates, {"pattern": f"%{org_id}%"})
