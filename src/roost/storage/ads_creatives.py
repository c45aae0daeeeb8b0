"""Ads creatives storage (issue 23): cards found by the number of their `card://` uri, the entities of
one kind across accounts (scheduled posts falling due), and a compare-and-set entity write so that a
scheduled post is published by one process only."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import BindParameter, Select, Update, bindparam, delete, select, update

from roost.core import jsonio
from roost.storage.db import Database, Executor, Row
from roost.storage.schema import posts
from roost.storage.schema_ads import ads_entities

Reader = Database | Executor

_of_kind = select(ads_entities).where(ads_entities.c.kind == bindparam("kind"), ads_entities.c.deleted == 0)
# The body as read must still be the stored one: a second process publishing the same scheduled post
# finds it changed and writes nothing.
_swap: Update = (
    update(ads_entities)
    .where(ads_entities.c.id == bindparam("id"), ads_entities.c.body == bindparam("seen"))
    .values(updated_at=bindparam("updated_at"), body=bindparam("body"))
)

_remove = delete(ads_entities).where(ads_entities.c.id == bindparam("id"))


@lru_cache(maxsize=8)
def _by_uri_number(kinds: tuple[str, ...]) -> Select:
    # Cards keep their uri's number in `parent_id` (indexed with the kind).
    kind_binds: list[BindParameter[Any]] = [bindparam(f"kind{index}") for index in range(len(kinds))]
    return select(ads_entities).where(
        ads_entities.c.parent_id == bindparam("number"), ads_entities.c.kind.in_(kind_binds)
    )


def _decoded(row: Row | None) -> Row | None:
    if row is None:
        return None
    row = dict(row)
    if isinstance(row["body"], str | bytes):
        row["body"] = jsonio.loads(row["body"])
    return row


def body_text(body: dict[str, Any]) -> str:
    return jsonio.dumps(body).decode()


async def card_by_number(reader: Reader, number: str, kinds: Sequence[str]) -> Row | None:
    """The card (of any account) whose uri is `card://<number>`, deleted or not."""
    params = {"number": number, **{f"kind{index}": kind for index, kind in enumerate(kinds)}}
    return _decoded(await reader.fetch_one(_by_uri_number(tuple(kinds)), params))


async def entities_of_kind(reader: Reader, kind: str) -> list[Row]:
    """Every live entity of a kind, whatever its account."""
    rows = await reader.fetch_all(_of_kind, {"kind": kind})
    return [r for r in map(_decoded, rows) if r is not None]


async def swap_body(tx: Executor, entity_id: str, seen: str, body: dict[str, Any], updated_at: int) -> bool:
    """Replace the body only if it is still `seen` (its stored text); whether it was replaced."""
    changed = await tx.execute(
        _swap, {"id": entity_id, "seen": seen, "body": body_text(body), "updated_at": updated_at}
    )
    return bool(changed)


async def remove_entity(tx: Executor, entity_id: str) -> None:
    """A hard delete (draft and scheduled posts, poll and conversation cards): gone for every read."""
    await tx.execute(_remove, {"id": entity_id})


_POSTS_SHOWN = 3200  # as deep as a user timeline goes
_posts_of_author = (
    select(posts)
    .where(
        posts.c.author_id == bindparam("author_id"),
        posts.c.deleted_at.is_(None),
        posts.c.superseded_by.is_(None),
    )
    .order_by(posts.c.id.desc())
    .limit(_POSTS_SHOWN)
)


async def posts_of_author(reader: Reader, author_id: int) -> list[Row]:
    """A user's live posts, newest first, promoted-only (nullcast) ones included."""
    return list(await reader.fetch_all(_posts_of_author, {"author_id": author_id}))
