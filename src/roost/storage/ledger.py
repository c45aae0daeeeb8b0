"""The usage ledger (issue 20): each process adds what it counted since its last flush, and the apps'
credit goes down by what that cost, in one transaction."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, delete, select, text, update

from roost.core.records import Row
from roost.storage.apps import put_setting
from roost.storage.db import Database
from roost.storage.schema import apps, settings
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


# Prices changed at run time: rows of `roost_settings` keyed "price:<operation>[:variant]", US dollars.
PRICE_PREFIX = "price:"
_prices = select(settings.c.key, settings.c.value).where(
    settings.c.key >= PRICE_PREFIX, settings.c.key < PRICE_PREFIX[:-1] + ";"
)
_drop_price = delete(settings).where(settings.c.key == bindparam("key"))


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

    async def prices(self) -> dict[str, float]:
        """The prices changed at run time, by operation (or "operation:variant")."""
        return {
            row["key"][len(PRICE_PREFIX) :]: float(row["value"]) for row in await self._db.fetch_all(_prices)
        }

    async def put_prices(self, changes: dict[str, float | None]) -> None:
        """Store changed prices (None: back to the default) in one transaction, for every process."""
        async with self._db.transaction() as tx:
            for key, usd in changes.items():
                if usd is None:
                    await tx.execute(_drop_price, {"key": PRICE_PREFIX + key})
                else:
                    await put_setting(tx, PRICE_PREFIX + key, repr(usd))
