"""Storage behind ads targeting: the line-item lock that serialises targeting writes, and the reads
behind targeting suggestions (recent post texts that mention given words, accounts followed
together with given accounts in the follow graph)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from sqlalchemy import Select, and_, bindparam, func, or_, select

from roost.storage.db import Database, Executor
from roost.storage.schema import follows, posts
from roost.storage.schema_ads import ads_entities
from roost.storage.statements import binds, in_params

# Two requests adding criteria to one line item must not both pass a "one per line item" check
# (PostgreSQL; SQLite's single writer already serialises them, and its dialect drops FOR UPDATE).
_lock_entity = select(ads_entities.c.id).where(ads_entities.c.id == bindparam("id")).with_for_update()
_SAMPLE = 2_000  # posts read per suggestion request: enough words to rank, bounded work


def _like(word: str) -> str:
    escaped = word.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


@lru_cache(maxsize=64)
def _texts_mentioning(count: int) -> Select:
    text = func.lower(posts.c.text)
    return (
        select(posts.c.text)
        .where(
            or_(*(text.like(bindparam(f"w{i}"), escape="\\") for i in range(count))),
            posts.c.deleted_at.is_(None),
            posts.c.superseded_by.is_(None),
            posts.c.reposted_post_id.is_(None),
        )
        .order_by(posts.c.id.desc())
        .limit(bindparam("limit"))
    )


@lru_cache(maxsize=64)
def _co_followed(count: int) -> Select:
    """Accounts the followers of the given accounts also follow, most shared followers first."""
    mine, theirs = follows.alias("mine"), follows.alias("theirs")
    shared = func.count().label("shared")
    return (
        select(theirs.c.followee_id, shared)
        .select_from(mine.join(theirs, theirs.c.follower_id == mine.c.follower_id))
        .where(mine.c.followee_id.in_(binds(count)), theirs.c.followee_id.not_in(binds(count)))
        .group_by(theirs.c.followee_id)
        .order_by(shared.desc(), theirs.c.followee_id.asc())
        .limit(bindparam("limit"))
    )


@lru_cache(maxsize=64)
def _followed_by(count: int) -> Select:
    return (
        select(follows.c.followee_id)
        .where(and_(follows.c.follower_id.in_(binds(count)), follows.c.followee_id.not_in(binds(count))))
        .order_by(follows.c.created_at.desc(), follows.c.followee_id.asc())
        .limit(bindparam("limit"))
    )


async def lock_entity(tx: Executor, entity_id: str) -> None:
    """Hold the entity's row until the transaction ends."""
    await tx.fetch_value(_lock_entity, {"id": entity_id})


async def texts_mentioning(db: Database, words: Sequence[str]) -> list[str]:
    """Texts of the newest posts containing any of the words (case-insensitive substring)."""
    if not words:
        return []
    params: dict[str, object] = {f"w{i}": _like(word) for i, word in enumerate(words)}
    params["limit"] = _SAMPLE
    rows = await db.fetch_all(_texts_mentioning(len(words)), params)
    return [str(row["text"]) for row in rows]


async def co_followed(db: Database, user_ids: Sequence[int], limit: int) -> list[int]:
    if not user_ids:
        return []
    params = {**in_params(list(user_ids)), "limit": limit}
    rows = await db.fetch_all(_co_followed(len(user_ids)), params)
    return [int(row["followee_id"]) for row in rows]


async def followed_by(db: Database, user_ids: Sequence[int], limit: int) -> list[int]:
    if not user_ids:
        return []
    params = {**in_params(list(user_ids)), "limit": limit}
    rows = await db.fetch_all(_followed_by(len(user_ids)), params)
    return [int(row["followee_id"]) for row in rows]
