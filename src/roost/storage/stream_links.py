"""Filtered-stream webhook links: the statements behind `/2/tweets/search/webhooks*` and the
dispatcher's view of the links it delivers to.

Links whose webhook is gone (deleting a webhook does not know about links) are never read: every
query joins `webhooks`, and creating or removing a link purges the app's dangling ones.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, bindparam, delete, select

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import stream_links as links
from roost.storage.schema import webhooks
from roost.storage.statements import insert_all

_with_webhook = links.join(
    webhooks, and_(webhooks.c.id == links.c.webhook_id, webhooks.c.app_id == links.c.app_id)
)
_of_app = (
    select(links)
    .select_from(_with_webhook)
    .where(links.c.app_id == bindparam("app_id"))
    .order_by(links.c.webhook_id)
)
_one = select(links).select_from(_with_webhook).where(links.c.webhook_id == bindparam("webhook_id"))
# Every link a delivery may go to: its webhook exists, belongs to the link's app and is valid.
_deliverable = (
    select(links)
    .select_from(_with_webhook)
    .where(webhooks.c.valid == 1)
    .order_by(links.c.app_id, links.c.webhook_id)
)
_insert = insert_all(links)
_delete = delete(links).where(links.c.webhook_id == bindparam("webhook_id"))
_purge_dangling = delete(links).where(
    links.c.app_id == bindparam("app_id"),
    ~select(webhooks.c.id).where(webhooks.c.id == links.c.webhook_id).exists(),
)


class StreamLinkStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def of_app(self, app_id: int) -> list[Row]:
        return await self._db.fetch_all(_of_app, {"app_id": app_id})

    async def deliverable(self) -> list[Row]:
        """Links of every app whose webhook is valid, by app."""
        return await self._db.fetch_all(_deliverable)


async def link_tx(tx: Executor, webhook_id: int) -> Row | None:
    return await tx.fetch_one(_one, {"webhook_id": webhook_id})


async def insert_link(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert, row)


async def delete_link(tx: Executor, webhook_id: int) -> None:
    await tx.execute(_delete, {"webhook_id": webhook_id})


async def purge_dangling(tx: Executor, app_id: int) -> None:
    await tx.execute(_purge_dangling, {"app_id": app_id})
