"""Ads API storage: accounts, who reaches them, entities of every kind, history and id sequences.

Reads take an optional executor so validations inside a batch see what earlier items of the same
transaction wrote. List statements are built per filter shape and cached, never per request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Select, bindparam, func, select, update

from roost.core import jsonio
from roost.storage.db import Database, Executor, Row
from roost.storage.schema_ads import ads_account_users, ads_accounts, ads_counters, ads_entities, ads_history
from roost.storage.statements import insert_all

Reader = Database | Executor

_insert_account = insert_all(ads_accounts)
_insert_entity = insert_all(ads_entities)
_insert_history = insert_all(ads_history)
_insert_access = insert_all(ads_account_users)
_insert_counter = insert_all(ads_counters)
_account = select(ads_accounts).where(ads_accounts.c.id == bindparam("id"))
_entity = select(ads_entities).where(ads_entities.c.id == bindparam("id"))
_access = select(ads_account_users.c.permissions).where(
    ads_account_users.c.account_id == bindparam("account_id"),
    ads_account_users.c.user_id == bindparam("user_id"),
)
_users_of_account = select(ads_account_users).where(ads_account_users.c.account_id == bindparam("account_id"))
_bump = (
    update(ads_counters)
    .where(ads_counters.c.name == bindparam("name"))
    .values(value=ads_counters.c.value + 1)
)
_counter = select(ads_counters.c.value).where(ads_counters.c.name == bindparam("name"))
_update_account = (
    update(ads_accounts)
    .where(ads_accounts.c.id == bindparam("id"))
    .values(
        name_lower=bindparam("name_lower"),
        deleted=bindparam("deleted"),
        updated_at=bindparam("updated_at"),
        body=bindparam("body"),
    )
)
_account_json = {
    column: update(ads_accounts)
    .where(ads_accounts.c.id == bindparam("id"))
    .values({column: bindparam("value")})
    for column in ("features", "tax_settings", "allowlist", "limits")
}
_update_entity = (
    update(ads_entities)
    .where(ads_entities.c.id == bindparam("id"))
    .values(
        parent_id=bindparam("parent_id"),
        funding_instrument_id=bindparam("funding_instrument_id"),
        name_lower=bindparam("name_lower"),
        entity_status=bindparam("entity_status"),
        deleted=bindparam("deleted"),
        updated_at=bindparam("updated_at"),
        body=bindparam("body"),
    )
)
_update_permissions = (
    update(ads_account_users)
    .where(
        ads_account_users.c.account_id == bindparam("account_id"),
        ads_account_users.c.user_id == bindparam("user_id"),
    )
    .values(permissions=bindparam("permissions"))
)

ENTITY_SORT_COLUMNS = {
    "created_at": ads_entities.c.created_at,
    "updated_at": ads_entities.c.updated_at,
    "deleted": ads_entities.c.deleted,
    "name": ads_entities.c.name_lower,
}
ACCOUNT_SORT_COLUMNS = {
    "created_at": ads_accounts.c.created_at,
    "updated_at": ads_accounts.c.updated_at,
    "deleted": ads_accounts.c.deleted,
    "name": ads_accounts.c.name_lower,
}


@dataclass(frozen=True)
class EntityQuery:
    """One list request over entities of one kind in one account."""

    kind: str
    account_id: str
    ids: Sequence[str] | None = None
    parent_ids: Sequence[str] | None = None
    funding_instrument_ids: Sequence[str] | None = None
    name_prefix: str | None = None
    with_deleted: bool = False
    with_draft: bool = True  # False hides DRAFT entities (campaign and line item lists)
    sort: tuple[str, bool] | None = None  # (attribute, descending)
    offset: int = 0
    limit: int | None = None  # rows wanted; one more is read to know whether a page follows
    with_total: bool = False


@dataclass(frozen=True)
class AccountQuery:
    user_id: int
    sandbox: bool
    ids: Sequence[str] | None = None
    name_prefix: str | None = None
    with_deleted: bool = False
    sort: tuple[str, bool] | None = None
    offset: int = 0
    limit: int | None = None
    with_total: bool = False


def _bucket(count: int) -> int:
    """IN-list sizes are rounded up to a power of two so few statement shapes exist."""
    size = 1
    while size < count:
        size *= 2
    return size


def _padded(prefix: str, values: Sequence[Any] | None) -> dict[str, Any]:
    if not values:
        return {}
    size = _bucket(len(values))
    padded = list(values) + [values[-1]] * (size - len(values))
    return {f"{prefix}{index}": value for index, value in enumerate(padded)}


def _in(column: Any, prefix: str, count: int) -> Any:
    return column.in_([bindparam(f"{prefix}{index}") for index in range(count)])


@lru_cache(maxsize=512)
def _entity_list(
    ids: int, parents: int, fis: int, prefix: bool, with_deleted: bool, with_draft: bool,
    sort: str | None, desc: bool, limited: bool, counting: bool,
) -> Select:  # fmt: skip
    table = ads_entities
    conditions = [table.c.account_id == bindparam("account_id"), table.c.kind == bindparam("kind")]
    if ids:
        conditions.append(_in(table.c.id, "i", ids))
    if parents:
        conditions.append(_in(table.c.parent_id, "p", parents))
    if fis:
        conditions.append(_in(table.c.funding_instrument_id, "f", fis))
    if prefix:
        conditions.append(table.c.name_lower.like(bindparam("prefix"), escape="\\"))
    if not with_deleted:
        conditions.append(table.c.deleted == 0)
    if not with_draft:
        conditions.append(func.coalesce(table.c.entity_status, "") != "DRAFT")
    if counting:
        return select(func.count()).select_from(table).where(*conditions)
    statement = select(table).where(*conditions)
    if sort is not None:
        column = ENTITY_SORT_COLUMNS[sort]
        statement = statement.order_by(column.desc() if desc else column.asc())
    statement = statement.order_by(table.c.created_at.asc(), table.c.id.asc())
    if limited:
        statement = statement.limit(bindparam("limit")).offset(bindparam("offset"))
    return statement


@lru_cache(maxsize=128)
def _account_list(
    ids: int, prefix: bool, with_deleted: bool, sort: str | None, desc: bool, limited: bool, counting: bool
) -> Select:
    table, access = ads_accounts, ads_account_users
    conditions = [
        access.c.user_id == bindparam("user_id"),
        table.c.sandbox == bindparam("sandbox"),
    ]
    if ids:
        conditions.append(_in(table.c.id, "i", ids))
    if prefix:
        conditions.append(table.c.name_lower.like(bindparam("prefix"), escape="\\"))
    if not with_deleted:
        conditions.append(table.c.deleted == 0)
    joined = table.join(access, access.c.account_id == table.c.id)
    if counting:
        return select(func.count()).select_from(joined).where(*conditions)
    statement = select(table).select_from(joined).where(*conditions)
    if sort is not None:
        column = ACCOUNT_SORT_COLUMNS[sort]
        statement = statement.order_by(column.desc() if desc else column.asc())
    statement = statement.order_by(table.c.created_at.asc(), table.c.id.asc())
    if limited:
        statement = statement.limit(bindparam("limit")).offset(bindparam("offset"))
    return statement


def _like_prefix(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


def _decoded(row: Row | None) -> Row | None:
    if row is None:
        return None
    row = dict(row)
    for name in ("body", "features", "tax_settings", "allowlist", "limits", "permissions"):
        if name in row and isinstance(row[name], str | bytes):
            row[name] = jsonio.loads(row[name])
    return row


def _text(value: Any) -> str:
    return jsonio.dumps(value).decode()


class AdsStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # ---- sequences --------------------------------------------------------------------------

    async def next_sequence(self, tx: Executor, name: str) -> int:
        if await tx.execute(_bump, {"name": name}) == 0:
            await tx.execute(_insert_counter, {"name": name, "value": 1})
            return 1
        return int(await tx.fetch_value(_counter, {"name": name}))

    # ---- accounts ---------------------------------------------------------------------------

    async def insert_account(self, tx: Executor, row: dict[str, Any]) -> None:
        stored = dict(row)
        for name in ("body", "features", "tax_settings", "allowlist", "limits"):
            if not isinstance(stored.get(name), str):
                stored[name] = _text(stored.get(name, {} if name in ("tax_settings", "limits") else []))
        await tx.execute(_insert_account, stored)

    async def account(self, account_id: str, reader: Reader | None = None) -> Row | None:
        return _decoded(await (reader or self.db).fetch_one(_account, {"id": account_id}))

    async def update_account(
        self, tx: Executor, account_id: str, body: dict[str, Any], updated_at: int
    ) -> None:
        await tx.execute(
            _update_account,
            {
                "id": account_id,
                "name_lower": (body.get("name") or "").lower(),
                "deleted": 1 if body.get("deleted") else 0,
                "updated_at": updated_at,
                "body": _text(body),
            },
        )

    async def set_account_json(self, tx: Executor, account_id: str, column: str, value: Any) -> None:
        """Replace one of the account's JSON columns: features, tax_settings, allowlist, limits."""
        await tx.execute(_account_json[column], {"id": account_id, "value": _text(value)})

    async def accounts(
        self, query: AccountQuery, reader: Reader | None = None
    ) -> tuple[list[Row], int | None]:
        reader = reader or self.db
        sort = query.sort[0] if query.sort else None
        params: dict[str, Any] = {
            "user_id": query.user_id,
            "sandbox": 1 if query.sandbox else 0,
            **_padded("i", query.ids),
        }
        if query.name_prefix:
            params["prefix"] = _like_prefix(query.name_prefix)
        shape = (_bucket(len(query.ids)) if query.ids else 0, bool(query.name_prefix), query.with_deleted)
        desc = bool(query.sort and query.sort[1])
        limited = query.limit is not None
        if query.limit is not None:
            params.update(limit=query.limit + 1, offset=query.offset)
        rows = await reader.fetch_all(_account_list(*shape, sort, desc, limited, False), params)
        total = None
        if query.with_total:
            count_params = {k: v for k, v in params.items() if k not in ("limit", "offset")}
            total = int(
                await reader.fetch_value(_account_list(*shape, None, False, False, True), count_params)
            )
        return [r for r in map(_decoded, rows) if r is not None], total

    async def grant(self, tx: Executor, account_id: str, user_id: int, permissions: Sequence[str]) -> None:
        params = {"account_id": account_id, "user_id": user_id, "permissions": _text(list(permissions))}
        if await tx.execute(_update_permissions, params) == 0:
            await tx.execute(_insert_access, params)

    async def permissions(
        self, account_id: str, user_id: int, reader: Reader | None = None
    ) -> list[str] | None:
        raw = await (reader or self.db).fetch_value(_access, {"account_id": account_id, "user_id": user_id})
        return None if raw is None else list(jsonio.loads(raw))

    async def users_of_account(self, account_id: str) -> list[Row]:
        rows = await self.db.fetch_all(_users_of_account, {"account_id": account_id})
        return [r for r in map(_decoded, rows) if r is not None]

    # ---- entities ---------------------------------------------------------------------------

    async def insert_entity(self, tx: Executor, row: dict[str, Any]) -> None:
        await tx.execute(_insert_entity, _entity_params(row))

    async def update_entity(self, tx: Executor, row: dict[str, Any]) -> None:
        params = _entity_params(row)
        for name in ("kind", "account_id", "created_at"):
            params.pop(name, None)
        await tx.execute(_update_entity, params)

    async def entity(self, entity_id: str, reader: Reader | None = None) -> Row | None:
        return _decoded(await (reader or self.db).fetch_one(_entity, {"id": entity_id}))

    async def entities(
        self, query: EntityQuery, reader: Reader | None = None
    ) -> tuple[list[Row], int | None]:
        """Matching rows in order (with one extra row past `limit` when more follow) and, when asked,
        the total. Sorting by an attribute without a column happens here, over all matching rows."""
        reader = reader or self.db
        params: dict[str, Any] = {
            "account_id": query.account_id,
            "kind": query.kind,
            **_padded("i", query.ids),
            **_padded("p", query.parent_ids),
            **_padded("f", query.funding_instrument_ids),
        }
        if query.name_prefix:
            params["prefix"] = _like_prefix(query.name_prefix)
        shape = (
            _bucket(len(query.ids)) if query.ids else 0,
            _bucket(len(query.parent_ids)) if query.parent_ids else 0,
            _bucket(len(query.funding_instrument_ids)) if query.funding_instrument_ids else 0,
            bool(query.name_prefix),
            query.with_deleted,
            query.with_draft,
        )
        sort, desc = (query.sort[0], query.sort[1]) if query.sort else (None, False)
        in_sql = sort is None or sort in ENTITY_SORT_COLUMNS
        limited = query.limit is not None and in_sql
        if limited:
            assert query.limit is not None
            params.update(limit=query.limit + 1, offset=query.offset)
        statement = _entity_list(*shape, sort if in_sql else None, desc, limited, False)
        rows = [r for r in map(_decoded, await reader.fetch_all(statement, params)) if r is not None]
        if not in_sql:
            rows.sort(key=lambda r: _sort_key(r["body"].get(sort)), reverse=desc)
            if query.limit is not None:
                rows = rows[query.offset : query.offset + query.limit + 1]
        total = None
        if query.with_total:
            count_params = {k: v for k, v in params.items() if k not in ("limit", "offset")}
            total = int(
                await reader.fetch_value(_entity_list(*shape, None, False, False, True), count_params)
            )
        return rows, total

    async def count(
        self, query: EntityQuery, statuses: Sequence[str] | None = None, reader: Reader | None = None
    ) -> int:
        """How many entities match (ignoring paging); `statuses` keeps only those entity statuses."""
        rows, _ = await self.entities(
            EntityQuery(
                query.kind,
                query.account_id,
                ids=query.ids,
                parent_ids=query.parent_ids,
                with_deleted=query.with_deleted,
                with_draft=query.with_draft,
            ),
            reader,
        )
        if statuses is None:
            return len(rows)
        return sum(1 for row in rows if row["entity_status"] in statuses)

    # ---- history ----------------------------------------------------------------------------

    async def append_history(self, tx: Executor, row: dict[str, Any]) -> None:
        stored = dict(row)
        stored["body"] = _text(stored["body"])
        await tx.execute(_insert_history, stored)

    async def history(
        self,
        account_id: str,
        entity_type: str,
        entity_id: str,
        window: tuple[int, int],
        user_id: int | None,
    ) -> list[Row]:
        params: dict[str, Any] = {
            "account_id": account_id,
            "entity_type": entity_type,
            "entity_id": entity_id,
            "start": window[0],
            "end": window[1],
        }
        if user_id is not None:
            params["user_id"] = user_id
        rows = await self.db.fetch_all(_history_statement(user_id is not None), params)
        return [r for r in map(_decoded, rows) if r is not None]


@lru_cache(maxsize=4)
def _history_statement(by_user: bool) -> Select:
    table = ads_history
    conditions = [
        table.c.account_id == bindparam("account_id"),
        table.c.entity_type == bindparam("entity_type"),
        table.c.entity_id == bindparam("entity_id"),
        table.c.change_time >= bindparam("start"),
        table.c.change_time < bindparam("end"),
    ]
    if by_user:
        conditions.append(table.c.user_id == bindparam("user_id"))
    return select(table).where(*conditions).order_by(table.c.change_time, table.c.id)


def _sort_key(value: Any) -> tuple[int, Any]:
    """Nulls first, then numbers or text (attribute sorts over JSON values)."""
    if value is None:
        return (0, 0)
    if isinstance(value, bool | int | float):
        return (1, float(value))
    return (2, str(value))


def _entity_params(row: dict[str, Any]) -> dict[str, Any]:
    body = row["body"]
    return {
        "id": body["id"],
        "kind": row.get("kind"),
        "account_id": row.get("account_id"),
        "parent_id": row.get("parent_id"),
        "funding_instrument_id": row.get("funding_instrument_id"),
        "name_lower": (body.get("name") or "").lower() or None,
        "entity_status": body.get("entity_status"),
        "deleted": 1 if body.get("deleted") else 0,
        "created_at": row.get("created_at"),
        "updated_at": row["updated_at"],
        "body": _text(body),
    }
