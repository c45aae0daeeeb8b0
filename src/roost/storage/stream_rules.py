"""Filtered-stream rules: the statements behind `/2/tweets/search/stream/rules*` and the stream's rule
set. Rules belong to an app (and count against its project's cap)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Delete, Select, bindparam, delete, func, select

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import stream_rules as rules
from roost.storage.statements import binds, in_params, insert_all, sized

_insert = insert_all(rules)
_columns = (rules.c.id, rules.c.value, rules.c.tag)
_of_app_page = (
    select(*_columns)
    .where(rules.c.app_id == bindparam("app_id"), rules.c.id > bindparam("after"))
    .order_by(rules.c.id)
    .limit(bindparam("limit"))
)
_all_of_app = select(*_columns).where(rules.c.app_id == bindparam("app_id")).order_by(rules.c.id)
_count_of_app = select(func.count()).select_from(rules).where(rules.c.app_id == bindparam("app_id"))
_count_of_project = (
    select(func.count()).select_from(rules).where(rules.c.project_id == bindparam("project_id"))
)
_counts_by_app = (
    select(rules.c.app_id, func.count().label("rule_count"))
    .where(rules.c.project_id == bindparam("project_id"))
    .group_by(rules.c.app_id)
    .order_by(rules.c.app_id)
)
_delete_all = delete(rules).where(rules.c.app_id == bindparam("app_id"))


@sized
def _by_ids(count: int) -> Select[Any]:
    return (
        select(*_columns)
        .where(rules.c.app_id == bindparam("app_id"), rules.c.id.in_(binds(count)))
        .order_by(rules.c.id)
    )


@sized
def _by_values(count: int) -> Select[Any]:
    return (
        select(*_columns)
        .where(rules.c.app_id == bindparam("app_id"), rules.c.value.in_(binds(count)))
        .order_by(rules.c.id)
    )


@sized
def _delete_ids(count: int) -> Delete:
    return delete(rules).where(rules.c.app_id == bindparam("app_id"), rules.c.id.in_(binds(count)))


# IN lists are sent in chunks so no statement exceeds the drivers' bind-parameter limits.
CHUNK = 500


def _chunks(items: Sequence[Any]) -> list[list[Any]]:
    return [list(items[i : i + CHUNK]) for i in range(0, len(items), CHUNK)]


class StreamRuleStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def page_of_app(self, app_id: int, after: int, limit: int) -> list[Row]:
        return await self._db.fetch_all(_of_app_page, {"app_id": app_id, "after": after, "limit": limit})

    async def all_of_app(self, app_id: int) -> list[Row]:
        return await self._db.fetch_all(_all_of_app, {"app_id": app_id})

    async def by_ids(self, app_id: int, ids: Sequence[int]) -> list[Row]:
        return await by_ids_tx(self._db, app_id, ids)

    async def count_of_app(self, app_id: int) -> int:
        return int(await self._db.fetch_value(_count_of_app, {"app_id": app_id}) or 0)

    async def count_of_project(self, project_id: int) -> int:
        return int(await self._db.fetch_value(_count_of_project, {"project_id": project_id}) or 0)

    async def counts_by_app(self, project_id: int) -> list[tuple[int, int]]:
        found = await self._db.fetch_all(_counts_by_app, {"project_id": project_id})
        return [(int(row["app_id"]), int(row["rule_count"])) for row in found]


async def by_ids_tx(tx: Executor | Database, app_id: int, ids: Sequence[int]) -> list[Row]:
    out: list[Row] = []
    for chunk in _chunks(list(dict.fromkeys(ids))):
        params: dict[str, Any] = in_params(chunk)
        params["app_id"] = app_id
        out.extend(await tx.fetch_all(_by_ids(len(chunk)), params))
    return out


async def by_values_tx(tx: Executor, app_id: int, values: Sequence[str]) -> list[Row]:
    out: list[Row] = []
    for chunk in _chunks(list(dict.fromkeys(values))):
        params: dict[str, Any] = in_params(chunk)
        params["app_id"] = app_id
        out.extend(await tx.fetch_all(_by_values(len(chunk)), params))
    return out


async def count_of_app_tx(tx: Executor, app_id: int) -> int:
    return int(await tx.fetch_value(_count_of_app, {"app_id": app_id}) or 0)


async def count_of_project_tx(tx: Executor, project_id: int) -> int:
    return int(await tx.fetch_value(_count_of_project, {"project_id": project_id}) or 0)


async def insert_rules(tx: Executor, rows: Sequence[dict[str, Any]]) -> None:
    if rows:
        await tx.execute_many(_insert, list(rows))


async def delete_ids(tx: Executor, app_id: int, ids: Sequence[int]) -> int:
    deleted = 0
    for chunk in _chunks(list(dict.fromkeys(ids))):
        params: dict[str, Any] = in_params(chunk)
        params["app_id"] = app_id
        deleted += await tx.execute(_delete_ids(len(chunk)), params)
    return deleted


async def delete_all(tx: Executor, app_id: int) -> int:
    return await tx.execute(_delete_all, {"app_id": app_id})
