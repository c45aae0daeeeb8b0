"""Filtered-stream webhook links, without HTTP: link the app's filtered stream to one of its webhooks
(keeping the field and expansion parameters sent with the link), list the links, unlink.

Each app has one filtered stream (its rule set); roost reports the app id as the stream's
`instance_id`. A webhook carries at most one link. Link and unlink append `stream_link.create` /
`stream_link.delete` to the event log in the same transaction, so the dispatcher sees the change at
its place in the log (`events/stream_hooks.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock, iso_ms
from roost.core.ids import SnowflakeGenerator
from roost.core.records import Row
from roost.domain.webhooks import WebhookService
from roost.storage import stream_links as rows
from roost.storage.apps import AppStore
from roost.storage.db import Database, Executor
from roost.storage.events import append_event
from roost.storage.stream_links import StreamLinkStore

LINK_EVENT = "stream_link.create"
UNLINK_EVENT = "stream_link.delete"


def stored_params(row: Row) -> list[tuple[str, str]]:
    """The link's field and expansion parameters, as (name, raw value) in request order."""
    try:
        return [(str(name), str(value)) for name, value in jsonio.loads(row["params"] or "[]")]
    except (TypeError, ValueError):
        return []


def render_link(row: Row, owner_user_id: int | None) -> dict[str, Any]:
    link: dict[str, Any] = {
        "application_id": str(row["app_id"]),
        "created_at": iso_ms(int(row["created_at"])),
        # One item per parameter, formatted as in a query string ("user.fields=name,username").
        "fields": [f"{name}={value}" for name, value in stored_params(row)],
        "instance_id": str(row["app_id"]),
        "webhook_id": str(row["webhook_id"]),
    }
    if owner_user_id is not None:
        link["business_user_id"] = str(owner_user_id)
    return link


class StreamLinkService:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        apps: AppStore,
        links: StreamLinkStore,
        webhooks: WebhookService,  # whose webhook it is
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._apps = apps
        self._links = links
        self._webhooks = webhooks

    async def _event(self, tx: Executor, kind: str, app_id: int, webhook_id: int) -> None:
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind=kind,
            created_at=self._clock.now_ms(),
            user_id=None,
            object_id=webhook_id,
            payload={"app_id": app_id, "webhook_id": webhook_id},
        )

    async def link(self, app_id: int, webhook_id: int, params: Iterable[tuple[str, str]]) -> None:
        """Link; the webhook must be the app's (else `WebhookIdInvalid`) and not linked yet."""
        await self._webhooks.owned(app_id, webhook_id)
        row = {
            "webhook_id": webhook_id,
            "app_id": app_id,
            "params": jsonio.dumps([[name, value] for name, value in params]).decode(),
            "created_at": self._clock.now_ms(),
        }
        async with self._db.transaction() as tx:
            await rows.purge_dangling(tx, app_id)
            if await rows.link_tx(tx, webhook_id) is not None:
                raise errors.webhook_failure(
                    "DuplicateLinkFailed", f"Webhook {webhook_id} is already linked to the filtered stream"
                )
            await rows.insert_link(tx, row)
            await self._event(tx, LINK_EVENT, app_id, webhook_id)

    async def listing(self, app_id: int) -> list[dict[str, Any]]:
        app = await self._apps.get(app_id)
        owner = None if app is None or app["owner_user_id"] is None else int(app["owner_user_id"])
        return [render_link(row, owner) for row in await self._links.of_app(app_id)]

    async def unlink(self, app_id: int, webhook_id: int) -> None:
        await self._webhooks.owned(app_id, webhook_id)
        async with self._db.transaction() as tx:
            await rows.purge_dangling(tx, app_id)
            if await rows.link_tx(tx, webhook_id) is None:
                raise errors.webhook_failure(
                    "LinkNotFound", f"Webhook {webhook_id} is not linked to the filtered stream"
                )
            await rows.delete_link(tx, webhook_id)
            await self._event(tx, UNLINK_EVENT, app_id, webhook_id)
