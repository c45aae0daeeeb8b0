"""Fallback HTTP/1.1 load generator (asyncio + uvloop, raw keep-alive sockets) for when wrk is missing.

    python bench/loadgen.py --port 8101 --mode single --ids-file ids.txt --token T \
        --connections 32 --duration 10 --warmup 2

Same requests as bench/load.lua. Each connection sends one request, reads the whole response
(Content-Length framed, as both servers answer here), checks its status, then sends the next. Responses
completed during the warm-up are not counted. Prints one line `LOADGEN_RESULT {json}` with the same
keys as the wrk script. Only loopback targets are accepted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

T = TypeVar("T")
FIELDS = "?expansions=author_id&tweet.fields=created_at,public_metrics"


@dataclass
class Totals:
    measuring: bool = False
    stopping: bool = False
    latencies_ns: list[int] = field(default_factory=list)
    non2xx: int = 0
    responses: int = 0
    bytes: int = 0
    read_errors: int = 0
    connect_errors: int = 0


def request_factory(mode: str, ids: list[str], token: str, port: int, seed: int) -> Callable[[], bytes]:
    rng = random.Random(seed)
    head = f"Host: 127.0.0.1:{port}\r\n" + (f"Authorization: Bearer {token}\r\n" if token else "")

    def build(path: str) -> bytes:
        return f"GET {path} HTTP/1.1\r\n{head}\r\n".encode("latin-1")

    if mode == "bare":
        fixed = build("/")
        return lambda: fixed
    if mode == "paths":  # whole paths with their query, one per line (pages of a list timeline)
        if not ids:
            raise SystemExit("mode paths needs at least one path")
        return lambda: build(rng.choice(ids))
    if len(ids) < 100:
        raise SystemExit(f"mode {mode} needs at least 100 ids")
    if mode == "single":
        return lambda: build(f"/2/tweets/{rng.choice(ids)}{FIELDS}")
    return lambda: build("/2/tweets?ids=" + ",".join(rng.sample(ids, 100)))


class Connection(asyncio.Protocol):
    def __init__(
        self,
        totals: Totals,
        next_request: Callable[[], bytes],
        closed: asyncio.Future[None],
        interval_ns: int = 0,
    ) -> None:
        self.totals = totals
        # With --rate, each connection sends at most one request per interval (an open pace below
        # saturation: CPU per request then measures the server, not a fight for the CPUs).
        self.interval_ns = interval_ns
        self.next_due = 0
        self.next_request = next_request
        self.closed = closed
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.sent_at = 0
        self.expect: int | None = None  # total bytes of the response in flight, once headers are read
        self.status = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports do not subclass it
        self.send()

    def send(self) -> None:
        assert self.transport is not None
        if self.totals.stopping:
            self.transport.close()
            return
        self.expect = None
        self.sent_at = time.perf_counter_ns()
        self.transport.write(self.next_request())

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            if self.expect is None:
                end = self.buffer.find(b"\r\n\r\n")
                if end < 0:
                    return
                head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
                self.status = int(head[0].split(" ", 2)[1])
                length = None
                for line in head[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:  # not produced by the servers under test; count it and drop the link
                    self.totals.read_errors += 1
                    assert self.transport is not None
                    self.transport.close()
                    return
                self.expect = end + 4 + length
            if len(self.buffer) < self.expect:
                return
            self.finish(self.expect)
            return

    def finish(self, size: int) -> None:
        totals = self.totals
        if totals.measuring:
            totals.latencies_ns.append(time.perf_counter_ns() - self.sent_at)
            totals.responses += 1
            totals.bytes += size
            if not 200 <= self.status <= 299:
                totals.non2xx += 1
        del self.buffer[:size]
        if not self.interval_ns:
            self.send()
            return
        now = time.perf_counter_ns()
        self.next_due = max(self.next_due + self.interval_ns, now - self.interval_ns)
        delay = self.next_due - now
        if delay > 0:
            asyncio.get_running_loop().call_later(delay / 1e9, self.send)
        else:
            self.send()

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None or not self.totals.stopping:
            self.totals.read_errors += 1
        if not self.closed.done():
            self.closed.set_result(None)


def protocol(
    totals: Totals, next_request: Callable[[], bytes], closed: asyncio.Future[None], interval_ns: int = 0
) -> Callable[[], Connection]:
    return lambda: Connection(totals, next_request, closed, interval_ns)


def percentile(sorted_values: list[int], fraction: float) -> int:
    if not sorted_values:
        return 0
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


async def run(args: argparse.Namespace) -> dict[str, int]:
    ids = Path(args.ids_file).read_text().split() if args.ids_file else []
    totals = Totals()
    loop = asyncio.get_running_loop()
    closers: list[asyncio.Future[None]] = []
    for index in range(args.connections):
        closed: asyncio.Future[None] = loop.create_future()
        factory = request_factory(args.mode, ids, args.token, args.port, args.seed + index)
        try:
            interval_ns = int(args.connections / args.rate * 1e9) if args.rate else 0
            await loop.create_connection(
                protocol(totals, factory, closed, interval_ns), "127.0.0.1", args.port
            )
        except OSError:
            totals.connect_errors += 1
            closed.set_result(None)
        closers.append(closed)
    await asyncio.sleep(args.warmup)
    totals.measuring = True
    started = time.perf_counter_ns()
    await asyncio.sleep(args.duration)
    totals.measuring = False
    elapsed_ns = time.perf_counter_ns() - started
    totals.stopping = True
    await asyncio.wait_for(asyncio.gather(*closers), timeout=10)
    latencies = sorted(totals.latencies_ns)
    return {
        "requests": totals.responses,
        "duration_us": elapsed_ns // 1000,
        "bytes": totals.bytes,
        "p50_us": percentile(latencies, 0.50) // 1000,
        "p90_us": percentile(latencies, 0.90) // 1000,
        "p99_us": percentile(latencies, 0.99) // 1000,
        "max_us": (latencies[-1] if latencies else 0) // 1000,
        "mean_us": (sum(latencies) // len(latencies) if latencies else 0) // 1000,
        "non2xx": totals.non2xx,
        "responses": totals.responses,
        "connect_errors": totals.connect_errors,
        "read_errors": totals.read_errors,
        "write_errors": 0,
        "timeouts": 0,
        "status_errors": totals.non2xx,
    }


def run_with_uvloop(main: Coroutine[Any, Any, T]) -> T:
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=("bare", "single", "batch", "paths"), required=True)
    parser.add_argument("--ids-file", default="")
    parser.add_argument("--token", default="")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rate", type=float, default=0.0, help="requests/s over all connections (0: no pace)"
    )
    args = parser.parse_args()
    if not 0 < args.duration <= 600 or not 0 <= args.warmup <= 60:
        parser.error("duration must be in (0, 600] s and warm-up in [0, 60] s")
    print("LOADGEN_RESULT " + json.dumps(run_with_uvloop(run(args))), flush=True)


if __name__ == "__main__":
    main()
