"""Reads the account-activity fan-out needs: subscriptions with their access levels, who a post
mentions, who blocks whom, an app's valid webhooks (revocations) and how a DM names its app."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, bindparam, select

from roost.storage import posts as post_rows
from roost.storage.db import Database, Row
from roost.storage.schema import aaa_subscriptions, apps, blocks, users, webhooks
from roost.storage.statements import binds, in_params, sized

_valid_of_app = (
    select(webhooks.c.id)
    .where(webhooks.c.app_id == bindparam("app_id"), webhooks.c.valid == 1)
    .order_by(webhooks.c.id)
)
_app = (
    select(apps.c.id, apps.c.name, apps.c.callback_urls, users.c.username.label("owner_username"))
    .select_from(apps.outerjoin(users, users.c.id == apps.c.owner_user_id))
    .where(apps.c.id == bindparam("id"))
)


@sized
def _targets_of(count: int) -> Select[Any]:
    return (
        select(
            aaa_subscriptions.c.user_id, webhooks.c.id, webhooks.c.app_id, aaa_subscriptions.c.access_level
        )
        .select_from(aaa_subscriptions.join(webhooks, webhooks.c.id == aaa_subscriptions.c.webhook_id))
        .where(aaa_subscriptions.c.user_id.in_(binds(count)), webhooks.c.valid == 1)
        .order_by(aaa_subscriptions.c.user_id, webhooks.c.id)
    )


@sized
def _blockers_of(count: int) -> Select[Any]:
    return select(blocks.c.source_id).where(
        blocks.c.target_id == bindparam("target_id"), blocks.c.source_id.in_(binds(count))
    )


class AaaStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def targets(self, user_id: int) -> list[Row]:
        """Valid webhooks with an account-activity subscription for `user_id`: id, app_id and the
        subscription's access_level."""
        return (await self.targets_of((user_id,)))[user_id]

    async def targets_of(self, user_ids: Sequence[int]) -> dict[int, list[Row]]:
        """`targets` of several users at once: every one of them has an entry (empty: none)."""
        unique = list(dict.fromkeys(user_ids))
        found: dict[int, list[Row]] = {user_id: [] for user_id in unique}
        if unique:
            for row in await self._db.fetch_all(_targets_of(len(unique)), in_params(unique)):
                found[int(row["user_id"])].append(row)
        return found

    async def valid_webhooks_of_app(self, app_id: int) -> list[Row]:
        """The app's valid webhooks (id), oldest first."""
        return await self._db.fetch_all(_valid_of_app, {"app_id": app_id})

    async def app(self, app_id: int) -> Row | None:
        """What a DM payload's `apps` map shows of an app: id, name, callback_urls, owner_username."""
        return await self._db.fetch_one(_app, {"id": app_id})

    async def mentioned_user_ids(self, post_id: int) -> list[int]:
        return await post_rows.mentioned_user_ids(self._db, post_id)

    async def mentioned_user_ids_of(self, post_ids: Sequence[int]) -> dict[int, list[int]]:
        return await post_rows.mentioned_user_ids_of(self._db, post_ids)

    async def blockers_of(self, target_id: int, source_ids: Sequence[int]) -> set[int]:
        """Which of `source_ids` block `target_id`."""
        if not source_ids:
            return set()
        unique = list(dict.fromkeys(source_ids))
        params = {**in_params(unique), "target_id": target_id}
        return {int(row["source_id"]) for row in await self._db.fetch_all(_blockers_of(len(unique)), params)}
