"""One connection class for every stream that tails the event log, and the registry of one server's
open connections.

A stream is a `Selector` (which event kinds it reads and the lines each becomes) run by a
`StreamConnection`, which tails the log, sends keep-alives, counts delivered posts against the
project's usage cap and, when the connection is deleted through `/2/connections`, sends the in-band
`operational-disconnect` line before it ends. What differs between streams besides the selector is
their `Endpoint`: the name, the connection limit and keep-alive settings, and whether connections are
recorded. A recorded connection has a row (`stream_connections`), kept fresh by a heartbeat while it
is open and closed with its disconnect reason, so every process sharing the database lists the app's
connections and counts them against the limit; deleting one appends `stream.connections.delete` to
the event log, which the process holding it reads like any other event and ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from roost.config import Settings
from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.ids import TokenSource
from roost.core.records import Row
from roost.domain.packages import DEFAULT_PACKAGE, PACKAGES
from roost.domain.usage import Usage
from roost.events.tail import DEFAULT_KEEPALIVE_S, EventLog, Tail
from roost.storage.streams import StreamStore

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
YIELD_EVERY_EVENTS = 8  # of a batch: the loop turns this often while matching (issue 19, write p99)


def wall_ms() -> int:
    """Heartbeats use the host's clock: they tell whether a process is alive, which moving the roost
    clock for a test must not change."""
    return int(time.time() * 1000)


class Selector(Protocol):
    """What one stream sends: the event kinds it reads and the lines (if any) for each event."""

    kinds: frozenset[str] | None  # None: every kind
    counts_posts: bool  # lines are posts that count against the usage cap

    async def start(self) -> None: ...

    async def lines(self, event: Row) -> Sequence[bytes]: ...


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A stream as its connections are held: its name, the feature settings of its connection limit
    (per app, endpoint and partition) and keep-alive interval, and whether its connections have
    history rows (listed by `/2/connections`, limited across processes)."""

    name: str
    limit_setting: str = "stream_connection_limit"
    default_limit: int = 1
    keepalive_setting: str = "stream_keepalive_s"
    recorded: bool = True
    by_package: bool = False  # the app's package sets the connection limit (domain/packages.py)


@dataclass(frozen=True, slots=True)
class Opening:
    """What opening a stream needs to know of the request: who connects from where, when, and the
    time window asked for (`start_time`, `end_time` as sent, `backfill_minutes`)."""

    app_id: int
    project_id: int
    client_ip: str | None
    now_ms: int
    package: str = DEFAULT_PACKAGE  # the app's: its usage cap, connections and backfill
    start_ms: int | None = None
    end_ms: int | None = None
    end_time: str | None = None  # the raw `end_time`, echoed in its error
    backfill_minutes: int | None = None

    def since_ms(self) -> int | None:
        """Where the stream starts reading: `start_time`, else `backfill_minutes` ago, else now
        (None); refuses an `end_time` not after `start_time`."""
        start, end = self.start_ms, self.end_ms
        if start is not None and end is not None and end <= start:
            raise errors.invalid_request(
                [errors.param_error("end_time", self.end_time, "end_time must be after start_time")]
            )
        if start is None and self.backfill_minutes:
            return self.now_ms - self.backfill_minutes * 60_000
        return start


@dataclass(eq=False)
class Active:
    """One open connection of this server."""

    uuid: str
    app_id: int
    project_id: int
    endpoint: Endpoint
    partition: int | None
    connected_at: int
    package: str = DEFAULT_PACKAGE  # the app's: its usage cap
    stop_reason: str | None = None
    tail: Tail | None = field(default=None, repr=False)
    row_closed: bool = False  # the history row (if the endpoint has them) has been closed

    def kill(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
        if self.tail is not None:
            self.tail.interrupt()


class Registry:
    """Open connections of one server, bounded per (app, endpoint, partition) by a feature setting."""

    def __init__(self, store: StreamStore, settings: Settings, clock: Clock, tokens: TokenSource) -> None:
        self._store = store
        self._settings = settings  # read live: limits and keep-alive intervals are feature settings
        self._clock = clock
        self._tokens = tokens
        self.active: dict[str, Active] = {}
        # Ended here but their rows not yet closed: not counted against the limit meanwhile.
        self.ending: set[str] = set()
        # Set by `end_all`: the server is stopping, and a connection opened now ends at once (a client
        # reconnecting in that moment would otherwise hold the stop until its grace period ran out).
        self.stopping = False

    def connection_limit(self, endpoint: Endpoint, package: str) -> int:
        """Connections an app may hold to `endpoint`: its setting when set; else, where the package sets
        a number (the filtered stream), the package's; else the endpoint's default."""
        default = PACKAGES[package].stream_connections if endpoint.by_package else endpoint.default_limit
        return self._settings.whole(endpoint.limit_setting, default, positive=True)

    def keepalive_s(self, endpoint: Endpoint) -> float:
        return self._settings.number(endpoint.keepalive_setting, DEFAULT_KEEPALIVE_S, positive=True)

    def heartbeat_s(self) -> float:
        keepalive = self._settings.number("stream_keepalive_s", DEFAULT_KEEPALIVE_S, positive=True)
        return min(keepalive, HEARTBEAT_MAX_S)

    def fresh_since(self) -> int:
        """Rows with a heartbeat after this are open connections; older ones' processes are gone."""
        return wall_ms() - int((3 * self.heartbeat_s() + 2) * 1000)

    async def open(
        self,
        endpoint: Endpoint,
        app_id: int,
        project_id: int,
        partition: int | None,
        client_ip: str | None = None,
        package: str = DEFAULT_PACKAGE,
    ) -> Active:
        limit = self.connection_limit(endpoint, package)
        same = [
            c
            for c in self.active.values()
            if (c.app_id, c.endpoint.name, c.partition) == (app_id, endpoint.name, partition)
        ]
        if len(same) >= limit:
            raise errors.streaming_connection("TooManyConnections")
        # Connection ids are UUIDs (the platform's shape); random bits from the server's source.
        ident = str(uuid.UUID(int=self._tokens.randint(0, (1 << 128) - 1), version=4))
        now = self._clock.now_ms()
        entry = Active(ident, app_id, project_id, endpoint, partition, now, package)
        self.active[ident] = entry  # held before the first await: the limit check cannot race
        if self.stopping:
            entry.kill(SHUTDOWN)
        if not endpoint.recorded:
            return entry
        store = self._store
        try:
            await store.open_connection(
                ident, app_id, project_id, endpoint.name, partition, now, wall_ms(), client_ip
            )
            # The limit is the app's, whichever processes hold its connections: count them all once
            # this one is recorded (two racing processes may both refuse; neither goes over).
            count = await store.open_count(app_id, endpoint.name, partition, self.fresh_since(), self.ending)
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

    def end_all(self, reason: str = SHUTDOWN) -> int:
        """End every open connection at its next step (the server is stopping); returns how many."""
        self.stopping = True
        entries = list(self.active.values())
        for entry in entries:
            self.kill(entry, reason)
        return len(entries)

    async def touch(self, entry: Active) -> None:
        with contextlib.suppress(Exception):  # a missed heartbeat only ages the row
            await self._store.touch(entry.uuid, wall_ms())

    async def close(self, entry: Active, reason: str) -> None:
        self.active.pop(entry.uuid, None)
        if entry.row_closed or not entry.endpoint.recorded:
            self.ending.discard(entry.uuid)
            return
        entry.row_closed = True
        self.ending.add(entry.uuid)
        try:
            with contextlib.suppress(Exception):  # history is best effort; the slot is free already
                await self._store.close_connection(
                    entry.uuid, self._clock.now_ms(), entry.stop_reason or reason
                )
        finally:
            self.ending.discard(entry.uuid)


def disconnect_line(disconnect_type: str) -> bytes:
    return jsonio.dumps({"errors": [errors.operational_disconnect(disconnect_type)]}) + b"\r\n"


class StreamConnection:
    """The lines of one connection; closing it frees its slot and closes its history row."""

    def __init__(
        self,
        entry: Active,
        selector: Selector,
        *,
        registry: Registry,
        log: EventLog,
        usage: Usage,
        position: int,
        end_ms: int | None,
    ) -> None:
        self.entry = entry
        self._selector = selector
        self._registry = registry
        self._log = log
        self._usage = usage
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
                await self._registry.close(self.entry, END_TIME if self._ended else CLIENT)

    async def _run(self, position: int, end_ms: int | None) -> AsyncGenerator[bytes, None]:
        entry, selector, registry, usage = self.entry, self._selector, self._registry, self._usage
        kinds = selector.kinds
        await selector.start()
        tail = entry.tail = self._log.tail(position, registry.keepalive_s(entry.endpoint), end_ms)
        if entry.stop_reason is not None:
            tail.interrupt()
        loop = asyncio.get_running_loop()
        beat = registry.heartbeat_s() if entry.endpoint.recorded else None  # only rows have heartbeats
        next_beat = loop.time() + (beat or 0.0)
        async for batch in tail.batches():
            if beat is not None and loop.time() >= next_beat:
                next_beat = loop.time() + beat
                await registry.touch(entry)
            if not batch:
                yield b"\r\n"
                continue
            lines: list[bytes] = []
            for index, event in enumerate(batch):
                if index % YIELD_EVERY_EVENTS == YIELD_EVERY_EVENTS - 1:
                    await asyncio.sleep(0)  # matching a batch is long work that never pauses on SQLite
                kind = str(event["kind"])
                if kind == TERMINATE_EVENT:
                    if entry.uuid in _terminated(event):
                        entry.kill(OPERATOR)
                    continue
                if kinds is None or kind in kinds:
                    lines.extend(await selector.lines(event))
            if not lines:
                continue
            capped = False
            if selector.counts_posts:
                # Counted before they are sent: a post past the cap is never delivered.
                left = await usage.allowance(entry.project_id, entry.package)
                if len(lines) > left:
                    lines, capped = lines[:left], True
                await usage.record(entry.project_id, len(lines), entry.app_id)
            for out in lines:
                yield out
                tail.wrote()
            if capped:
                entry.stop_reason = USAGE_CAP
                problem = await usage.cap_problem(entry.project_id, entry.package)
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
