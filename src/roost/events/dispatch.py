"""The delivery dispatcher: turns event-log rows into signed account-activity webhook deliveries.

One background task per server. Each tick reads the events after a persisted cursor, records one
delivery row per (subscribed valid webhook, event) in the same transaction that moves the cursor (so a
crash loses nothing: duplicates are allowed, loss is not), then POSTs the deliveries that are due.
A delivery succeeds only on HTTP 200; otherwise it is retried after each delay of the feature setting
`delivery_retry_schedule` (seconds, comma-separated; default "60,120,240") by `services.clock`, then
marked failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import httpx

from roost.events.aaa import aaa_outgoing
from roost.events.crc import REPLY_LIMIT_S, signature
from roost.events.replay import advance_replays
from roost.events.schedule import CrcScheduler
from roost.events.xaa import xaa_outgoing
from roost.services import Services
from roost.storage.db import Row
from roost.storage.deliveries import DeliveryStore

log = logging.getLogger("roost.dispatch")

POLL_S = 0.075
STOP_GRACE_S = 2.0
EVENT_BATCH = 200
DEFAULT_RETRY_SCHEDULE = "60,120,240"
EVENT_ID_HEADER = "x-roost-event-id"


def signature_header(brand: str) -> str:
    return "x-service-webhooks-signature" if brand == "service" else "x-twitter-webhooks-signature"


def retry_schedule(extra: dict[str, str]) -> list[int]:
    raw = extra.get("delivery_retry_schedule", DEFAULT_RETRY_SCHEDULE)
    try:
        return [max(0, int(part)) for part in raw.split(",") if part.strip()]
    except ValueError:
        return [int(part) for part in DEFAULT_RETRY_SCHEDULE.split(",")]


class Dispatcher:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.store = DeliveryStore(services.db)
        self._task: asyncio.Task[None] | None = None
        self._client: httpx.AsyncClient | None = None
        self._wake = asyncio.Event()
        self._stopping = False
        self.crc_scheduler = CrcScheduler(services)

    def start(self) -> None:
        self._stopping = False
        self._client = httpx.AsyncClient(timeout=REPLY_LIMIT_S, follow_redirects=False, trust_env=False)
        self._task = asyncio.create_task(self._run(), name="roost-dispatch")
        # Local writes wake the worker at once; polling remains for other processes' writes.
        self.services.db.commit_listeners.append(self.wake)

    def wake(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        if self.wake in self.services.db.commit_listeners:
            self.services.db.commit_listeners.remove(self.wake)
        if self._task is not None:
            # Ask the loop to finish its round; cancel only a round stuck on a slow receiver.
            self._stopping = True
            self._wake.set()
            done, _ = await asyncio.wait({self._task}, timeout=STOP_GRACE_S)
            if not done:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
            self._task = None
        await self.crc_scheduler.stop()
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._stopping:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("delivery tick failed")
            if self._stopping:
                break
            # A timer sets the same event as a commit: no wait_for, whose cancellation can hang
            # on Python 3.11 when it races with the event being set.
            timer = loop.call_later(POLL_S, self._wake.set)
            try:
                await self._wake.wait()
            finally:
                timer.cancel()
            self._wake.clear()

    async def tick(self) -> None:
        await self.crc_scheduler.tick()
        await advance_replays(self.services)
        await self.collect()
        due = await self.store.due(self.services.clock.now_ms())
        if due:
            await asyncio.gather(*(self.send(row) for row in due))

    # ---- from the event log to delivery rows ----------------------------------------------------

    async def collect(self) -> None:
        cursor = await self.store.cursor()
        events = await self.services.events.after(cursor, EVENT_BATCH)
        if not events:
            return
        rows: list[dict[str, Any]] = []
        for event in events:
            rows.extend(await self._deliveries_for(event))
        await self.store.enqueue(rows, int(events[-1]["position"]))

    async def _deliveries_for(self, event: Row) -> list[dict[str, Any]]:
        outgoing = [*await aaa_outgoing(self.services, event), *await xaa_outgoing(self.services, event)]
        now = self.services.clock.now_ms()
        return [
            {
                "webhook_id": item.webhook_id,
                "event_position": int(event["position"]),
                "event_id": int(event["id"]),
                "for_user_id": item.for_user_id,
                "route": item.route,
                "body": item.body.decode(),
                "state": "pending",
                "attempts": 0,
                "next_attempt_at": now,
                "last_status": None,
                "last_latency_ms": None,
                "delivered_at": None,
                "created_at": now,
            }
            for item in outgoing
        ]

    # ---- sending --------------------------------------------------------------------------------

    async def send(self, delivery: Row) -> None:
        services = self.services
        hook = await services.webhooks.get(int(delivery["webhook_id"]))
        app = await services.apps.get(int(hook["app_id"])) if hook is not None else None
        attempts = int(delivery["attempts"])
        outcome: dict[str, Any] = {
            "attempts": attempts,
            "last_status": delivery["last_status"],
            "last_latency_ms": delivery["last_latency_ms"],
            "delivered_at": None,
            "next_attempt_at": None,
        }
        if hook is None or not hook["valid"] or app is None or self._client is None:
            await self.store.record(int(delivery["id"]), state="failed", **outcome)
            return
        raw = str(delivery["body"]).encode()
        headers = {
            "content-type": "application/json",
            signature_header(services.settings.brand): signature(app["consumer_secret"], raw),
            EVENT_ID_HEADER: str(delivery["event_id"]),
        }
        started = time.monotonic()
        status: int | None
        try:
            response = await self._client.post(hook["url"], content=raw, headers=headers)
            status = response.status_code
        except httpx.HTTPError:
            status = None
        now = services.clock.now_ms()
        attempts += 1
        outcome.update(
            attempts=attempts, last_status=status, last_latency_ms=int((time.monotonic() - started) * 1000)
        )
        if status == 200:
            outcome["delivered_at"] = now
            await self.store.record(int(delivery["id"]), state="delivered", **outcome)
            return
        schedule = retry_schedule(services.settings.extra)
        if attempts <= len(schedule):
            outcome["next_attempt_at"] = now + schedule[attempts - 1] * 1000
            await self.store.record(int(delivery["id"]), state="pending", **outcome)
        else:
            await self.store.record(int(delivery["id"]), state="failed", **outcome)
