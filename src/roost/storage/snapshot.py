"""Whole-state snapshots at the table level: which tables a snapshot covers, their rows read in primary-key
order a batch at a time, and the restore's wipe, inserts and sequence repair (`domain/snapshots.py`
owns the document and the rules).

Every table of the schema is covered except `OPERATIONAL`: rows that belong to the running processes
rather than to the sandbox's state.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import BigInteger, Integer, LargeBinary, Table, bindparam, delete, select, text, tuple_
from sqlalchemy.sql import ClauseElement

from roost.storage.db import Executor
from roost.storage.schema import metadata
from roost.storage.search import clear_index, index_posts
from roost.storage.statements import insert_all

# Not part of a sandbox's state: the processes' leases (singleton jobs and id slots), OAuth 1.0a
# nonces seen inside the timestamp window, and the rate-limit windows (a reset forgets them too).
OPERATIONAL = frozenset({"work_leases", "oauth_nonces", "rate_windows"})

READ_BATCH = 2_000

Kind = Literal["int32", "int64", "text", "bytes"]


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    name: str
    kind: Kind
    nullable: bool


@dataclass(frozen=True, slots=True)
class TableSpec:
    """One covered table: its columns in schema order and the statements a snapshot runs on it."""

    name: str
    columns: tuple[ColumnSpec, ...]
    first_page: ClauseElement
    next_page: ClauseElement
    key: tuple[str, ...]  # the primary key's columns: the order rows are read and written in
    insert: ClauseElement
    wipe: ClauseElement
    serial: str | None  # a column a sequence fills (PostgreSQL's must pass the restored rows)


class RowsRefused(Exception):
    """The database refused a restored row (a duplicate key, a value out of its column's range)."""


def _kind(column: Any) -> Kind:
    if isinstance(column.type, LargeBinary):
        return "bytes"
    if isinstance(column.type, BigInteger):  # before Integer: BigInteger is one
        return "int64"
    if isinstance(column.type, Integer):
        return "int32"
    return "text"


def _spec(table: Table) -> TableSpec:
    key = tuple(table.primary_key.columns)
    if not key:
        raise RuntimeError(f"table {table.name} has no primary key: a snapshot cannot page through it")
    ordered = select(table).order_by(*key).limit(READ_BATCH)
    after = tuple_(*key) > tuple_(*(bindparam(f"after_{i}") for i in range(len(key))))
    serial = table.autoincrement_column
    return TableSpec(
        name=table.name,
        columns=tuple(ColumnSpec(c.name, _kind(c), bool(c.nullable)) for c in table.columns),
        first_page=ordered,
        next_page=ordered.where(after),
        key=tuple(c.name for c in key),
        insert=insert_all(table),
        wipe=delete(table),
        serial=serial.name if serial is not None else None,
    )


# In dependency order (no table has a foreign key today; the order keeps a future one satisfied).
COVERED: tuple[TableSpec, ...] = tuple(_spec(t) for t in metadata.sorted_tables if t.name not in OPERATIONAL)
BY_NAME = {spec.name: spec for spec in COVERED}

# A consistent view for the whole read on PostgreSQL (its default re-reads at each statement); SQLite's
# transaction is one already. Must be the transaction's first statement.
_REPEATABLE_READ = text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")


async def hold_still(tx: Executor, dialect: str) -> None:
    """Make every later read of `tx` see the database as of now."""
    if dialect == "postgresql":
        await tx.execute(_REPEATABLE_READ)


async def pages(tx: Executor, spec: TableSpec) -> AsyncIterator[list[dict[str, Any]]]:
    """The table's rows in primary-key order, `READ_BATCH` at a time (keyset paging: each page is one
    index range, so a large table costs the same per row from its first page to its last)."""
    rows = await tx.fetch_all(spec.first_page)
    while rows:
        yield rows
        if len(rows) < READ_BATCH:
            return
        last = rows[-1]
        rows = await tx.fetch_all(spec.next_page, {f"after_{i}": last[k] for i, k in enumerate(spec.key)})


async def wipe(tx: Executor) -> None:
    for spec in reversed(COVERED):
        await tx.execute(spec.wipe)
    await clear_index(tx)


async def insert(tx: Executor, spec: TableSpec, rows: Sequence[dict[str, Any]]) -> None:
    try:
        await tx.execute_many(spec.insert, rows)
        if spec.name == "posts":
            await index_posts(tx, [row["id"] for row in rows])
    except (sqlite3.DatabaseError, ValueError, OverflowError) as exc:
        raise RowsRefused(f"{spec.name}: {exc}") from None
    except Exception as exc:  # asyncpg's errors, imported only with PostgreSQL
        if type(exc).__module__.startswith("asyncpg"):
            raise RowsRefused(f"{spec.name}: {exc}") from None
        raise


_sequence_repairs: dict[str, ClauseElement] = {}


async def repair_sequences(tx: Executor, dialect: str) -> None:
    """PostgreSQL: each sequence-filled column's sequence past the restored rows (SQLite's rowid takes
    the largest stored one plus one by itself)."""
    if dialect != "postgresql":
        return
    for spec in COVERED:
        if spec.serial is None:
            continue
        statement = _sequence_repairs.get(spec.name)
        if statement is None:
            # Names from the schema, never from a document.
            statement = _sequence_repairs[spec.name] = text(
                f"SELECT setval(pg_get_serial_sequence('{spec.name}', '{spec.serial}'), "
                f"COALESCE(MAX({spec.serial}), 1), MAX({spec.serial}) IS NOT NULL) FROM {spec.name}"
            )
        await tx.fetch_value(statement)
