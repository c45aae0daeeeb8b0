"""The console's views and actions beyond what `/_roost` already offered: every app, the live
tokens and revoking one, every webhook with its CRC state and replay jobs, a webhook's newest
deliveries, retrying one delivery and replaying a window of a webhook whatever app owns it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from roost.auth.principals import Authenticator
from roost.core.clock import Clock
from roost.core.errors import invalid_body
from roost.core.records import Row
from roost.domain.revocations import Revocations
from roost.domain.webhooks import WebhookService
from roost.storage import console_reads
from roost.storage.apps import AppStore
from roost.storage.console_reads import ConsoleStore
from roost.storage.db import Database

TOKENS_LISTED = 100


@dataclass(frozen=True, slots=True)
class WebhookView:
    row: Row
    replays: list[Row]


def replay_minute(epoch_ms: int) -> str:
    """The replay API's `yyyymmddhhmm` (UTC) for an instant."""
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y%m%d%H%M")


class ConsoleAdmin:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        apps: AppStore,
        store: ConsoleStore,
        authenticator: Authenticator,
        webhooks: WebhookService,
        revocations: Revocations,
    ) -> None:
        self._revocations = revocations
        self._db = db
        self._clock = clock
        self._apps = apps
        self._store = store
        self._authenticator = authenticator
        self._webhooks = webhooks

    # ---- apps and tokens ------------------------------------------------------------------------

    async def apps(self) -> list[Row]:
        return await self._apps.all()

    async def live_tokens(self) -> tuple[list[Row], list[Row]]:
        """Unrevoked OAuth 1.0a and unexpired OAuth 2.0 access tokens, newest first."""
        return await self._store.live_tokens(self._clock.now_ms(), TOKENS_LISTED)

    async def revoke_token(self, token: str) -> bool:
        if not token:
            raise invalid_body("token is required")
        async with self._db.transaction() as tx:
            owner = await self._revocations.owner_tx(tx, token)
            revoked = await console_reads.revoke_token(tx, token, self._clock.now_ms())
            if revoked and owner is not None:
                await self._revocations.settle_tx(tx, *owner)
        self._authenticator.forget()  # refused at once, not after the cache's seconds
        return revoked

    # ---- webhooks and deliveries ----------------------------------------------------------------

    async def webhooks(self) -> list[WebhookView]:
        return [
            WebhookView(row, await self._store.replay_jobs(int(row["id"])))
            for row in await self._store.webhooks()
        ]

    async def crc_checks(self, webhook_id: int) -> list[Row]:
        """The webhook's newest CRC checks (at creation, on request, on schedule), newest first."""
        return await self._store.crc_checks(webhook_id)

    async def deliveries(self, webhook_id: int, before: int | None, limit: int) -> list[Row]:
        return await self._store.deliveries(webhook_id, before, limit)

    async def retry_delivery(self, delivery_id: int) -> tuple[bool, Row | None]:
        """Send a delivered or failed delivery again now (the caller wakes the dispatcher): whether it
        was made due, and the row (None when there is no such delivery; a pending row or one being
        sent is left as it is)."""
        async with self._db.transaction() as tx:
            retried = await console_reads.retry_delivery(tx, delivery_id, self._clock.now_ms())
        return retried, await self._store.delivery(delivery_id)

    async def replay(self, webhook_id: int, from_ms: int, to_ms: int) -> dict[str, Any]:
        """A replay job for the webhook's own app, with the API's rules (`POST /2/webhooks/replay`)."""
        row = await self._store.webhook(webhook_id)
        if row is None:
            raise invalid_body(f"no webhook {webhook_id}")
        return await self._webhooks.replay(
            int(row["app_id"]), webhook_id, replay_minute(from_ms), replay_minute(to_ms), True
        )
