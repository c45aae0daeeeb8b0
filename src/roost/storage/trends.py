"""The posts trends are computed from: recent live posts of public accounts, with their place."""

from __future__ import annotations

from sqlalchemy import bindparam, select

from roost.storage.db import Database, Row
from roost.storage.schema import follows, places, posts, users

_COLUMNS = (
    posts.c.id,
    posts.c.text,
    posts.c.created_at,
    places.c.name,
    places.c.full_name,
    places.c.country_code,
)
_recent = (
    select(*_COLUMNS)
    .join(users, users.c.id == posts.c.author_id)
    .outerjoin(places, places.c.id == posts.c.place_id)
    .where(
        posts.c.deleted_at.is_(None),
        posts.c.superseded_by.is_(None),
        posts.c.reposted_post_id.is_(None),
        users.c.protected == 0,
        posts.c.created_at >= bindparam("since"),
    )
    .order_by(posts.c.id.desc())
    .limit(bindparam("limit"))
)
# The same, by the accounts a user follows and the user.
_followed = (
    select(*_COLUMNS)
    .outerjoin(places, places.c.id == posts.c.place_id)
    .where(
        posts.c.deleted_at.is_(None),
        posts.c.superseded_by.is_(None),
        posts.c.reposted_post_id.is_(None),
        posts.c.created_at >= bindparam("since"),
        (posts.c.author_id == bindparam("user_id"))
        | posts.c.author_id.in_(
            select(follows.c.followee_id).where(follows.c.follower_id == bindparam("user_id"))
        ),
    )
    .order_by(posts.c.id.desc())
    .limit(bindparam("limit"))
)


class TrendStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def recent_public(self, since_ms: int, limit: int) -> list[Row]:
        return await self._db.fetch_all(_recent, {"since": since_ms, "limit": limit})

    async def recent_followed(self, user_id: int, since_ms: int, limit: int) -> list[Row]:
        """Posts of the user's network (followed accounts, protected ones included: the user follows
        them, so may see them) and the user's own."""
        return await self._db.fetch_all(_followed, {"user_id": user_id, "since": since_ms, "limit": limit})
