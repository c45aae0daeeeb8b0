"""Webhook storage: registered webhooks and their account-activity subscriptions."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete, func, or_, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import aaa_subscriptions, crc_checks, webhooks
from roost.storage.statements import insert_all

_webhook = select(webhooks).where(webhooks.c.id == bindparam("id"))
_of_app = select(webhooks).where(webhooks.c.app_id == bindparam("app_id")).order_by(webhooks.c.id)
_count_of_project = (
    select(func.count()).select_from(webhooks).where(webhooks.c.project_id == bindparam("project_id"))
)
_by_url = select(webhooks.c.id).where(
    webhooks.c.app_id == bindparam("app_id"), webhooks.c.url == bindparam("url")
)
_insert_webhook = insert_all(webhooks)
CRC_CHECKS_KEPT = 50
_insert_crc_check = crc_checks.insert().values(
    webhook_id=bindparam("webhook_id"),
    at_ms=bindparam("at_ms"),
    passed=bindparam("passed"),
    detail=bindparam("detail"),
    trigger=bindparam("trigger"),
)
# Only the newest checks of a webhook are kept: the history is for looking, not for ever.
_trim_crc_checks = delete(crc_checks).where(
    crc_checks.c.webhook_id == bindparam("webhook_id"),
    crc_checks.c.id.not_in(
        select(crc_checks.c.id)
        .where(crc_checks.c.webhook_id == bindparam("webhook_id"))
        .order_by(crc_checks.c.id.desc())
        .limit(CRC_CHECKS_KEPT)
        .scalar_subquery()
    ),
)
_delete_crc_checks = delete(crc_checks).where(crc_checks.c.webhook_id == bindparam("webhook_id"))
_crc_history = (
    select(crc_checks)
    .where(crc_checks.c.webhook_id == bindparam("webhook_id"))
    .order_by(crc_checks.c.id.desc())
    .limit(CRC_CHECKS_KEPT)
)
_delete_webhook = delete(webhooks).where(webhooks.c.id == bindparam("id"))
_delete_subscriptions_of = delete(aaa_subscriptions).where(
    aaa_subscriptions.c.webhook_id == bindparam("webhook_id")
)
_set_validity = (
    update(webhooks)
    .where(webhooks.c.id == bindparam("id"))
    .values(valid=bindparam("valid"), validated_at=bindparam("validated_at"))
)
_set_crc_attempted = (
    update(webhooks)
    .where(webhooks.c.id == bindparam("id"))
    .values(crc_attempted_at=bindparam("crc_attempted_at"))
)
_record_crc = (
    update(webhooks)
    .where(webhooks.c.id == bindparam("id"))
    .values(valid=bindparam("valid"), validated_at=bindparam("validated_at"))
)
# Valid webhooks not validated since `validated_before` whose last CRC attempt is older than
# `attempted_before` (or that never had one).
_crc_due = (
    select(webhooks)
    .where(
        webhooks.c.valid == 1,
        or_(webhooks.c.validated_at.is_(None), webhooks.c.validated_at <= bindparam("validated_before")),
        or_(
            webhooks.c.crc_attempted_at.is_(None),
            webhooks.c.crc_attempted_at <= bindparam("attempted_before"),
        ),
    )
    .order_by(webhooks.c.id)
    .limit(bindparam("limit"))
)

_subscription = select(aaa_subscriptions).where(
    aaa_subscriptions.c.webhook_id == bindparam("webhook_id"),
    aaa_subscriptions.c.user_id == bindparam("user_id"),
)
_subscriptions_of = (
    select(aaa_subscriptions)
    .where(aaa_subscriptions.c.webhook_id == bindparam("webhook_id"))
    .order_by(aaa_subscriptions.c.created_at, aaa_subscriptions.c.user_id)
)
_subscriptions_of_app = select(aaa_subscriptions).where(aaa_subscriptions.c.app_id == bindparam("app_id"))
_insert_subscription = insert_all(aaa_subscriptions)
_delete_subscription = delete(aaa_subscriptions).where(
    aaa_subscriptions.c.webhook_id == bindparam("webhook_id"),
    aaa_subscriptions.c.user_id == bindparam("user_id"),
)


class WebhookStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, webhook_id: int) -> Row | None:
        return await self._db.fetch_one(_webhook, {"id": webhook_id})

    async def of_app(self, app_id: int) -> list[Row]:
        return await self._db.fetch_all(_of_app, {"app_id": app_id})

    async def subscription(self, webhook_id: int, user_id: int) -> Row | None:
        return await self._db.fetch_one(_subscription, {"webhook_id": webhook_id, "user_id": user_id})

    async def subscriptions(self, webhook_id: int) -> list[Row]:
        return await self._db.fetch_all(_subscriptions_of, {"webhook_id": webhook_id})

    async def subscriptions_of_app(self, app_id: int) -> list[Row]:
        return await self._db.fetch_all(_subscriptions_of_app, {"app_id": app_id})

    async def set_validity(self, webhook_id: int, valid: bool, validated_at: int | None) -> None:
        async with self._db.transaction() as tx:
            await tx.execute(
                _set_validity, {"id": webhook_id, "valid": int(valid), "validated_at": validated_at}
            )

    async def mark_crc_attempted(self, webhook_id: int, at_ms: int) -> None:
        async with self._db.transaction() as tx:
            await tx.execute(_set_crc_attempted, {"id": webhook_id, "crc_attempted_at": at_ms})

    async def record_crc(self, webhook_id: int, valid: bool, validated_at: int | None) -> None:
        """The state after a CRC (a no-op when the webhook was deleted meanwhile)."""
        async with self._db.transaction() as tx:
            await tx.execute(
                _record_crc, {"id": webhook_id, "valid": int(valid), "validated_at": validated_at}
            )

    async def note_crc(self, webhook_id: int, at_ms: int, passed: bool, detail: str, trigger: str) -> None:
        """One CRC check in the webhook's history (its newest CRC_CHECKS_KEPT are kept)."""
        async with self._db.transaction() as tx:
            await insert_crc_check(tx, webhook_id, at_ms, passed, detail, trigger)

    async def crc_history(self, webhook_id: int) -> list[Row]:
        """The webhook's newest CRC checks, newest first."""
        return await self._db.fetch_all(_crc_history, {"webhook_id": webhook_id})

    async def crc_due(self, validated_before: int, attempted_before: int, limit: int = 100) -> list[Row]:
        """Valid webhooks due for a scheduled CRC."""
        return await self._db.fetch_all(
            _crc_due,
            {"validated_before": validated_before, "attempted_before": attempted_before, "limit": limit},
        )


async def count_of_project_tx(tx: Executor, project_id: int) -> int:
    row = await tx.fetch_one(_count_of_project, {"project_id": project_id})
    return int(next(iter(row.values()))) if row else 0


async def url_taken_tx(tx: Executor, app_id: int, url: str) -> bool:
    return await tx.fetch_one(_by_url, {"app_id": app_id, "url": url}) is not None


async def insert_webhook(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_webhook, row)


async def get_webhook_tx(tx: Executor, webhook_id: int) -> Row | None:
    return await tx.fetch_one(_webhook, {"id": webhook_id})


async def delete_webhook(tx: Executor, webhook_id: int) -> None:
    await tx.execute(_delete_subscriptions_of, {"webhook_id": webhook_id})
    await tx.execute(_delete_crc_checks, {"webhook_id": webhook_id})
    await tx.execute(_delete_webhook, {"id": webhook_id})


async def insert_crc_check(
    tx: Executor, webhook_id: int, at_ms: int, passed: bool, detail: str, trigger: str
) -> None:
    params = {"webhook_id": webhook_id, "at_ms": at_ms, "passed": int(passed), "detail": detail[:500]}
    await tx.execute(_insert_crc_check, {**params, "trigger": trigger})
    await tx.execute(_trim_crc_checks, {"webhook_id": webhook_id})


async def subscription_tx(tx: Executor, webhook_id: int, user_id: int) -> Row | None:
    return await tx.fetch_one(_subscription, {"webhook_id": webhook_id, "user_id": user_id})


async def subscriptions_of_app_tx(tx: Executor, app_id: int) -> list[Row]:
    return await tx.fetch_all(_subscriptions_of_app, {"app_id": app_id})


async def insert_subscription(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_subscription, row)


async def delete_subscription(tx: Executor, webhook_id: int, user_id: int) -> None:
    await tx.execute(_delete_subscription, {"webhook_id": webhook_id, "user_id": user_id})
