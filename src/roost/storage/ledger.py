"""The usage ledger (issue 20): each process adds what it counted since its last flush, and the apps'
credit goes down by what that cost, in one transaction."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, select, text, update

from roost.core.records import Row
from roost.storage.db import Database
from roost.storage.schema import apps
from roost.storage.schema_billing import usage_ledger

# Both SQLite and PostgreSQL take this upsert: rows of several processes add up instead of colliding.
_add = text(
    """
    INSERT INTO usage_ledger (app_id, day, operation, variant, requests, billed, resources, cost_micros)
    VALUES (:app_id, :day, :operation, :variant, :requests, :billed, :resources, :cost_micros)
    ON CONFLICT (app_id, day, operation, variant) DO UPDATE SET
        requests = usage_ledger.requests + excluded.requests,
        billed = usage_ledger.billed + excluded.billed,
        resources = usage_ledger.resources + excluded.resources,
        cost_micros = usage_ledger.cost_micros + excluded.cost_micros
    """
)
_spend = (
    update(apps)
    .where(apps.c.id == bindparam("app_id"), apps.c.credit_micros.is_not(None))
    .values(credit_micros=apps.c.credit_micros - bindparam("cost"))
)
_set_credit = update(apps).where(apps.c.id == bindparam("app_id")).values(credit_micros=bindparam("credit"))
_balances = select(apps.c.id, apps.c.credit_micros).where(apps.c.credit_micros.is_not(None))
_order = (usage_ledger.c.day, usage_ledger.c.app_id, usage_ledger.c.operation, usage_ledger.c.variant)
_all_rows = select(usage_ledger).order_by(*_order)
_app_rows = select(usage_ledger).where(usage_ledger.c.app_id == bindparam("app_id")).order_by(*_order)
_apps = select(apps.c.id, apps.c.name, apps.c.consumer_key, apps.c.package, apps.c.credit_micros).order_by(
    apps.c.id
)


class LedgerStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, rows: Sequence[Row], spent: dict[int, int]) -> None:
        """Add counted rows (the table's columns) and take each app's spending off its credit."""
        async with self._db.transaction() as tx:
            await tx.execute_many(_add, rows)
            for app_id, cost in spent.items():
                if cost:
                    await tx.execute(_spend, {"app_id": app_id, "cost": cost})

    async def balances(self) -> dict[int, int]:
        """The credit left of every app that has a credit limit."""
        return {row["id"]: row["credit_micros"] for row in await self._db.fetch_all(_balances)}

    async def set_credit(self, app_id: int, credit_micros: int | None) -> None:
        async with self._db.transaction() as tx:
            await tx.execute(_set_credit, {"app_id": app_id, "credit": credit_micros})

    async def rows(self, app_id: int | None = None) -> list[Row]:
        if app_id is None:
            return await self._db.fetch_all(_all_rows)
        return await self._db.fetch_all(_app_rows, {"app_id": app_id})

    async def apps(self) -> list[Row]:
        """Every app's id, name, consumer key, package and credit left."""
        return await self._db.fetch_all(_apps)
