"""The delivery dispatcher: turns event-log rows into signed account-activity webhook deliveries.

One background task per server. Each tick reads the events after a persisted cursor, records one
delivery row per (subscribed valid webhook, event) in the same transaction that moves the cursor (so a
crash loses nothing: duplicates are allowed, loss is not), then POSTs the deliveries that are due.
A delivery succeeds only on HTTP 200; otherwise it is retried after each delay of the feature setting
`delivery_retry_schedule` (seconds, comma-separated; default "30,90,180") by the roost clock, then
marked failed. A reply not received within `delivery_timeout` counts as a failure.

Several processes on one database share the work (issue 16): turning the event log into delivery
rows, the CRC schedule, replay jobs and the release of expired claims run only in the process holding
the `dispatch` lease (`events/lease.py`); every process sends, claiming due rows for itself
(`DeliveryStore.settle`) until a claim expiry, so a delivery is sent by one process at a time and a
killed process's in-flight deliveries are sent again once their claims expire.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from roost.config import Settings
from roost.core.records import Row
from roost.events.crc import signature
from roost.events.lease import WorkLease, wall_ms
from roost.events.outgoing import Outgoing
from roost.events.replay import ReplayJobs
from roost.events.schedule import CrcScheduler
from roost.events.tail import EventLog
from roost.events.webhook_client import WebhookClient
from roost.storage.apps import AppStore
from roost.storage.deliveries import Claim, DeliveryStore
from roost.storage.webhooks import WebhookStore

log = logging.getLogger("roost.dispatch")

POLL_S = 0.075
STOP_GRACE_S = 2.0
EVENT_BATCH = 200
# A batch of events is tens of milliseconds of work on SQLite, which never pauses: yielding this often
# keeps requests arriving meanwhile from waiting for all of it (write p99 under load, issue 19).
YIELD_EVERY_EVENTS = 8
HOUSEKEEPING_S = 0.2  # CRC schedule and replay jobs: at most this often, and at once after a clock move
MAX_IN_FLIGHT = 256
MAX_IN_FLIGHT_PER_WEBHOOK = 64
# The platform retries "up to 3 times over about 5 minutes": growing gaps, the last attempt at 300 s.
DEFAULT_RETRY_SCHEDULE = "30,90,180"
# The seed's Limits table: "webhook reply time | 10 seconds | webhook deliveries and CRC", for the
# three products that deliver by webhook (activity events, account activity, filtered-stream webhooks).
# Feature setting `delivery_timeout_seconds`, read at every attempt; the CRC has `crc_timeout_seconds`.
DELIVERY_REPLY_LIMIT_S = 10.0
MAX_DELIVERY_REPLY_LIMIT_S = 60.0
EVENT_ID_HEADER = "x-roost-event-id"
# A claim outlives the longest attempt by this much, so only a dead process's claims expire.
CLAIM_MARGIN_S = 20.0
RELEASE_EXPIRED_S = 1.0  # the lease holder looks for expired claims at most this often


class Fanout(Protocol):
    """One webhook product's view of an event: the deliveries it makes of it."""

    async def prepare(self, events: Sequence[Row]) -> None:
        """Read ahead for a batch whose events `outgoing` will be asked about next, in order (none:
        the batch is over)."""
        ...

    async def outgoing(self, event: Row) -> list[Outgoing]: ...


@dataclass(frozen=True, slots=True)
class _Target:
    url: str
    secret: str


def signature_header(brand: str) -> str:
    return "x-service-webhooks-signature" if brand == "service" else "x-twitter-webhooks-signature"


def retry_schedule(extra: dict[str, str]) -> list[int]:
    raw = extra.get("delivery_retry_schedule", DEFAULT_RETRY_SCHEDULE)
    try:
        return [max(0, int(part)) for part in raw.split(",") if part.strip()]
    except ValueError:
        return [int(part) for part in DEFAULT_RETRY_SCHEDULE.split(",")]


def delivery_timeout(settings: Settings) -> float:
    """The delivery reply deadline: `delivery_timeout_seconds` (positive, at most 60), else 10 s."""
    value = settings.number("delivery_timeout_seconds", DELIVERY_REPLY_LIMIT_S, positive=True)
    return value if value <= MAX_DELIVERY_REPLY_LIMIT_S else DELIVERY_REPLY_LIMIT_S


class Dispatcher:
    def __init__(
        self,
        log: EventLog,
        store: DeliveryStore,
        webhooks: WebhookStore,
        apps: AppStore,
        settings: Settings,  # read live: the retry schedule, the reply deadline
        fanouts: Sequence[Fanout],  # account activity, activity events, filtered-stream webhooks
        crc_scheduler: CrcScheduler,
        replays: ReplayJobs,
        lease: WorkLease,  # the singleton jobs: collecting, CRC schedule, replays, expired claims
    ) -> None:
        self._log = log
        self._clock = log.clock
        self.store = store
        self._webhooks = webhooks
        self._apps = apps
        self._settings = settings
        self._fanouts = tuple(fanouts)
        self._task: asyncio.Task[None] | None = None
        self._client: WebhookClient | None = None
        self._housekeeping_at = 0.0  # monotonic time of the last scheduler/replay pass
        self._wake = asyncio.Event()
        self._stopping = False
        self._signature_header = signature_header(settings.brand)
        self._in_flight: dict[int, int] = {}  # delivery id -> webhook id, until its outcome is stored
        # The last claim found due rows and sent none (their webhooks are at their cap): claiming again
        # before a send finishes would only claim and give back the same rows.
        self._at_caps = False
        self._storing: set[int] = set()  # the finished deliveries whose outcomes this round stores
        self._finished: list[dict[str, Any]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self.crc_scheduler = crc_scheduler
        self._replays = replays
        self._lease = lease
        self._released_at = 0.0  # monotonic time of the last look for expired claims

    def start(self) -> None:
        self._stopping = False
        # Not httpx nor aiohttp: a delivery reads only the reply's status, and those clients spent far
        # more CPU per request (bench/DELIVERY.md, bench/WRITES.md).
        self._client = WebhookClient()
        self._task = asyncio.create_task(self._run(), name="roost-dispatch")
        # Local writes wake the worker at once; polling remains for other processes' writes.
        self._log.listen(self._on_commit)

    def _on_commit(self) -> None:
        # Only the lease holder turns new events into deliveries: another process woken by a commit
        # would find nothing new to claim (issue 16: a second process's wasted rounds cost CPU on both
        # sides of the database). Others take theirs at the next poll or when a send finishes.
        if self._lease.held:
            self._wake.set()

    def wake(self) -> None:
        """The clock moved (or someone asks): run the scheduled work at once, not at its next turn."""
        self._housekeeping_at = 0.0
        self._wake.set()

    async def stop(self) -> None:
        self._log.unlisten(self._on_commit)
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
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        # Outcomes of finished sends are kept; interrupted ones are released and sent again later,
        # by whichever process claims them next; the lease goes to another process at once.
        with contextlib.suppress(Exception):
            await self.store.settle(self._finished, None)
        with contextlib.suppress(Exception):
            await self.store.release_own(self._lease.holder)
        with contextlib.suppress(Exception):
            await self._lease.give_up()
        self._in_flight.clear()
        self._finished.clear()
        await self.crc_scheduler.stop()
        if self._client is not None:
            await self._client.close()
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
            # A set event is waited on without a pause, and SQLite's calls never pause either: without
            # this a round woken by its own commit would follow the last at once, for ever, and the
            # sends it started (and every request) would never run.
            await asyncio.sleep(0)

    async def tick(self) -> None:
        if await self._lease.hold():
            if time.monotonic() - self._housekeeping_at >= HOUSEKEEPING_S:
                self._housekeeping_at = time.monotonic()
                await self.crc_scheduler.tick()
                await self._replays.advance()
            if time.monotonic() - self._released_at >= RELEASE_EXPIRED_S:
                self._released_at = time.monotonic()
                await self.store.release_expired(wall_ms())
            await self.collect()
        await self._send_round()

    # ---- from the event log to delivery rows ----------------------------------------------------

    async def collect(self) -> None:
        cursor = await self.store.cursor()
        events = await self._log.events.after(cursor, EVENT_BATCH)
        if not events:
            return
        rows: list[dict[str, Any]] = []
        for fanout in self._fanouts:
            await fanout.prepare(events)
        try:
            for index, event in enumerate(events):
                if index % YIELD_EVERY_EVENTS == YIELD_EVERY_EVENTS - 1:
                    await asyncio.sleep(0)  # SQLite reads never pause: let requests run between events
                rows.extend(await self._deliveries_for(event))
        finally:
            for fanout in self._fanouts:
                await fanout.prepare(())
        launch = await self.store.enqueue(rows, cursor, int(events[-1]["position"]), self._claim())
        if launch is None:
            # Another process took the lease and moved the cursor first: its rows stand.
            log.info("the delivery cursor moved under this process; its batch is dropped")
            return
        await self._launch(launch)

    async def _deliveries_for(self, event: Row) -> list[dict[str, Any]]:
        outgoing: list[Outgoing] = []
        for fanout in self._fanouts:
            outgoing.extend(await fanout.outgoing(event))
        now = self._clock.now_ms()
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
    # Each due delivery is sent by a task of its own, so one slow receiver never holds back the
    # others. A round stores finished outcomes and claims the next due rows (state `sending`, for this
    # process until a claim expiry) in one transaction.

    async def _send_round(self) -> None:
        if self._finished:
            self._at_caps = False
        claim = None if self._at_caps else self._claim()
        finished, self._finished = self._finished, []
        self._storing = {int(outcome["id"]) for outcome in finished}  # no longer count against the caps
        try:
            launch = await self.store.settle(finished, claim)
        except BaseException:
            self._finished[:0] = finished  # stored next round; until then they stay in flight
            raise
        for outcome in finished:
            self._in_flight.pop(outcome["id"], None)
        await self._launch(launch)

    def _claim(self) -> Claim | None:
        """What this process may claim now: as many due rows as it has room in flight for."""
        room = MAX_IN_FLIGHT - len(self._in_flight)
        if room <= 0 or self._client is None:
            return None
        expiry = wall_ms() + int((delivery_timeout(self._settings) + CLAIM_MARGIN_S) * 1000)
        return Claim(self._lease.holder, self._clock.now_ms(), expiry, room, self._within_caps)

    async def _launch(self, launch: list[Row]) -> None:
        """A task of its own for each claimed delivery."""
        targets: dict[int, _Target | None] = {}
        for delivery in launch:
            webhook_id = int(delivery["webhook_id"])
            if webhook_id not in targets:
                targets[webhook_id] = await self._target(webhook_id)
            self._in_flight[int(delivery["id"])] = webhook_id
            task = asyncio.create_task(self._send(delivery, targets[webhook_id]))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _within_caps(self, fresh: list[Row]) -> list[Row]:
        """The claimed deliveries to send now: at most MAX_IN_FLIGHT_PER_WEBHOOK in flight per webhook."""
        per_webhook: dict[int, int] = {}
        storing = self._storing
        for delivery_id, busy in self._in_flight.items():
            if delivery_id not in storing:
                per_webhook[busy] = per_webhook.get(busy, 0) + 1
        launch: list[Row] = []
        for delivery in fresh:
            webhook_id = int(delivery["webhook_id"])
            if per_webhook.get(webhook_id, 0) < MAX_IN_FLIGHT_PER_WEBHOOK:
                per_webhook[webhook_id] = per_webhook.get(webhook_id, 0) + 1
                launch.append(delivery)
        self._at_caps = bool(fresh) and not launch
        return launch

    async def _target(self, webhook_id: int) -> _Target | None:
        hook = await self._webhooks.get(webhook_id)
        if hook is None or not hook["valid"]:
            return None
        app = await self._apps.get(int(hook["app_id"]))
        if app is None:
            return None
        return _Target(str(hook["url"]), str(app["consumer_secret"]))

    async def _send(self, delivery: Row, target: _Target | None) -> None:
        attempts = int(delivery["attempts"])
        outcome: dict[str, Any] = {
            "id": int(delivery["id"]),
            "attempts": attempts,
            "last_status": delivery["last_status"],
            "last_latency_ms": delivery["last_latency_ms"],
            "delivered_at": None,
            "next_attempt_at": None,
            "state": "failed",
        }
        try:
            if target is None or self._client is None:
                return
            raw = str(delivery["body"]).encode()
            headers = [
                ("content-type", "application/json"),
                (self._signature_header, signature(target.secret, raw)),
                (EVENT_ID_HEADER, str(delivery["event_id"])),
            ]
            started = time.monotonic()
            status: int | None
            try:
                status = await self._client.post(target.url, raw, headers, delivery_timeout(self._settings))
            except (OSError, TimeoutError, ValueError):
                status = None
            now = self._clock.now_ms()
            attempts += 1
            outcome.update(
                attempts=attempts,
                last_status=status,
                last_latency_ms=int((time.monotonic() - started) * 1000),
            )
            if status == 200:
                outcome.update(state="delivered", delivered_at=now)
                return
            schedule = retry_schedule(self._settings.extra)
            if attempts <= len(schedule):
                outcome.update(state="pending", next_attempt_at=now + schedule[attempts - 1] * 1000)
        finally:
            self._finished.append(outcome)
            self._wake.set()
