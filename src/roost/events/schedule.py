"""Scheduled CRC checks: every 30 minutes for a webhook not validated in the last 24 hours, and the
28-hour rule that marks a webhook invalid after transient failures.

Times are the roost clock's (`services.clock`), so moving the clock runs the checks that fell due in
the skipped interval at once. `webhooks.crc_attempted_at` keeps the 30-minute cadence across restarts;
`webhooks.validated_at` is the last passing CRC. Only valid webhooks are scheduled: an invalid one stays
invalid until `PUT /2/webhooks/:id` passes (the state table's only way back).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from roost.domain.webhooks import judge
from roost.events.crc import reply_limit, run_crc
from roost.services import Services

log = logging.getLogger("roost.crc")

CADENCE_MS = 30 * 60 * 1000
FRESH_MS = 24 * 3600 * 1000
# The due-webhook query runs at most this often (roost clock), or at once after a clock jump.
CHECK_EVERY_MS = 1000


class CrcScheduler:
    def __init__(self, services: Services) -> None:
        self.services = services
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._last_check: int | None = None

    async def tick(self) -> None:
        """Called on every dispatcher round (and at once after the clock moves); must not block on
        the network: CRC requests run as tasks of their own."""
        now = self.services.clock.now_ms()
        last = self._last_check
        if last is not None and last <= now < last + CHECK_EVERY_MS:
            return
        self._last_check = now
        due = await self.services.webhooks.crc_due(now - FRESH_MS, now - CADENCE_MS)
        for row in due:
            webhook_id = int(row["id"])
            if webhook_id in self._tasks:
                continue  # at most one CRC in flight per webhook
            # Recorded before the request so the next round does not pick the webhook again.
            await self.services.webhooks.mark_crc_attempted(webhook_id, now)
            task = asyncio.create_task(self._check(webhook_id), name=f"roost-crc-{webhook_id}")
            self._tasks[webhook_id] = task
            task.add_done_callback(lambda _t, key=webhook_id: self._tasks.pop(key, None))

    async def _check(self, webhook_id: int) -> None:
        services = self.services
        try:
            hook = await services.webhooks.get(webhook_id)
            if hook is None:
                return
            app = await services.apps.get(int(hook["app_id"]))
            if app is None:
                return
            outcome = await run_crc(
                str(hook["url"]),
                str(app["consumer_secret"]),
                services.tokens.token(32),
                reply_limit(services.settings),
            )
            # Read again: a PUT may have re-validated the webhook while the request was out.
            current = await services.webhooks.get(webhook_id)
            if current is None:
                return
            valid, validated_at = judge(
                outcome,
                bool(current["valid"]),
                current["validated_at"],
                int(current["created_at"]),
                services.clock.now_ms(),
            )
            if valid != bool(current["valid"]) or validated_at != current["validated_at"]:
                await services.webhooks.record_crc(webhook_id, valid, validated_at)
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
