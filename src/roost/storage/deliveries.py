"""Delivery storage: the dispatcher's persisted cursor into the event log and one row per
(webhook, event) recording the signed body, the attempts and their outcome.

Several processes share the rows (issue 16): each claims due rows in one statement (`FOR UPDATE SKIP
LOCKED` on PostgreSQL; SQLite serialises writers), marking them `sending` by itself until a claim
expiry, so no row is sent by two processes at once and a killed process's rows are due again once
their claims expire. The cursor moves only from the value its mover read (a fence)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Update, bindparam, func, insert, null, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import aaa_subscriptions, deliveries, events, settings, webhooks
from roost.storage.statements import binds, in_params, sized

CURSOR_KEY = "delivery_cursor"

_cursor = select(settings.c.value).where(settings.c.key == CURSOR_KEY)
_insert_cursor = insert(settings).values(key=CURSOR_KEY, value=bindparam("value"))
_move_cursor = (
    update(settings)
    .where(settings.c.key == CURSOR_KEY, settings.c.value == bindparam("old"))
    .values(value=bindparam("value"))
)
_CLAIM_COLUMNS = ("id", "claimed_by", "claim_expires_at")
_delivery_columns = [column for column in deliveries.columns if column.name not in _CLAIM_COLUMNS]
_insert_delivery = insert(deliveries).values({c.name: bindparam(c.name) for c in _delivery_columns})
_targets = (
    select(webhooks.c.id, webhooks.c.app_id)
    .select_from(aaa_subscriptions.join(webhooks, webhooks.c.id == aaa_subscriptions.c.webhook_id))
    .where(aaa_subscriptions.c.user_id == bindparam("user_id"), webhooks.c.valid == 1)
    .order_by(webhooks.c.id)
)
_due = (
    select(deliveries.c.id, deliveries.c.webhook_id)
    .where(deliveries.c.state == "pending", deliveries.c.next_attempt_at <= bindparam("now"))
    .order_by(deliveries.c.next_attempt_at, deliveries.c.id)
    .limit(bindparam("limit"))
    .with_for_update(skip_locked=True)  # rendered on PostgreSQL only; SQLite has one writer
)
_any_due = (
    select(deliveries.c.id)
    .where(deliveries.c.state == "pending", deliveries.c.next_attempt_at <= bindparam("now"))
    .limit(1)
)


@sized
def _claim_ids(count: int) -> Update:
    """Claim these (locked, due) rows for a holder until an expiry; returns them whole."""
    return (
        update(deliveries)
        .where(deliveries.c.id.in_(binds(count)))
        .values(state="sending", claimed_by=bindparam("holder"), claim_expires_at=bindparam("until"))
        .returning(*deliveries.columns)
    )


_of_webhook = (
    select(deliveries)
    .where(deliveries.c.webhook_id == bindparam("webhook_id"))
    .order_by(deliveries.c.id)
    .limit(bindparam("limit"))
)
_release_own = (
    update(deliveries)
    .where(deliveries.c.state == "sending", deliveries.c.claimed_by == bindparam("holder"))
    .values(state="pending", claimed_by=null(), claim_expires_at=null())
)
_release_expired = (
    update(deliveries)
    .where(
        deliveries.c.state == "sending",
        or_(deliveries.c.claim_expires_at.is_(None), deliveries.c.claim_expires_at < bindparam("now")),
    )
    .values(state="pending", claimed_by=null(), claim_expires_at=null())
)
_all = select(deliveries).order_by(deliveries.c.id).limit(bindparam("limit"))
_by_state = select(deliveries.c.state, func.count().label("rows")).group_by(deliveries.c.state)
_newest_position = select(func.coalesce(func.max(events.c.position), 0))
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
        claimed_by=null(),
        claim_expires_at=null(),
    )
)


@dataclass(frozen=True, slots=True)
class Claim:
    holder: str  # the claiming process
    now_ms: int  # roost clock: deliveries due by then
    until: int  # wall-clock epoch ms: the claim's expiry
    limit: int  # due rows looked at (the oldest first)
    pick: Callable[[list[Row]], list[Row]]  # of those (`id`, `webhook_id`), the ones to claim and send now


class DeliveryStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def cursor(self) -> int:
        value = await self._db.fetch_value(_cursor)
        return int(value) if value is not None else 0

    async def counts_by_state(self) -> dict[str, int]:
        """How many delivery rows are in each state (pending, sending, delivered, failed)."""
        rows = await self._db.fetch_all(_by_state)
        return {str(row["state"]): int(row["rows"]) for row in rows}

    async def lag(self) -> int:
        """Events in the log after the cursor: appended, not yet turned into deliveries."""
        newest = int(await self._db.fetch_value(_newest_position) or 0)
        return max(0, newest - await self.cursor())

    async def targets(self, user_id: int) -> list[Row]:
        """Valid webhooks with an account-activity subscription for `user_id`."""
        return await self._db.fetch_all(_targets, {"user_id": user_id})

    async def enqueue(
        self, rows: Sequence[dict[str, Any]], since: int, cursor: int, claim: Claim | None = None
    ) -> list[Row] | None:
        """Record new deliveries and move the cursor from `since` past their events, atomically, and
        claim (as `settle` does) the due ones `claim` picks, so the collecting process sends its fresh
        deliveries without another transaction. None (nothing written) when another process moved the
        cursor from `since` meanwhile."""
        async with self._db.transaction() as tx:
            # The cursor first: on PostgreSQL a concurrent mover waits here for the other's commit
            # and then finds the cursor moved, before any of its rows can collide.
            if not await _set_cursor(tx, since, cursor):
                return None
            if rows:
                await tx.execute_many(_insert_delivery, rows)
            claimed = await _claim(tx, claim) if rows and claim is not None else []
        claimed.sort(key=_due_order)
        return claimed

    async def listing(self, webhook_id: int | None, limit: int = 500) -> list[Row]:
        if webhook_id is None:
            return await self._db.fetch_all(_all, {"limit": limit})
        return await self._db.fetch_all(_of_webhook, {"webhook_id": webhook_id, "limit": limit})

    async def settle(
        self,
        outcomes: Sequence[dict[str, Any]],
        claim: Claim | None,
    ) -> list[Row]:
        """One transaction per sending round: store the outcomes of finished attempts (each with `id`)
        and claim, for `claim.holder` (state `sending`, until `claim.until`), the due deliveries that
        `claim.pick` chooses among the first `claim.limit` due ones. Returns the claimed rows."""
        if claim is not None and await self._db.fetch_value(_any_due, {"now": claim.now_ms}) is None:
            claim = None  # a read first: a write transaction every round would wake every worker
        if not outcomes and claim is None:
            return []
        async with self._db.transaction() as tx:
            if outcomes:
                await tx.execute_many(_record, outcomes)
            if claim is None:
                return []
            claimed = await _claim(tx, claim)
        claimed.sort(key=_due_order)
        return claimed

    async def release_own(self, holder: str) -> None:
        """At a graceful stop: this process's interrupted attempts are due again at once."""
        async with self._db.transaction() as tx:
            await tx.execute(_release_own, {"holder": holder})

    async def release_expired(self, wall_now_ms: int) -> int:
        """Claims past their expiry (their process died) are due again (sent twice, never lost)."""
        async with self._db.transaction() as tx:
            return await tx.execute(_release_expired, {"now": wall_now_ms})

    async def record(self, delivery_id: int, **outcome: Any) -> None:
        async with self._db.transaction() as tx:
            await tx.execute(_record, {"id": delivery_id, **outcome})


def _due_order(row: Row) -> tuple[int, int]:
    return (int(row["next_attempt_at"]), int(row["id"]))


async def _claim(tx: Executor, claim: Claim) -> list[Row]:
    """Claim, for `claim.holder` until `claim.until`, the rows `claim.pick` chooses among the oldest
    `claim.limit` due ones. Choose first, then write only the chosen rows: claiming every due row and
    giving most back (a webhook at its in-flight cap) cost two writes per row per round."""
    chosen = claim.pick(await tx.fetch_all(_due, {"now": claim.now_ms, "limit": claim.limit}))
    if not chosen:
        return []
    ids = [int(row["id"]) for row in chosen]
    params = {"holder": claim.holder, "until": claim.until, **in_params(ids)}
    return await tx.fetch_all(_claim_ids(len(ids)), params)


async def _set_cursor(tx: Executor, since: int, position: int) -> bool:
    current = await tx.fetch_value(_cursor)
    if current is None:
        if since != 0:
            return False
        await tx.execute(_insert_cursor, {"value": str(position)})
        return True
    return await tx.execute(_move_cursor, {"old": str(since), "value": str(position)}) == 1
