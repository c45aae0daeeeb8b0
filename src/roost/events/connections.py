"""One connection class for every stream that tails the event log, and the registry of open
connections behind `/2/connections`.

A stream is a `Selector` (which event kinds it reads and the line, if any, each becomes) run by a
`StreamConnection`, which tails the log, sends keep-alives, counts delivered posts against the
project's usage cap and, when the connection is deleted through `/2/connections`, sends the in-band
`operational-disconnect` line before it ends. Open connections are held per server (process) in a
`Registry`; each one also has a row (`stream_connections`), kept fresh by a heartbeat while it is
open and closed with its disconnect reason, so every process sharing the database lists the app's
connections, and deleting one appends `stream.connections.delete` to the event log, which the
process holding it reads like any other event and ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol

from roost.core import errors, jsonio
from roost.domain.usage import Usage
from roost.events.tail import DEFAULT_KEEPALIVE_S, Tail
from roost.platform.pipeline import Call, Stream
from roost.services import Services
from roost.storage.activity import ActivityStore
from roost.storage.db import Row
from roost.storage.events import append_event
from roost.storage.streams import StreamStore

log = logging.getLogger("roost.stream")

# Disconnect reasons recorded in the history (`GET /2/connections` → `disconnect_reason`).
OPERATOR = "operator_disconnect"  # DELETE /2/connections* (the platform's example value)
CLIENT = "client_disconnect"
END_TIME = "end_time_reached"
USAGE_CAP = "usage_cap_exceeded"
OVER_LIMIT = "too_many_connections"  # refused at connect: another process held the app's last slot
SHUTDOWN = "server_shutdown"  # the server was stopped
FORCE_DISCONNECT = "ForceDisconnect"  # the in-band disconnect_type sent to a deleted connection
TERMINATE_EVENT = "stream.connections.delete"  # payload {"uuids": [...]}
HEARTBEAT_MAX_S = 10.0


def wall_ms() -> int:
    """Heartbeats use the host's clock: they tell whether a process is alive, which moving the roost
    clock for a test must not change."""
    return int(time.time() * 1000)


def usage_of(services: Services) -> Usage:
    return Usage(StreamStore(services.db), services.clock, services.settings)


def heartbeat_s(services: Services) -> float:
    keepalive = services.settings.number("stream_keepalive_s", DEFAULT_KEEPALIVE_S, positive=True)
    return min(keepalive, HEARTBEAT_MAX_S)


def fresh_since(services: Services) -> int:
    """Rows with a heartbeat after this are open connections; older ones' processes are gone."""
    return wall_ms() - int((3 * heartbeat_s(services) + 2) * 1000)


class Selector(Protocol):
    """What one stream sends: the event kinds it reads and the line (if any) for each event."""

    kinds: frozenset[str]
    counts_posts: bool  # lines are posts that count against the usage cap

    async def start(self) -> None: ...

    async def line(self, event: Row) -> bytes | None: ...


@dataclass(eq=False)
class Active:
    """One open connection of this server."""

    uuid: str
    app_id: int
    project_id: int
    endpoint: str
    partition: int | None
    connected_at: int
    stop_reason: str | None = None
    tail: Tail | None = field(default=None, repr=False)
    recorded: bool = False  # the history row has been closed

    def kill(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
        if self.tail is not None:
            self.tail.interrupt()


class Registry:
    """Open connections of one server, bounded per (app, endpoint, partition) by a feature setting."""

    def __init__(self) -> None:
        self.active: dict[str, Active] = {}
        # Ended here but their rows not yet closed: not counted against the limit meanwhile.
        self.ending: set[str] = set()

    def of_app(self, app_id: int) -> list[Active]:
        found = [c for c in self.active.values() if c.app_id == app_id]
        return sorted(found, key=lambda c: (-c.connected_at, c.uuid))

    async def open(
        self,
        services: Services,
        app_id: int,
        project_id: int,
        endpoint: str,
        partition: int | None,
        limit_setting: str = "stream_connection_limit",
        client_ip: str | None = None,
    ) -> Active:
        limit = services.settings.whole(limit_setting, 1, positive=True)
        same = [
            c
            for c in self.active.values()
            if (c.app_id, c.endpoint, c.partition) == (app_id, endpoint, partition)
        ]
        if len(same) >= limit:
            raise errors.streaming_connection("TooManyConnections")
        # Connection ids are UUIDs (the platform's shape); random bits from the server's source.
        ident = str(uuid.UUID(int=services.tokens.randint(0, (1 << 128) - 1), version=4))
        now = services.clock.now_ms()
        entry = Active(ident, app_id, project_id, endpoint, partition, now)
        self.active[ident] = entry  # held before the first await: the limit check cannot race
        store = StreamStore(services.db)
        try:
            await store.open_connection(
                ident, app_id, project_id, endpoint, partition, now, wall_ms(), client_ip
            )
            # The limit is the app's, whichever processes hold its connections: count them all once
            # this one is recorded (two racing processes may both refuse; neither goes over).
            count = await store.open_count(app_id, endpoint, partition, fresh_since(services), self.ending)
            if count > limit:
                await store.close_connection(ident, now, OVER_LIMIT)
                raise errors.streaming_connection("TooManyConnections")
        except Exception:
            self.active.pop(ident, None)
            raise
        return entry

    def kill(self, entry: Active, reason: str = OPERATOR) -> None:
        """End a connection: it sends the disconnect line and closes; its slot is free at once."""
        entry.kill(reason)
        self.active.pop(entry.uuid, None)
        self.ending.add(entry.uuid)

    async def close(self, services: Services, entry: Active, reason: str) -> None:
        self.active.pop(entry.uuid, None)
        if entry.recorded:
            return
        entry.recorded = True
        self.ending.add(entry.uuid)
        try:
            with contextlib.suppress(Exception):  # history is best effort; the slot is free already
                await StreamStore(services.db).close_connection(
                    entry.uuid, services.clock.now_ms(), entry.stop_reason or reason
                )
        finally:
            self.ending.discard(entry.uuid)


_registries: dict[int, Registry] = {}


def registry(services: Services) -> Registry:
    found = _registries.get(id(services))
    if found is None:
        found = _registries[id(services)] = Registry()
    return found


def disconnect_line(disconnect_type: str) -> bytes:
    return jsonio.dumps({"errors": [errors.operational_disconnect(disconnect_type)]}) + b"\r\n"


class StreamConnection:
    """The lines of one connection; closing it frees its slot and closes its history row."""

    def __init__(
        self,
        services: Services,
        entry: Active,
        selector: Selector,
        position: int,
        end_ms: int | None,
    ) -> None:
        self._services = services
        self.entry = entry
        self._selector = selector
        self._lines = self._run(position, end_ms)
        self._closed = False
        self._ended = False

    def __aiter__(self) -> StreamConnection:
        return self

    async def __anext__(self) -> bytes:
        return await self._lines.__anext__()

    async def aclose(self) -> None:
        try:
            await self._lines.aclose()
        finally:
            if not self._closed:
                self._closed = True
                reason = END_TIME if self._ended else CLIENT
                await registry(self._services).close(self._services, self.entry, reason)

    async def _run(self, position: int, end_ms: int | None) -> AsyncIterator[bytes]:
        services, entry, selector = self._services, self.entry, self._selector
        keepalive = services.settings.number("stream_keepalive_s", DEFAULT_KEEPALIVE_S, positive=True)
        await selector.start()
        tail = entry.tail = Tail(services, position, keepalive, end_ms)
        if entry.stop_reason is not None:
            tail.interrupt()
        store, loop, beat = StreamStore(services.db), asyncio.get_running_loop(), heartbeat_s(services)
        usage = usage_of(services)
        next_beat = loop.time() + beat
        async for batch in tail.batches():
            if loop.time() >= next_beat:
                next_beat = loop.time() + beat
                with contextlib.suppress(Exception):  # a missed heartbeat only ages the row
                    await store.touch(entry.uuid, wall_ms())
            if not batch:
                yield b"\r\n"
                continue
            lines: list[bytes] = []
            for event in batch:
                kind = str(event["kind"])
                if kind == TERMINATE_EVENT:
                    if entry.uuid in _terminated(event):
                        entry.kill(OPERATOR)
                    continue
                if kind in selector.kinds:
                    out = await selector.line(event)
                    if out is not None:
                        lines.append(out)
            if not lines:
                continue
            capped = False
            if selector.counts_posts:
                # Counted before they are sent: a post past the cap is never delivered.
                left = await usage.allowance(entry.project_id)
                if len(lines) > left:
                    lines, capped = lines[:left], True
                await usage.record(entry.project_id, len(lines), entry.app_id)
            for out in lines:
                yield out
                tail.wrote()
            if capped:
                entry.stop_reason = USAGE_CAP
                problem = await usage.cap_problem(entry.project_id)
                if problem is not None:
                    yield jsonio.dumps({"errors": [problem.body]}) + b"\r\n"
                return
        if entry.stop_reason == OPERATOR:
            yield disconnect_line(FORCE_DISCONNECT)
            return
        self._ended = not tail.interrupted


def _terminated(event: Row) -> list[str]:
    try:
        uuids = jsonio.loads(event["payload"])["uuids"]
    except (KeyError, TypeError, ValueError):
        return []  # a row not following the conventions names no connection
    return [str(u) for u in uuids] if isinstance(uuids, list) else []


async def active_rows(services: Services, app_id: int) -> list[Row]:
    """The app's open connections in every process sharing the database, newest first."""
    return await StreamStore(services.db).active_of_app(app_id, fresh_since(services))


async def terminate(services: Services, app_id: int, uuids: list[str]) -> None:
    """End connections wherever they are held: this process's at once; the rows are closed and a
    `stream.connections.delete` event tells the process holding any other one to end it."""
    if not uuids:
        return
    local = registry(services)
    for ident in uuids:
        entry = local.active.get(ident)
        if entry is not None and entry.app_id == app_id:
            local.kill(entry)
    now = services.clock.now_ms()
    async with services.db.transaction() as tx:
        for ident in uuids:
            await StreamStore.close_in(tx, ident, now, OPERATOR)
        await append_event(
            tx,
            event_id=services.ids.next_id(),
            kind=TERMINATE_EVENT,
            created_at=now,
            user_id=None,
            object_id=app_id,
            payload={"uuids": uuids},
        )


async def start_position(services: Services, since_ms: int | None) -> int:
    """The log position a connection starts after: now, or the first event at or after `since_ms`."""
    store = ActivityStore(services.db)
    position = await store.max_position()
    if since_ms is not None:
        before = await store.position_before(since_ms)
        position = position if before is None else min(before, position)
    return position


async def open_stream(call: Call, endpoint: str, selector: Selector, partition: int | None = None) -> Stream:
    """The common connect step: time window (`backfill_minutes`, `start_time`, `end_time`), the usage
    cap for post streams, the connection limit, then the streaming 200."""
    services, params = call.services, call.params
    start, end = params.get("start_time"), params.get("end_time")
    if start is not None and end is not None and end <= start:
        raise errors.invalid_request(
            [errors.param_error("end_time", call.raw["end_time"], "end_time must be after start_time")]
        )
    since = start
    if since is None and params.get("backfill_minutes"):
        since = call.now_ms - int(params["backfill_minutes"]) * 60_000
    principal = call.principal
    if selector.counts_posts:
        await usage_of(services).ensure_under_cap(principal.project_id)
    position = await start_position(services, since)
    entry = await registry(services).open(
        services, principal.app_id, principal.project_id, endpoint, partition, client_ip=call.client_ip
    )
    return Stream(StreamConnection(services, entry, selector, position, end))
