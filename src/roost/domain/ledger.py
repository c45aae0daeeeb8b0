"""What each app's traffic costs (issue 20): every journalled request counted by (app, UTC day,
operation, price variant), priced when counted, and written to the usage ledger once a second; each
app's credit, and the apps that have spent it.

The counting is a journal listener and stays in memory between flushes: a request's path gains a few
dictionary updates, not a write. A kill loses at most the last second's counts (docs/decisions.md,
"The usage ledger"). Several processes add their counts to the same rows; each learns the others'
spending from the credit left, read back at every flush.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable
from typing import Any

from roost.core import jsonio
from roost.core.journal import Entry
from roost.core.records import Row
from roost.domain.periodic import PeriodicWorker
from roost.domain.price_list import OWNED, OWNED_READS, SOURCES, URL, Price, default_prices
from roost.domain.text import find_urls
from roost.storage.ledger import LedgerStore

DAY_MS = 86_400_000
MICROS = 1_000_000
SET_AT_RUN_TIME = "priced at run time (POST /_roost/prices)"
_OWNED_READS = frozenset(OWNED_READS)
_VARIED = _OWNED_READS | {"createTweet"}  # the operations whose price depends on the request

# (app, day, operation, variant) → [requests, billed, resources, cost in micros]
Counts = dict[tuple[int, str, str, str], list[int]]


class UnknownApp(Exception):
    """No app has the consumer key given."""


class Ledger(PeriodicWorker):
    interval_s = 1.0
    failure = "the usage ledger could not be written (its counts are kept and tried again)"
    log = logging.getLogger("roost.ledger")

    def __init__(self, store: LedgerStore, known: Iterable[str] = ()) -> None:
        self._store = store
        self._defaults = default_prices()
        self.known = frozenset(known) | frozenset(self._defaults)
        self._custom: dict[str, float] = {}
        self._units: dict[str, tuple[int, bool]] = {}  # the counting's view of the prices
        self._pending: Counts = {}
        self._unwritten: dict[int, int] = {}  # each app's cost counted here and not yet written
        self._credit: dict[int, int] = {}  # the credit left of the apps that have a limit, when last read
        # The apps whose credit is spent: the v2 pipeline tests membership on every request, so this set
        # is changed in place, never replaced.
        self.out_of_credit: set[int] = set()
        self._day_number = -1
        self._day = ""

    def with_operations(self, known: Iterable[str]) -> None:
        """More operation names that may be priced (the ads ids, the v1.1 paths)."""
        self.known = self.known | frozenset(known)

    # ---- counting: a journal listener ------------------------------------------------------------

    def __call__(self, entry: Entry) -> None:
        app, operation = entry[9], entry[7]
        if app is None or not operation:
            return  # no credentials, or not an API operation (the OAuth pages)
        day_number = entry[1] // DAY_MS
        if day_number != self._day_number:  # the day's text, made once a day
            self._day_number = day_number
            self._day = time.strftime("%Y-%m-%d", time.gmtime(day_number * 86_400))
        billed = entry[5] < 400  # the platform charges for what it returns, not for refusals
        variant = _variant(operation, entry) if billed and operation in _VARIED else ""
        key = (app, self._day, operation, variant)
        counts = self._pending.get(key)
        if counts is None:
            counts = self._pending[key] = [0, 0, 0, 0]
        counts[0] += 1
        if not billed:
            return
        resources = entry[15]
        counts[1] += 1
        counts[2] += resources
        priced_as = f"{operation}:{variant}" if variant else operation
        unit = self._units.get(priced_as)
        if unit is None:
            unit = self._units[priced_as] = self._unit(priced_as)
        cost = unit[0] * resources if unit[1] else unit[0]
        if cost:
            counts[3] += cost
            spent = self._unwritten[app] = self._unwritten.get(app, 0) + cost
            left = self._credit.get(app)
            if left is not None and left - spent <= 0:
                self.out_of_credit.add(app)

    def _unit(self, priced_as: str) -> tuple[int, bool]:
        """A price in micros, and whether it is per resource (kept until a price changes)."""
        default = self._defaults.get(priced_as)
        return round(self.price(priced_as) * MICROS), default is not None and default.per == "resource"

    # ---- writing and reading back ----------------------------------------------------------------

    async def step(self) -> None:
        await self.flush()

    async def stop(self) -> None:
        await super().stop()
        try:
            await self.flush()  # what was counted since the last step, before a reset or shutdown
        except Exception:
            self.log.exception(self.failure)

    async def flush(self) -> None:
        """Write what was counted since the last flush, then read every app's credit left."""
        pending, self._pending = self._pending, {}
        unwritten, self._unwritten = self._unwritten, {}
        if pending:
            rows = [
                {
                    "app_id": app,
                    "day": day,
                    "operation": operation,
                    "variant": variant,
                    "requests": counts[0],
                    "billed": counts[1],
                    "resources": counts[2],
                    "cost_micros": counts[3],
                }
                for (app, day, operation, variant), counts in pending.items()
            ]
            try:
                await self._store.add(rows, unwritten)
            except BaseException:
                self._keep(pending, unwritten)  # counted again into the next flush
                raise
        self._credit = await self._store.balances()
        self._mark_spent()
        self._use_prices(await self._store.prices())  # changed through another process, perhaps

    def _keep(self, pending: Counts, unwritten: dict[int, int]) -> None:
        for key, counts in pending.items():
            kept = self._pending.setdefault(key, [0, 0, 0, 0])
            for i, value in enumerate(counts):
                kept[i] += value
        for app, cost in unwritten.items():
            self._unwritten[app] = self._unwritten.get(app, 0) + cost

    def _mark_spent(self) -> None:
        spent = {app for app, left in self._credit.items() if left - self._unwritten.get(app, 0) <= 0}
        self.out_of_credit.intersection_update(spent)
        self.out_of_credit.update(spent)

    # ---- credit ----------------------------------------------------------------------------------

    async def set_credit(self, consumer_key: str, usd: float | None) -> dict[str, Any]:
        """Give the app `usd` of credit left (None: no limit); its row of the report."""
        await self.flush()  # what it spent so far comes off the old credit, not the new
        app = next((row for row in await self._store.apps() if row["consumer_key"] == consumer_key), None)
        if app is None:
            raise UnknownApp(consumer_key)
        await self._store.set_credit(app["id"], None if usd is None else round(usd * MICROS))
        await self.flush()
        report = await self.report(app["id"])
        return dict(report["apps"][0])

    # ---- prices ----------------------------------------------------------------------------------

    def price(self, key: str) -> float:
        """The price of an operation, or of "operation:variant", in dollars."""
        custom = self._custom.get(key)
        if custom is not None:
            return custom
        default = self._defaults.get(key)
        return default.usd if default is not None else 0.0

    async def set_prices(self, changes: dict[str, float | None]) -> None:
        """Apply checked changes: a price, or None for the default again; stored, so every process
        takes them within a second and a restart keeps them. Requests counted before keep the price
        they were counted at."""
        await self._store.put_prices(changes)
        self._use_prices(await self._store.prices())

    def _use_prices(self, custom: dict[str, float]) -> None:
        if custom != self._custom:
            self._custom = custom
            self._units.clear()

    def prices(self) -> list[dict[str, Any]]:
        listed = [*self._defaults, *sorted(key for key in self._custom if key not in self._defaults)]
        return [self._price_row(key, self._defaults.get(key)) for key in listed]

    def _price_row(self, key: str, default: Price | None) -> dict[str, Any]:
        operation, _, variant = key.partition(":")
        return {
            "operation": operation,
            "variant": variant or None,
            "usd": self.price(key),
            "per": default.per if default is not None else "request",
            "category": default.category if default is not None else None,
            "default_usd": default.usd if default is not None else 0.0,
            "custom": key in self._custom,
            "source": default.source if default is not None else None,
            "note": default.note if default is not None else SET_AT_RUN_TIME,
        }

    # ---- the report ------------------------------------------------------------------------------

    async def report(self, app_id: int | None = None) -> dict[str, Any]:
        """Every app's cost and credit, and the days' counts by operation (with this process's latest)."""
        await self.flush()
        apps = [row for row in await self._store.apps() if app_id is None or row["id"] == app_id]
        known = {row["id"]: row for row in apps}
        totals: dict[int, list[int]] = {row["id"]: [0, 0, 0] for row in apps}  # requests, billed, cost
        days: dict[tuple[str, int], dict[str, Any]] = {}
        for row in await self._store.rows(app_id):
            app = row["app_id"]
            day = days.get((row["day"], app))
            if day is None:
                day = days[(row["day"], app)] = _day_row(row["day"], app, known.get(app))
            _add_counts(day, row)
            operation = day["by_operation"].setdefault(row["operation"], _zero())
            _add_counts(operation, row)
            if row["variant"]:
                _add_counts(operation.setdefault("variants", {}).setdefault(row["variant"], _zero()), row)
            total = totals.setdefault(app, [0, 0, 0])
            total[0] += row["requests"]
            total[1] += row["billed"]
            total[2] += row["cost_micros"]
        for day in days.values():
            _in_dollars(day)
            for operation in day["by_operation"].values():
                _in_dollars(operation)
                for variant in operation.get("variants", {}).values():
                    _in_dollars(variant)
        return {
            "currency": "USD",
            "apps": [_app_row(row, totals[row["id"]]) for row in apps],
            "days": list(days.values()),
            "total_usd": _usd(sum(total[2] for total in totals.values())),
            "prices": self.prices(),
            "sources": SOURCES,
        }


def _variant(operation: str, entry: Entry) -> str:
    """The price variant a billed request falls under ("" for the operation's own price)."""
    if operation == "createTweet":
        return URL if _text_has_url(entry[12]) else ""
    if operation in _OWNED_READS and entry[10] is not None:
        parts = entry[3].split("/", 4)  # "", "2", "users", "{id}", …
        return OWNED if len(parts) > 3 and parts[3] == str(entry[10]) else ""
    return ""


def _text_has_url(body: bytes) -> bool:
    if b"." not in body:  # every URL the platform links has a dot in its host
        return False
    try:
        parsed = jsonio.loads(body)
    except jsonio.JSONDecodeError:
        return False  # the journal keeps a body's first 4 KiB: a longer post's may be cut
    text = parsed.get("text") if isinstance(parsed, dict) else None
    return isinstance(text, str) and bool(find_urls(text))


def _zero() -> dict[str, Any]:
    return {"requests": 0, "billed": 0, "resources": 0, "cost_usd": 0}


def _add_counts(into: dict[str, Any], row: Row) -> None:
    into["requests"] += row["requests"]
    into["billed"] += row["billed"]
    into["resources"] += row["resources"]
    into["cost_usd"] += row["cost_micros"]  # micros until `_in_dollars`


def _in_dollars(counts: dict[str, Any]) -> None:
    counts["cost_usd"] = _usd(counts["cost_usd"])


def _usd(micros: int) -> float:
    return micros / MICROS


def _day_row(day: str, app: int, row: Row | None) -> dict[str, Any]:
    return {
        "day": day,
        "app_id": str(app),
        "consumer_key": row["consumer_key"] if row is not None else None,
        **_zero(),
        "by_operation": {},
    }


def _app_row(row: Row, total: list[int]) -> dict[str, Any]:
    credit = row["credit_micros"]
    return {
        "app_id": str(row["id"]),
        "name": row["name"],
        "consumer_key": row["consumer_key"],
        "package": row["package"],
        "requests": total[0],
        "billed": total[1],
        "cost_usd": _usd(total[2]),
        "credit_usd": None if credit is None else _usd(credit),  # None: no credit limit
        "out_of_credit": credit is not None and credit <= 0,
    }


def checked_usd(value: Any) -> float | None:
    """A dollar amount from a request body: a finite number, 0 or more, or None."""
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
        raise ValueError(value)
    return float(value)
