"""Webhook delivery: latency at light load and throughput under a burst, measured end to end against a
real `roost serve` and a local signed-delivery receiver. Writes bench/DELIVERY.md.

    .venv/bin/python bench/delivery.py [--posts 300] [--burst 800] [--clients 8]

Latency is receiver arrival time minus the time the `POST /2/tweets` 201 arrived at the client, both
read with time.perf_counter in this process and matched by post id (tweet_create_events[0].id_str).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import hmac
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
from aiohttp import web

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SIGNATURE_HEADER = "x-twitter-webhooks-signature"
EVENT_ID_HEADER = "x-roost-event-id"
TARGET_RATE = 1000.0  # signed deliveries per second
TARGET_P99_MS = 100.0
LIGHT_WAIT_S = 5.0  # per post, at light load
DRAIN_WAIT_S = 60.0  # after the burst


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _sign(secret: bytes, message: bytes) -> str:
    return "sha256=" + base64.b64encode(hmac.new(secret, message, hashlib.sha256).digest()).decode("ascii")


@dataclass
class Receiver:
    """An aiohttp receiver on its own thread and event loop: answers the CRC and records each POST."""

    secret: str
    port: int = 0
    arrivals: dict[str, float] = field(default_factory=dict)  # post id -> perf_counter at arrival
    times: list[float] = field(default_factory=list)
    bad_signatures: int = 0
    missing_event_id: int = 0
    unparsed: int = 0
    posts: int = 0
    crc_calls: int = 0
    fail_status: int = 0  # when set, every POST is refused with this status (and not counted as arrived)
    refused: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _waiters: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[float]]] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None
    _runner: web.AppRunner | None = None
    _thread: threading.Thread | None = None

    async def _crc(self, request: web.Request) -> web.Response:
        self.crc_calls += 1
        token = request.query.get("crc_token", "")
        body = orjson.dumps({"response_token": _sign(self.secret.encode(), token.encode())})
        return web.Response(body=body, content_type="application/json")

    async def _post(self, request: web.Request) -> web.Response:
        raw = await request.read()
        if self.fail_status:
            with self._lock:
                self.refused += 1
            return web.Response(status=self.fail_status)
        arrived = time.perf_counter()
        good = hmac.compare_digest(
            request.headers.get(SIGNATURE_HEADER, ""), _sign(self.secret.encode(), raw)
        )
        post_id: str | None = None
        waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[float]] | None = None
        with contextlib.suppress(orjson.JSONDecodeError, KeyError, IndexError, TypeError):
            post_id = str(orjson.loads(raw)["tweet_create_events"][0]["id_str"])
        with self._lock:
            self.posts += 1
            self.times.append(arrived)
            self.bad_signatures += int(not good)
            self.missing_event_id += int(not request.headers.get(EVENT_ID_HEADER))
            if post_id is None:
                self.unparsed += 1
            else:
                self.arrivals.setdefault(post_id, arrived)
                waiter = self._waiters.pop(post_id, None)
        if waiter is not None:
            loop, future = waiter
            loop.call_soon_threadsafe(lambda: future.done() or future.set_result(arrived))
        return web.Response(body=b"{}", content_type="application/json")

    def start(self) -> None:
        ready = threading.Event()
        errors: list[BaseException] = []

        async def setup() -> None:
            app = web.Application()
            app.router.add_get("/{tail:.*}", self._crc)
            app.router.add_post("/{tail:.*}", self._post)
            self._runner = web.AppRunner(app, access_log=None)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=1024)
            await site.start()
            server = site._server
            assert server is not None and server.sockets
            self.port = int(server.sockets[0].getsockname()[1])

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(setup())
            except BaseException as exc:  # handed to the starting thread
                errors.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            if self._runner is not None:
                loop.run_until_complete(self._runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=run, name="receiver", daemon=True)
        self._thread.start()
        if not ready.wait(10) or errors:
            raise RuntimeError(f"receiver did not start: {errors}")

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook-{uuid.uuid4().hex[:8]}"

    def expect(self, post_id: str) -> asyncio.Future[float]:
        """A future that resolves to the arrival time of the delivery for `post_id` (maybe already in)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[float] = loop.create_future()
        with self._lock:
            arrived = self.arrivals.get(post_id)
            if arrived is None:
                self._waiters[post_id] = (loop, future)
        if arrived is not None:
            future.set_result(arrived)
        return future

    def arrived_count(self, ids: set[str]) -> int:
        with self._lock:
            return sum(1 for post_id in ids if post_id in self.arrivals)

    def drop_waiter(self, post_id: str) -> None:
        with self._lock:
            self._waiters.pop(post_id, None)


class Server:
    def __init__(self, tmp: Path) -> None:
        self.port = _port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log = (tmp / "server.log").open("wb")
        command = [
            sys.executable, "-m", "roost", "serve", "--port", str(self.port),
            "--db", f"sqlite:///{tmp}/roost.db", "--no-rate-limits",
        ]  # fmt: skip
        env = {**os.environ, "ROOST_DATA_DIR": str(tmp)}
        self.process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"roost exited with {self.process.returncode}; see {self.log.name}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base_url + "/_roost/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.05)
        raise TimeoutError("roost did not become healthy")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.log.close()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def _create(client: httpx.AsyncClient, token: str, text: str) -> tuple[str, float]:
    response = await client.post(
        "/2/tweets", json={"text": text}, headers={"Authorization": f"Bearer {token}"}
    )
    done = time.perf_counter()
    if response.status_code != 201:
        raise RuntimeError(f"POST /2/tweets -> {response.status_code}: {response.text[:300]}")
    return str(response.json()["data"]["id"]), done


async def light_load(
    client: httpx.AsyncClient, token: str, receiver: Receiver, posts: int, run: str
) -> dict[str, Any]:
    """One post at a time; the next is created only after the previous delivery arrived (or timed out)."""
    latencies: list[float] = []
    missing = 0
    for index in range(posts):
        post_id, created = await _create(client, token, f"light {run} #{index}")
        future = receiver.expect(post_id)
        try:
            arrived = await asyncio.wait_for(future, LIGHT_WAIT_S)
        except TimeoutError:
            receiver.drop_waiter(post_id)
            missing += 1
            continue
        latencies.append((arrived - created) * 1000)
    return {"latencies": latencies, "expected": posts, "delivered": posts - missing}


async def burst(
    client: httpx.AsyncClient, token: str, receiver: Receiver, total: int, clients: int, run: str
) -> dict[str, Any]:
    created: dict[str, float] = {}
    started = time.perf_counter()

    async def worker(number: int) -> None:
        for index in range(number, total, clients):
            post_id, done = await _create(client, token, f"burst {run} #{index}")
            created[post_id] = done

    await asyncio.gather(*(worker(n) for n in range(clients)))
    created_end = time.perf_counter()
    ids = set(created)
    deadline = time.perf_counter() + DRAIN_WAIT_S
    while receiver.arrived_count(ids) < len(ids) and time.perf_counter() < deadline:
        await asyncio.sleep(0.02)
    with receiver._lock:
        arrivals = {post_id: receiver.arrivals[post_id] for post_id in ids if post_id in receiver.arrivals}
    times = sorted(arrivals.values())
    span = times[-1] - times[0] if len(times) > 1 else 0.0
    lags = [(arrivals[post_id] - created[post_id]) * 1000 for post_id in arrivals]
    return {
        "expected": total,
        "delivered": len(arrivals),
        "create_s": created_end - started,
        "create_rate": total / (created_end - started),
        "delivery_span_s": span,
        "delivery_rate": (len(times) - 1) / span if span > 0 else 0.0,
        "end_to_end_s": (times[-1] - started) if times else 0.0,
        "drain_after_last_create_ms": (times[-1] - created_end) * 1000 if times else 0.0,
        "lag_p50": _pct(lags, 0.5) if lags else 0.0,
        "lag_p99": _pct(lags, 0.99) if lags else 0.0,
        "lag_max": max(lags) if lags else 0.0,
    }


async def drain(
    client: httpx.AsyncClient, token: str, receiver: Receiver, total: int, clients: int, run: str
) -> dict[str, Any]:
    """Dispatcher throughput on a backlog: `total` deliveries fail once (receiver answers 503), then
    the receiver recovers and the clock moves past the first retry delay, so all of them are due at
    once; the rate is deliveries received per second from that moment to the last arrival."""
    receiver.fail_status = 503
    refused_before = receiver.refused
    ids: list[str] = []

    async def worker(number: int) -> None:
        for index in range(number, total, clients):
            post_id, _ = await _create(client, token, f"drain {run} #{index}")
            ids.append(post_id)

    await asyncio.gather(*(worker(n) for n in range(clients)))
    deadline = time.perf_counter() + DRAIN_WAIT_S
    while receiver.refused - refused_before < total and time.perf_counter() < deadline:
        await asyncio.sleep(0.02)
    receiver.fail_status = 0
    wanted = set(ids)
    started = time.perf_counter()
    (await client.post("/_roost/clock", json={"advance_seconds": 61})).raise_for_status()
    deadline = time.perf_counter() + DRAIN_WAIT_S
    while receiver.arrived_count(wanted) < total and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    with receiver._lock:
        times = [receiver.arrivals[post_id] for post_id in wanted if post_id in receiver.arrivals]
    span = (max(times) - started) if times else 0.0
    return {
        "expected": total,
        "delivered": len(times),
        "span_s": span,
        "rate": len(times) / span if span > 0 else 0.0,
    }


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def report(
    light: dict[str, Any],
    heavy: dict[str, Any],
    backlog: dict[str, Any],
    receiver: Receiver,
    args: argparse.Namespace,
) -> str:
    lat = light["latencies"]
    p50, p99, worst = (_pct(lat, 0.5), _pct(lat, 0.99), max(lat)) if lat else (float("nan"),) * 3
    rate_ok = backlog["rate"] >= TARGET_RATE and backlog["delivered"] == backlog["expected"]
    p99_ok = bool(lat) and p99 < TARGET_P99_MS and light["delivered"] == light["expected"]
    sig_ok = receiver.bad_signatures == 0
    ratio = heavy["delivery_rate"] / heavy["create_rate"] if heavy["create_rate"] else 0.0

    def verdict(ok: bool) -> str:
        return "**met**" if ok else "**NOT met**"

    lines = [
        "# Webhook delivery benchmark",
        "",
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M:%S UTC')}",
        f"- machine: {os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {_cpu_model()}",
        f"- python {platform.python_version()}, one `roost serve` process, SQLite, `--no-rate-limits`, "
        "demo data; receiver: aiohttp on 127.0.0.1 in the client process (own thread and loop)",
        "- command: `.venv/bin/python bench/delivery.py "
        f"--posts {args.posts} --burst {args.burst} --clients {args.clients} --backlog {args.backlog}`",
        "",
        "## Light load (one post at a time, next after the previous delivery arrived)",
        "",
        "Latency = receiver arrival − arrival of the `201` for `POST /2/tweets` (same clock, same process).",
        "",
        "| figure | value |",
        "|---|---|",
        f"| delivered / expected | {light['delivered']} / {light['expected']} |",
        f"| p50 | {p50:.2f} ms |",
        f"| p99 | {p99:.2f} ms |",
        f"| max | {worst:.2f} ms |",
        f"| min | {min(lat) if lat else float('nan'):.2f} ms |",
        f"| mean | {statistics.fmean(lat) if lat else float('nan'):.2f} ms |",
        "",
        f"## Burst ({args.burst} posts from {args.clients} concurrent clients)",
        "",
        "| figure | value |",
        "|---|---|",
        f"| delivered / expected | {heavy['delivered']} / {heavy['expected']} |",
        f"| creation rate (client, 201s) | {heavy['create_rate']:.0f} posts/s "
        f"over {heavy['create_s']:.2f} s |",
        f"| delivery rate (receiver, first→last arrival) | {heavy['delivery_rate']:.0f} deliveries/s "
        f"over {heavy['delivery_span_s']:.2f} s |",
        f"| delivery rate / creation rate | {ratio:.2f} |",
        f"| last delivery after last 201 | {heavy['drain_after_last_create_ms']:.1f} ms |",
        f"| burst start → last delivery | {heavy['end_to_end_s']:.2f} s |",
        f"| lag 201→delivery p50 / p99 / max | {heavy['lag_p50']:.1f} / {heavy['lag_p99']:.1f} / "
        f"{heavy['lag_max']:.1f} ms |",
        "",
        f"## Backlog drain ({args.backlog} deliveries due at once)",
        "",
        "Each delivery first failed (receiver answered 503); then the receiver recovered and the clock "
        "moved past the first retry delay (`POST /_roost/clock`), making all of them due together. "
        "Rate = deliveries received ÷ time from the clock move to the last arrival: the dispatcher's "
        "signed-delivery throughput, independent of how fast posts can be created.",
        "",
        "| figure | value |",
        "|---|---|",
        f"| delivered / expected | {backlog['delivered']} / {backlog['expected']} |",
        f"| drain time | {backlog['span_s']:.2f} s |",
        f"| signed deliveries per second | {backlog['rate']:.0f} |",
        "",
        "## Receiver totals",
        "",
        "| figure | value |",
        "|---|---|",
        f"| POSTs received | {receiver.posts} |",
        f"| bad signatures | {receiver.bad_signatures} |",
        f"| missing `{EVENT_ID_HEADER}` | {receiver.missing_event_id} |",
        f"| bodies without tweet_create_events | {receiver.unparsed} |",
        f"| CRC GETs answered | {receiver.crc_calls} |",
        f"| POSTs refused on purpose (503, backlog phase) | {receiver.refused} |",
        "",
        "## Targets",
        "",
        f"- ≥ {TARGET_RATE:.0f} signed deliveries/s: {verdict(rate_ok)} "
        f"({backlog['rate']:.0f}/s draining a backlog; {heavy['delivery_rate']:.0f}/s during the burst, "
        "bounded by the creation rate)",
        f"- p99 < {TARGET_P99_MS:.0f} ms at light load: {verdict(p99_ok)} ({p99:.2f} ms)",
        f"- 0 bad signatures: {verdict(sig_ok)} ({receiver.bad_signatures})",
    ]
    if heavy["create_rate"] < TARGET_RATE:
        keeps_up = "keeps up with" if ratio >= 0.95 else "falls behind"
        lines.append(
            f"- note: this burst was created at only {heavy['create_rate']:.0f} posts/s (server, client "
            f"and receiver share {os.cpu_count()} CPUs), so it cannot by itself show "
            f"{TARGET_RATE:.0f} deliveries/s; "
            f"the ratio {ratio:.2f} says delivery {keeps_up} creation."
        )
    return "\n".join(lines) + "\n"


async def run(args: argparse.Namespace, base_url: str, receiver: Receiver) -> str:
    limits = httpx.Limits(max_connections=args.clients + 2, max_keepalive_connections=args.clients + 2)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits, trust_env=False) as client:
        creds = (await client.get("/_roost/credentials")).raise_for_status().json()
        app_bearer = {"Authorization": f"Bearer {creds['bearer_token']}"}
        user_token = str(creds["oauth2_user_token"])
        response = await client.post("/2/webhooks", json={"url": receiver.url()}, headers=app_bearer)
        if response.status_code != 200:
            raise RuntimeError(f"POST /2/webhooks -> {response.status_code}: {response.text[:300]}")
        hook_id = response.json()["data"]["id"]
        path = f"/2/account_activity/webhooks/{hook_id}/subscriptions/all"
        response = await client.post(path, json={}, headers={"Authorization": f"Bearer {user_token}"})
        if response.status_code != 200:
            raise RuntimeError(f"subscribe -> {response.status_code}: {response.text[:300]}")
        tag = uuid.uuid4().hex[:10]
        for index in range(5):  # warm-up, not measured
            await light_load(client, user_token, receiver, 1, f"warm {tag}.{index}")
        light = await light_load(client, user_token, receiver, args.posts, tag)
        heavy = await burst(client, user_token, receiver, args.burst, args.clients, tag)
        backlog = await drain(client, user_token, receiver, args.backlog, args.clients, tag)
        return report(light, heavy, backlog, receiver, args)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--posts", type=int, default=300, help="posts at light load")
    parser.add_argument("--burst", type=int, default=800, help="posts in the burst")
    parser.add_argument("--backlog", type=int, default=3000, help="deliveries in the backlog drain")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients in the burst")
    parser.add_argument("--timeout", type=float, default=600.0, help="overall bound, seconds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="roost-delivery-") as tmp_name:
        tmp = Path(tmp_name)
        server = Server(tmp)
        receiver: Receiver | None = None
        try:
            server.wait_ready()
            creds = httpx.get(server.base_url + "/_roost/credentials", timeout=10).raise_for_status().json()
            receiver = Receiver(secret=str(creds["consumer_secret"]))
            receiver.start()
            text = asyncio.run(asyncio.wait_for(run(args, server.base_url, receiver), args.timeout))
        except BaseException:
            with contextlib.suppress(OSError):
                sys.stderr.write((tmp / "server.log").read_text()[-3000:])
            raise
        finally:
            server.stop()
            if receiver is not None:
                receiver.stop()
    (HERE / "DELIVERY.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
