"""Soak: two `roost serve` processes (two ports, one fresh PostgreSQL database) under a modest mixed load
for --minutes, checking stability rather than speed. Writes bench/SOAK.md.

    .venv/bin/python -m bench.soak [--minutes 10] [--rate 50] [--write-rate 5] [--sample-every 30]
    .venv/bin/python -m bench.soak --minutes 0.5 --sample-every 5 --warm-s 10   # a quick check

Load, spread over both processes alternately (each kind of request alternates on its own): single post
lookups, `GET /2/users/me`, `GET /2/tweets/search/recent?query=soak` and `POST /2/tweets` (text with
"soak"), at --rate requests/s in all, --write-rate of them writes (open loop: a slow answer does not slow
the schedule). Meanwhile a filtered stream (rule `soak`) is held open on process B and a webhook receiver
in this process is subscribed to the demo user, so posts written on either process must reach both.
After the load, up to 60 s for the deliveries and the stream to catch up.

Recorded: every status (5xx must be 0), acknowledged posts never delivered to the webhook (must be 0),
posts seen on the stream against posts written, and each process's VmRSS every --sample-every seconds:
first, max, last, and the growth from the first sample at or after --warm-s (60: the first minute warms
caches) to the last.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# Run as `python bench/soak.py`: the repository root makes `bench` importable.
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
import orjson

from bench.delivery import Receiver, _pct
from bench.harness import BENCH, proc_cpu_seconds, proc_status_kb, tail
from bench.processes import RoostServer, create_post, fresh_database, install_sigterm, subscribe
from bench.report import machine

DRAIN_S = 60.0
MAX_IN_FLIGHT = 64  # beyond this a tick is skipped (and counted): the schedule never piles up
READS = ("lookup", "users_me", "search")
KINDS = (*READS, "write")


@dataclass
class State:
    """What the soak saw; filled by the load, the stream reader and the sampler."""

    tag: str
    acked: dict[str, str] = field(default_factory=dict)  # post id -> server name it was written to
    statuses: dict[tuple[str, str], Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    transport_errors: Counter[tuple[str, str]] = field(default_factory=Counter)
    latencies: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    five_xx: list[str] = field(default_factory=list)  # the first few, for the report
    skipped: int = 0
    stream_seen: set[str] = field(default_factory=set)
    stream_connects: int = 0
    stream_ends: int = 0  # the server closed it
    stream_errors: int = 0
    stream_refusals: Counter[int] = field(default_factory=Counter)
    stream_keepalives: int = 0
    stream_other_lines: int = 0
    stream_ready: asyncio.Event = field(default_factory=asyncio.Event)
    samples: list[tuple[float, dict[str, int], dict[str, float]]] = field(default_factory=list)
    load_s: float = 0.0
    drain_s: float = 0.0


class Soak:
    def __init__(self, servers: dict[str, RoostServer], creds: dict[str, Any], receiver: Receiver) -> None:
        self.servers = servers
        self.names = list(servers)
        self.creds = creds
        self.receiver = receiver
        self.state = State(tag=uuid.uuid4().hex[:8])
        self.app = {"Authorization": f"Bearer {creds['bearer_token']}"}
        self.user = {"Authorization": f"Bearer {creds['oauth2_user_token']}"}
        self.turns: Counter[str] = Counter()
        self.written = 0
        self.rng = random.Random(7)
        self.ids: list[str] = []  # acknowledged post ids, to draw lookups from
        self.started = time.monotonic()

    def sample(self, started: float) -> None:
        rss: dict[str, int] = {}
        cpu: dict[str, float] = {}
        for name, server in self.servers.items():
            with contextlib.suppress(OSError, KeyError):  # a dead process: its absence shows in the report
                rss[name] = proc_status_kb(server.process.pid, "VmRSS")
                cpu[name] = proc_cpu_seconds(server.process.pid)
        self.state.samples.append((time.monotonic() - started, rss, cpu))

    async def request(self, session: aiohttp.ClientSession, kind: str) -> None:
        name = self.names[self.turns[kind] % len(self.names)]  # each kind alternates on its own
        self.turns[kind] += 1
        base = self.servers[name].base_url
        method, url, headers, body = "GET", "", self.app, None
        if kind == "lookup":
            post_id = self.rng.choice(self.ids)
            url = f"{base}/2/tweets/{post_id}?expansions=author_id&tweet.fields=created_at,public_metrics"
        elif kind == "users_me":
            url, headers = f"{base}/2/users/me", self.user
        elif kind == "search":
            url = f"{base}/2/tweets/search/recent?query=soak"
        else:
            self.written += 1
            method, url, headers = "POST", f"{base}/2/tweets", self.user
            body = {"text": f"soak {self.state.tag} #{self.written}"}  # unique: a repeated text is refused
        sent = time.perf_counter()
        try:
            async with session.request(method, url, headers=headers, json=body) as response:
                raw = await response.read()
                status = response.status
        except (aiohttp.ClientError, TimeoutError):
            self.state.transport_errors[kind, name] += 1
            return
        self.state.latencies[kind, name].append((time.perf_counter() - sent) * 1000)
        self.state.statuses[kind, name][status] += 1
        if status >= 500 and len(self.state.five_xx) < 10:
            self.state.five_xx.append(f"{kind} on {name}: {status} {raw[:200]!r}")
        if kind == "write" and status == 201:
            self.remember(str(orjson.loads(raw)["data"]["id"]), name)

    def remember(self, post_id: str, name: str) -> None:
        self.state.acked[post_id] = name
        self.ids.append(post_id)

    async def stream(self, session: aiohttp.ClientSession, name: str) -> None:
        """Hold the filtered stream open on one process; reconnect (and count it) if it ends."""
        state = self.state
        url = f"{self.servers[name].base_url}/2/tweets/search/stream"
        # Keep-alives come every 20 s: a minute of silence means a stuck connection.
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=60)
        while True:
            try:
                async with session.get(url, headers=self.app, timeout=timeout) as response:
                    if response.status != 200:
                        state.stream_refusals[response.status] += 1
                        await response.read()
                        await asyncio.sleep(2)  # a connection just dropped holds its slot for a while
                        continue
                    state.stream_connects += 1
                    state.stream_ready.set()
                    async for raw in response.content:
                        line = raw.strip()
                        if not line:
                            state.stream_keepalives += 1
                            continue
                        data = orjson.loads(line).get("data")
                        if isinstance(data, dict) and "id" in data:
                            state.stream_seen.add(str(data["id"]))
                        else:
                            state.stream_other_lines += 1
                state.stream_ends += 1
            except (aiohttp.ClientError, TimeoutError, orjson.JSONDecodeError):
                state.stream_errors += 1
                await asyncio.sleep(1)

    async def run(self, args: argparse.Namespace) -> State:
        state = self.state
        first = self.servers[self.names[0]].base_url
        timeout = aiohttp.ClientTimeout(total=30)
        async with aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=128), timeout=timeout
        ) as session:
            await subscribe(session, first, self.creds, self.receiver)
            rules = {"add": [{"value": "soak", "tag": "soak"}]}
            rules_url = f"{first}/2/tweets/search/stream/rules"
            async with session.post(rules_url, json=rules, headers=self.app) as response:
                if response.status != 201:
                    raise RuntimeError(f"add rule -> {response.status}: {(await response.read())[:300]!r}")
            reader = asyncio.create_task(self.stream(session, self.names[-1]))
            try:
                await asyncio.wait_for(state.stream_ready.wait(), 30)
                token = str(self.creds["oauth2_user_token"])
                for index in range(10):  # posts to look up from the first tick on
                    name = self.names[index % len(self.names)]
                    post_id = await create_post(
                        session, self.servers[name].base_url, token, f"soak {state.tag} seed {index}"
                    )
                    self.remember(post_id, name)
                await self.load(session, args)
                self.sample(self.started)
                deadline = time.monotonic() + DRAIN_S
                ended = time.monotonic()
                while time.monotonic() < deadline and (
                    self.receiver.arrived_count(set(state.acked)) < len(state.acked)
                    or not set(state.acked) <= state.stream_seen
                ):
                    await asyncio.sleep(0.1)
                state.drain_s = time.monotonic() - ended
            finally:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader
        return state

    async def load(self, session: aiohttp.ClientSession, args: argparse.Namespace) -> None:
        state = self.state
        reads = args.rate - args.write_rate
        weights = [reads / len(READS)] * len(READS) + [args.write_rate]
        interval = 1.0 / args.rate
        tasks: set[asyncio.Task[None]] = set()
        self.started = time.monotonic()
        end = self.started + args.minutes * 60
        next_tick = next_sample = self.started
        progress = self.started + 60
        while (now := time.monotonic()) < end:
            if now >= next_sample:
                self.sample(self.started)
                next_sample += args.sample_every
            if now >= progress:
                progress += 60
                bad = sum(n for c in state.statuses.values() for s, n in c.items() if s >= 500)
                answered = sum(sum(c.values()) for c in state.statuses.values())
                print(
                    f"  {(now - self.started) / 60:.0f} min: {answered} "
                    f"answers, {bad} 5xx, {len(state.acked)} posts, {len(state.stream_seen)} on the stream, "
                    f"RSS {state.samples[-1][1]}",
                    flush=True,
                )
            if len(tasks) >= MAX_IN_FLIGHT:
                state.skipped += 1
            else:
                kind = self.rng.choices(KINDS, weights)[0]
                task = asyncio.create_task(self.request(session, kind))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            next_tick += interval
            await asyncio.sleep(max(0.0, next_tick - time.monotonic()))
        state.load_s = time.monotonic() - self.started
        await asyncio.gather(*tasks)


# ---- report -----------------------------------------------------------------------------------------------


def _mb(kb: float) -> str:
    return f"{kb / 1024:.1f}"


def report(state: State, receiver: Receiver, args: argparse.Namespace, names: list[str]) -> str:
    m = machine()
    acked = set(state.acked)
    delivered = receiver.arrived_count(acked)
    undelivered = len(acked) - delivered
    on_stream = len(acked & state.stream_seen)
    five = sum(n for c in state.statuses.values() for s, n in c.items() if s >= 500)
    five += sum(n for s, n in state.stream_refusals.items() if s >= 500)
    answers = sum(sum(c.values()) for c in state.statuses.values())
    duplicates = receiver.posts - receiver.unparsed - len(receiver.arrivals)

    def verdict(ok: bool) -> str:
        return "**met**" if ok else "**NOT met**"

    lines = [
        "# Soak: two processes on one PostgreSQL database",
        "",
        f"Written by `bench/soak.py` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Rerun: `.venv/bin/python -m "
        f"bench.soak --minutes {args.minutes:g} --rate {args.rate:g} --write-rate {args.write_rate:g} "
        f"--sample-every {args.sample_every:g} --warm-s {args.warm_s:g}`.",
        "",
        f"- machine: {m['nproc']} CPUs ({m['cpu_model']}), Python {m['python']}, PostgreSQL on 127.0.0.1, "
        "shared with other work; the load and the receiver run in this process on the same CPUs",
        f"- servers: two `roost serve --no-rate-limits` processes (A and B, own ports), one fresh database "
        f"with the demo seed; load for {state.load_s / 60:.2f} min at {args.rate:g} requests/s "
        f"({args.write_rate:g}/s writes), each kind alternating between A and B",
        "- stream: rule `soak`, one connection held open on B (so posts written on A cross processes); "
        "webhook: a receiver in this process subscribed to the demo user",
        "",
        "## Verdicts",
        "",
        f"- 5xx answers = 0: {verdict(five == 0)} ({five} of {answers} answers)",
        f"- acknowledged posts never delivered to the webhook (after a drain of up to {DRAIN_S:.0f} s) = 0: "
        f"{verdict(undelivered == 0)} ({undelivered} of {len(acked)}; drain took {state.drain_s:.1f} s)",
        f"- posts seen on the stream: {on_stream} of {len(acked)} written ({len(acked) - on_stream} missed)",
        "",
        "## Requests",
        "",
        "| kind | process | answers | 2xx | 4xx | 5xx | transport errors | p50 ms | p99 ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in KINDS:
        for name in names:
            counts = state.statuses.get((kind, name), Counter())
            lat = state.latencies.get((kind, name), [])
            lines.append(
                f"| {kind} | {name} | {sum(counts.values())} | "
                f"{sum(n for s, n in counts.items() if 200 <= s < 300)} | "
                f"{sum(n for s, n in counts.items() if 400 <= s < 500)} | "
                f"{sum(n for s, n in counts.items() if s >= 500)} | {state.transport_errors[kind, name]} | "
                f"{statistics.median(lat) if lat else float('nan'):.1f} | "
                f"{_pct(lat, 0.99) if lat else float('nan'):.1f} |"
            )
    others = sorted({s for c in state.statuses.values() for s in c if not 200 <= s < 300})
    lines += [
        "",
        f"Non-2xx statuses seen: {others or 'none'}; ticks skipped ({MAX_IN_FLIGHT} requests in flight): "
        f"{state.skipped}.",
    ]
    if state.five_xx:
        lines += ["", "First 5xx answers:", "", *(f"- `{entry}`" for entry in state.five_xx)]
    lines += [
        "",
        "## Webhook and stream",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| posts acknowledged (201; the first 10 before the load, as ids to look up) | {len(acked)} |",
        f"| delivered to the webhook | {delivered} |",
        f"| never delivered | {undelivered} |",
        f"| deliveries repeated (same post twice) | {duplicates} |",
        f"| bad signatures | {receiver.bad_signatures} |",
        f"| seen on the stream (B) | {on_stream} |",
        f"| stream lines for posts not acknowledged | {len(state.stream_seen - acked)} |",
        f"| stream connections made / ended by the server / errors | {state.stream_connects} / "
        f"{state.stream_ends} / {state.stream_errors} |",
        f"| stream connections refused | {dict(state.stream_refusals) or 0} |",
        f"| stream keep-alives / other lines | {state.stream_keepalives} / {state.stream_other_lines} |",
        "",
        "## Memory (VmRSS, MB)",
        "",
    ]
    warm = next((s for s in state.samples if s[0] >= args.warm_s), None)
    if warm is None:
        lines += [f"No sample at or after {args.warm_s:g} s: growth is measured from the first sample.", ""]
        warm = state.samples[0] if state.samples else None
    lines += [
        "| process | first | max | last | at warm-up end | growth since | CPU s over the soak |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in names:
        values = [s[1][name] for s in state.samples if name in s[1]]
        cpus = [s[2][name] for s in state.samples if name in s[2]]
        if not values or warm is None or name not in warm[1]:
            lines.append(f"| {name} | no samples (process gone?) | | | | | |")
            continue
        base = warm[1][name]
        growth = values[-1] - base
        lines.append(
            f"| {name} | {_mb(values[0])} | {_mb(max(values))} | {_mb(values[-1])} | "
            f"{_mb(base)} (t={warm[0]:.0f} s) | {growth / 1024:+.1f} MB ({growth / base * 100:+.1f}%) | "
            f"{cpus[-1] - cpus[0]:.1f} |"
        )
    header = "| t s | " + " | ".join(names) + " |"
    lines += ["", "Every sample:", "", header, "|---:|" + "---:|" * len(names)]
    for t, rss, _ in state.samples:
        lines.append(f"| {t:.0f} | " + " | ".join(_mb(rss[n]) if n in rss else "—" for n in names) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="load duration (fractions allowed)")
    parser.add_argument("--rate", type=float, default=50.0, help="requests per second in all")
    parser.add_argument("--write-rate", type=float, default=5.0, help="of which writes per second")
    parser.add_argument("--sample-every", type=float, default=30.0, help="seconds between RSS samples")
    parser.add_argument("--warm-s", type=float, default=60.0, help="growth is measured from here")
    parser.add_argument("--output", type=Path, default=BENCH / "SOAK.md")
    args = parser.parse_args()
    if not 0 < args.write_rate < args.rate or args.minutes <= 0 or args.sample_every <= 0:
        parser.error("need 0 < --write-rate < --rate, --minutes > 0 and --sample-every > 0")
    install_sigterm()
    names = ["A", "B"]
    with tempfile.TemporaryDirectory(prefix="roost-bench-soak-") as tmp_name, fresh_database("soak") as db:
        tmp = Path(tmp_name)
        servers: dict[str, RoostServer] = {}
        receiver: Receiver | None = None
        try:
            for name in names:  # one after the other: B starts on a database A has seeded
                servers[name] = RoostServer(db, tmp / f"{name}.log")
                servers[name].start()
            creds = servers["A"].credentials()
            if servers["B"].credentials()["consumer_secret"] != creds["consumer_secret"]:
                raise RuntimeError("A and B answer different credentials: not one database?")
            receiver = Receiver(secret=str(creds["consumer_secret"]))
            receiver.start()
            pids = {name: server.process.pid for name, server in servers.items()}
            print(f"soak for {args.minutes:g} min against {pids} ...", flush=True)
            state = asyncio.run(Soak(servers, creds, receiver).run(args))
            text = report(state, receiver, args, names)
        except BaseException:
            for name, server in servers.items():
                sys.stderr.write(f"server {name} log:\n{tail(server.log, 40)}\n")
            raise
        finally:
            for server in servers.values():
                server.stop()
            if receiver is not None:
                receiver.stop()
    args.output.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
