"""Delivery storage: the dispatcher's persisted cursor into the event log and one row per
(webhook, event) recording the signed body, the attempts and their outcome."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, insert, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import aaa_subscriptions, deliveries, settings, webhooks

CURSOR_KEY = "delivery_cursor"

_cursor = select(settings.c.value).where(settings.c.key == CURSOR_KEY)
_insert_cursor = insert(settings).values(key=CURSOR_KEY, value=bindparam("value"))
_update_cursor = update(settings).where(settings.c.key == CURSOR_KEY).values(value=bindparam("value"))
_delivery_columns = [column for column in deliveries.columns if column.name != "id"]
_insert_delivery = insert(deliveries).values({c.name: bindparam(c.name) for c in _delivery_columns})
_targets = (
    select(webhooks.c.id, webhooks.c.app_id)
    .select_from(aaa_subscriptions.join(webhooks, webhooks.c.id == aaa_subscriptions.c.webhook_id))
    .where(aaa_subscriptions.c.user_id == bindparam("user_id"), webhooks.c.valid == 1)
    .order_by(webhooks.c.id)
)
_due = (
    select(deliveries)
    .where(deliveries.c.state == "pending", deliveries.c.next_attempt_at <= bindparam("now"))
    .order_by(deliveries.c.next_attempt_at, deliveries.c.id)
    .limit(bindparam("limit"))
)
_of_webhook = (
    select(deliveries)
    .where(deliveries.c.webhook_id == bindparam("webhook_id"))
    .order_by(deliveries.c.id)
    .limit(bindparam("limit"))
)
_claim = update(deliveries).where(deliveries.c.id == bindparam("id")).values(state="sending")
_release = update(deliveries).where(deliveries.c.state == "sending").values(state="pending")
_all = select(deliveries).order_by(deliveries.c.id).limit(bindparam("limit"))
_record = (
    update(deliveries)
    .where(deliveries.c.id == bindparam("id"))
    .values(
        state=bindparam("state"),
        attempts=bindparam("attempts"),
        next_attempt_at=bindparam("next_attempt_at"),
        last_status=bindparam("last_status"),
        last_latency_ms=bindparam("last_latency_ms"),
        delivered_at=bindparam("delivered_at"),
    )
)


class DeliveryStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def cursor(self) -> int:
        value = await self._db.fetch_value(_cursor)
        return int(value) if value is not None else 0

    async def targets(self, user_id: int) -> list[Row]:
        """Valid webhooks with an account-activity subscription for `user_id`."""
        return await self._db.fetch_all(_targets, {"user_id": user_id})

    async def enqueue(self, rows: Sequence[dict[str, Any]], cursor: int) -> None:
        """Record new deliveries and move the cursor past their events, atomically."""
        async with self._db.transaction() as tx:
            await _set_cursor(tx, cursor)
            if rows:
                await tx.execute_many(_insert_delivery, rows)

    async def due(self, now_ms: int, limit: int = 50) -> list[Row]:
        return await self._db.fetch_all(_due, {"now": now_ms, "limit": limit})

    async def listing(self, webhook_id: int | None, limit: int = 500) -> list[Row]:
        if webhook_id is None:
            return await self._db.fetch_all(_all, {"limit": limit})
        return await self._db.fetch_all(_of_webhook, {"webhook_id": webhook_id, "limit": limit})

    async def settle(self, outcomes: Sequence[dict[str, Any]], claims: Sequence[int]) -> None:
        """One transaction per dispatcher round: store the outcomes of finished attempts (each with
        `id`) and mark the deliveries about to be sent as `sending`, so no round picks them again."""
        if not outcomes and not claims:
            return
        async with self._db.transaction() as tx:
            if outcomes:
                await tx.execute_many(_record, outcomes)
            if claims:
                await tx.execute_many(_claim, [{"id": delivery_id} for delivery_id in claims])

    async def release_claims(self) -> None:
        """At start: attempts interrupted by a stop or a crash are due again (sent twice, never lost)."""
        async with self._db.transaction() as tx:
            await tx.execute(_release)

    async def record(self, delivery_id: int, **outcome: Any) -> None:
        async with self._db.transaction() as tx:
            await tx.execute(_record, {"id": delivery_id, **outcome})


async def _set_cursor(tx: Executor, position: int) -> None:
    if await tx.fetch_value(_cursor) is None:
        await tx.execute(_insert_cursor, {"value": str(position)})
    else:
        await tx.execute(_update_cursor, {"value": str(position)})
