"""Scheduled CRC checks: every 30 minutes for a webhook not validated in the last 24 hours, and the
28-hour rule that marks a webhook invalid after transient failures.

Times are the roost clock's, so moving the clock runs the checks that fell due in
the skipped interval at once. `webhooks.crc_attempted_at` keeps the 30-minute cadence across restarts;
`webhooks.validated_at` is the last passing CRC. Only valid webhooks are scheduled: an invalid one stays
invalid until `PUT /2/webhooks/:id` passes (the state table's only way back).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging

from roost.config import Settings
from roost.core.clock import Clock
from roost.core.ids import TokenSource
from roost.domain.outbound import crc_challenge
from roost.domain.webhooks import judge
from roost.events.crc import reply_limit, run_crc
from roost.storage.apps import AppStore
from roost.storage.webhooks import WebhookStore

log = logging.getLogger("roost.crc")

CADENCE_MS = 30 * 60 * 1000
FRESH_MS = 24 * 3600 * 1000
# The due-webhook query runs at most this often (roost clock), or at once after a clock jump.
CHECK_EVERY_MS = 1000


class CrcScheduler:
    def __init__(
        self,
        webhooks: WebhookStore,
        apps: AppStore,
        clock: Clock,
        tokens: TokenSource,
        settings: Settings,  # read live: the CRC deadline
    ) -> None:
        self._webhooks = webhooks
        self._apps = apps
        self._clock = clock
        self._tokens = tokens
        self._settings = settings
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._last_check: int | None = None

    async def tick(self) -> None:
        """Called on every dispatcher round (and at once after the clock moves); must not block on
        the network: CRC requests run as tasks of their own."""
        now = self._clock.now_ms()
        last = self._last_check
        if last is not None and last <= now < last + CHECK_EVERY_MS:
            return
        self._last_check = now
        due = await self._webhooks.crc_due(now - FRESH_MS, now - CADENCE_MS)
        for row in due:
            webhook_id = int(row["id"])
            if webhook_id in self._tasks:
                continue  # at most one CRC in flight per webhook
            # Recorded before the request so the next round does not pick the webhook again.
            await self._webhooks.mark_crc_attempted(webhook_id, now)
            task = asyncio.create_task(self._check(webhook_id), name=f"roost-crc-{webhook_id}")
            self._tasks[webhook_id] = task
            task.add_done_callback(functools.partial(self._forget, webhook_id))

    def _forget(self, webhook_id: int, _task: asyncio.Task[None]) -> None:
        self._tasks.pop(webhook_id, None)

    async def _check(self, webhook_id: int) -> None:
        webhooks = self._webhooks
        try:
            hook = await webhooks.get(webhook_id)
            if hook is None:
                return
            app = await self._apps.get(int(hook["app_id"]))
            if app is None:
                return
            outcome = await run_crc(
                str(hook["url"]),
                str(app["consumer_secret"]),
                crc_challenge(self._tokens, self._clock.now_ms()),
                reply_limit(self._settings),
            )
            # Read again: a PUT may have re-validated the webhook while the request was out.
            current = await webhooks.get(webhook_id)
            if current is None:
                return
            valid, validated_at = judge(
                outcome,
                bool(current["valid"]),
                current["validated_at"],
                int(current["created_at"]),
                self._clock.now_ms(),
            )
            if valid != bool(current["valid"]) or validated_at != current["validated_at"]:
                await webhooks.record_crc(webhook_id, valid, validated_at)
            detail = outcome.detail or "passed"
            await webhooks.note_crc(webhook_id, self._clock.now_ms(), outcome.passed, detail, "scheduled")
            if not outcome.passed:
                log.info("scheduled CRC of webhook %s failed: %s", webhook_id, outcome.detail)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("scheduled CRC of webhook %s failed", webhook_id)

    async def stop(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        self._last_check = None
