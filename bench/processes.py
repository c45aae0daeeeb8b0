"""One server process against two (`roost serve --workers 2`) on PostgreSQL: throughput, p99 and server CPU
per request for single-post lookups and for writes with a subscribed webhook. Writes bench/PROCESSES.md.

    .venv/bin/python -m bench.processes [--duration 15] [--connections 16] [--writers 8] [--rounds 2]

Each round runs 1 process, then 2 (A/B/A/B), each on a fresh `roost_bench_*` database:
(a) 200 posts, then bench/loadgen.py `--mode single` for --duration seconds (after a warm-up);
(b) a webhook receiver in this process is subscribed, then --writers concurrent clients `POST /2/tweets` for
    --duration seconds; every acknowledged post must reach the receiver (waited for up to 60 s).
Server CPU is utime+stime from /proc summed over the supervisor and all its descendants. The reported
figures are medians over the rounds; the ratio compared with the target is CPU per request of 2 processes
÷ 1 process. Nothing is pinned: the generators share the machine's CPUs with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# Run as `python bench/processes.py`: the repository root makes `bench` importable.
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
import orjson
import psycopg
from psycopg import sql

from bench.delivery import Receiver, _pct
from bench.harness import (
    BENCH,
    HOST,
    PYTHON,
    ROOT,
    free_port,
    http_get,
    machine_busy_seconds,
    proc_cpu_seconds,
    tail,
    wait_for_quiet,
    wait_ready,
)
from bench.report import machine

PG = "postgresql://postgres@127.0.0.1:5432"
TARGET_RATIO = 1.2  # CPU per request, 2 processes ÷ 1 process
DRAIN_S = 60.0
FIELDS = "?expansions=author_id&tweet.fields=created_at,public_metrics"


# ---- shared with bench/soak.py: databases, servers, webhooks ---------------------------------------------


@contextlib.contextmanager
def fresh_database(label: str) -> Iterator[str]:
    """A new empty database (dropped on the way out, whatever happened): its URL."""
    name = f"roost_bench_{label}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield f"{PG}/{name}"
    finally:
        with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
            # FORCE: a worker killed mid-query may leave a session behind.
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _is_ours(pid: int) -> bool:
    """Still one of the server's processes (not a recycled pid): python running roost or multiprocessing."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"roost" in cmdline or b"multiprocessing" in cmdline


def pinned(cpus: set[int] | None) -> Callable[[], None] | None:
    """For Popen: run the child (and what it starts) on these CPUs only, or anywhere when None."""
    if not cpus:
        return None
    chosen = set(cpus)
    return lambda: os.sched_setaffinity(0, chosen)


def cpu_list(text: str) -> set[int]:
    return {int(part) for part in text.split(",") if part.strip()}


class RoostServer:
    """`roost serve` on PostgreSQL, one process or a supervisor with --workers N; logs to a file."""

    def __init__(self, db_url: str, log: Path, workers: int = 1, cpus: set[int] | None = None) -> None:
        self.workers = workers
        self.db_name = db_url.rsplit("/", 1)[1]
        self.port = free_port()
        self.base_url = f"http://{HOST}:{self.port}"
        self.log = log
        command = [PYTHON, "-m", "roost", "serve", "--port", str(self.port), "--db", db_url]
        command.append("--no-rate-limits")
        if workers > 1:
            command += ["--workers", str(workers)]
        with log.open("ab") as handle:
            self.process = subprocess.Popen(
                command, stdout=handle, stderr=subprocess.STDOUT, cwd=ROOT, preexec_fn=pinned(cpus)
            )
        self.seen: set[int] = {self.process.pid}  # every pid of the tree met so far, killed if left over
        self.answering: set[int] = set()  # pids named by /_roost/health

    def start(self, timeout: float = 120.0) -> None:
        wait_ready(self.base_url + "/_roost/health", self.process, self.log, timeout)
        # With workers, the first ready one answers first; wait (a while) until each has answered once.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError):
                status, body = http_get(self.base_url + "/_roost/health", timeout=2.0)
                if status == 200:
                    self.answering.add(int(orjson.loads(body)["process"]))
            if len(self.answering) >= self.workers:
                break
            time.sleep(0.05)
        self.pids()

    def credentials(self) -> dict[str, Any]:
        status, body = http_get(self.base_url + "/_roost/credentials")
        if status != 200:
            raise RuntimeError(f"/_roost/credentials -> {status}")
        return dict(orjson.loads(body))

    def pids(self) -> list[int]:
        """The supervisor (or lone server) and all its descendants, as they are now."""
        found: list[int] = []
        todo = [self.process.pid]
        while todo:
            pid = todo.pop()
            if Path(f"/proc/{pid}").exists():
                found.append(pid)
                todo.extend(_children(pid))
        self.seen.update(found)
        return found

    def cpu_by_pid(self) -> dict[int, float]:
        cpu: dict[int, float] = {}
        for pid in self.pids():
            with contextlib.suppress(OSError):  # it ended between the listing and the read
                cpu[pid] = proc_cpu_seconds(pid)
        return cpu

    def backend_cpu(self) -> dict[int, float]:
        """CPU seconds of the PostgreSQL backends serving this database (PostgreSQL runs on this machine).
        A backend that closes inside a window takes its CPU with it: an undercount, pools rarely close."""
        with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
            rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.db_name,))
            pids = [int(row[0]) for row in rows.fetchall()]
        cpu: dict[int, float] = {}
        for pid in pids:
            with contextlib.suppress(OSError):
                cpu[pid] = proc_cpu_seconds(pid)
        return cpu

    def stop(self) -> None:
        self.pids()
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: a supervisor passes it on and waits for its workers
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # A supervisor killed outright would leave its workers running on the port and the database.
        for pid in self.seen - {self.process.pid}:
            if _is_ours(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def cpu_delta(before: dict[int, float], after: dict[int, float]) -> dict[int, float]:
    return {pid: after[pid] - before.get(pid, 0.0) for pid in after}


async def subscribe(
    session: aiohttp.ClientSession, base_url: str, creds: dict[str, Any], receiver: Receiver
) -> str:
    """Register the receiver's URL as a webhook (roost checks it with a CRC) and subscribe the demo user."""
    app = {"Authorization": f"Bearer {creds['bearer_token']}"}
    async with session.post(f"{base_url}/2/webhooks", json={"url": receiver.url()}, headers=app) as response:
        body = await response.read()
        if response.status != 200:
            raise RuntimeError(f"POST /2/webhooks -> {response.status}: {body[:300]!r}")
        hook_id = str(orjson.loads(body)["data"]["id"])
    user = {"Authorization": f"Bearer {creds['oauth2_user_token']}"}
    path = f"{base_url}/2/account_activity/webhooks/{hook_id}/subscriptions/all"
    async with session.post(path, json={}, headers=user) as response:
        if response.status != 200:
            raise RuntimeError(f"subscribe -> {response.status}: {(await response.read())[:300]!r}")
    return hook_id


async def create_post(session: aiohttp.ClientSession, base_url: str, token: str, text: str) -> str:
    headers = {"Authorization": f"Bearer {token}"}
    async with session.post(f"{base_url}/2/tweets", json={"text": text}, headers=headers) as response:
        body = await response.read()
        if response.status != 201:
            raise RuntimeError(f"POST /2/tweets -> {response.status}: {body[:300]!r}")
        return str(orjson.loads(body)["data"]["id"])


def install_sigterm() -> None:
    """SIGTERM to this script unwinds like Ctrl-C, so the finally blocks stop servers and drop databases."""
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))


# ---- the two scenarios ------------------------------------------------------------------------------


def read_phase(server: RoostServer, ids_file: Path, token: str, args: argparse.Namespace) -> dict[str, Any]:
    quiet = wait_for_quiet(args.quiet_wait)
    command = [PYTHON, str(BENCH / "loadgen.py"), "--port", str(server.port), "--mode", "single"]
    command += ["--ids-file", str(ids_file), "--token", token, "--connections", str(args.connections)]
    command += ["--rate", str(args.rate * server.workers if args.per_process else args.rate)]
    command += ["--duration", str(args.duration), "--warmup", str(args.warmup)]
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, preexec_fn=pinned(args.client_cpus)
    )
    try:
        time.sleep(args.warmup)  # the generator counts nothing during its warm-up; neither does the CPU
        db_before = server.backend_cpu()
        cpu_before, busy_before, started = server.cpu_by_pid(), machine_busy_seconds(), time.perf_counter()
        out, err = process.communicate(timeout=args.duration + args.warmup + 120)
        per_pid = cpu_delta(cpu_before, server.cpu_by_pid())
        db_cpu = sum(cpu_delta(db_before, server.backend_cpu()).values())
        busy, window = machine_busy_seconds() - busy_before, time.perf_counter() - started
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the generator is the only child reaped
    generator_cpu = sum(
        getattr(children_after, f) - getattr(children_before, f) for f in ("ru_utime", "ru_stime")
    )
    raw: dict[str, Any] | None = None
    for line in out.decode(errors="replace").splitlines():
        if line.startswith("LOADGEN_RESULT "):
            raw = orjson.loads(line.removeprefix("LOADGEN_RESULT "))
    if raw is None:
        raise RuntimeError(f"loadgen failed ({process.returncode}): {err.decode(errors='replace')[-2000:]}")
    seconds = raw["duration_us"] / 1e6
    server_cpu = sum(per_pid.values())
    requests = int(raw["requests"])
    # The CPU window is a little longer than the generator's (start-up, closing): scale by its share.
    per_request = seconds / requests / window * 1000 if requests else float("nan")
    errors = int(raw["non2xx"]) + sum(int(raw[k]) for k in ("connect_errors", "read_errors"))
    return {
        "rps": requests / seconds if seconds else 0.0,
        "p99_ms": raw["p99_us"] / 1000,
        "errors": errors,
        "cpu_ms": server_cpu * per_request,
        "db_cpu_ms": db_cpu * per_request,
        "server_cpus": server_cpu / window,
        "split": sorted((round(v / window, 2) for v in per_pid.values() if v > 0.05 * window), reverse=True),
        "other_cpus": max(0.0, busy - server_cpu - db_cpu - generator_cpu) / window,
        "quiet_before": quiet,
    }


async def write_phase(
    server: RoostServer, creds: dict[str, Any], receiver: Receiver, args: argparse.Namespace
) -> dict[str, Any]:
    token = str(creds["oauth2_user_token"])
    tag = uuid.uuid4().hex[:8]
    connector = aiohttp.TCPConnector(limit=args.writers + 4)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await subscribe(session, server.base_url, creds, receiver)
        warm = [await create_post(session, server.base_url, token, f"warm {tag} {i}") for i in range(5)]
        deadline = time.monotonic() + 30
        while receiver.arrived_count(set(warm)) < len(warm) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        quiet = await asyncio.to_thread(wait_for_quiet, args.quiet_wait)
        acked: set[str] = set()
        latencies: list[float] = []
        errors = 0
        stop_at = time.perf_counter() + args.duration
        headers = {"Authorization": f"Bearer {token}"}

        async def writer(number: int) -> None:
            nonlocal errors
            index = 0
            while time.perf_counter() < stop_at:
                text = f"processes {tag} w{number} #{index}"  # unique: a repeated text is refused
                index += 1
                sent = time.perf_counter()
                try:
                    async with session.post(
                        f"{server.base_url}/2/tweets", json={"text": text}, headers=headers
                    ) as response:
                        body = await response.read()
                        if response.status == 201:
                            latencies.append(time.perf_counter() - sent)
                            acked.add(str(orjson.loads(body)["data"]["id"]))
                        else:
                            errors += 1
                except (aiohttp.ClientError, TimeoutError):
                    errors += 1

        own_before = resource.getrusage(resource.RUSAGE_SELF)  # the writers and the receiver's thread
        db_before = server.backend_cpu()
        cpu_before, busy_before, started = server.cpu_by_pid(), machine_busy_seconds(), time.perf_counter()
        await asyncio.gather(*(writer(n) for n in range(args.writers)))
        window = time.perf_counter() - started
        during = cpu_delta(cpu_before, server.cpu_by_pid())
        db_during = sum(cpu_delta(db_before, server.backend_cpu()).values())
        busy = machine_busy_seconds() - busy_before
        own_after = resource.getrusage(resource.RUSAGE_SELF)
        drain_deadline = time.perf_counter() + DRAIN_S
        while receiver.arrived_count(acked) < len(acked) and time.perf_counter() < drain_deadline:
            await asyncio.sleep(0.05)
        drain_s = time.perf_counter() - started - window
        with_drain = cpu_delta(cpu_before, server.cpu_by_pid())
        db_with_drain = sum(cpu_delta(db_before, server.backend_cpu()).values())
    own_cpu = sum(getattr(own_after, f) - getattr(own_before, f) for f in ("ru_utime", "ru_stime"))
    count = len(acked)
    ordered = [v * 1000 for v in latencies]
    return {
        "rps": count / window if window else 0.0,
        "p99_ms": _pct(ordered, 0.99) if ordered else float("nan"),
        "errors": errors,
        "acked": count,
        "delivered": receiver.arrived_count(acked),
        "drain_s": drain_s,
        "cpu_ms_writes": sum(during.values()) / count * 1000 if count else float("nan"),
        # A post's cost includes delivering it: the window runs on until the last delivery arrived.
        "cpu_ms": sum(with_drain.values()) / count * 1000 if count else float("nan"),
        "db_cpu_ms": db_with_drain / count * 1000 if count else float("nan"),
        "server_cpus": sum(during.values()) / window,
        "split": sorted((round(v / window, 2) for v in during.values() if v > 0.05 * window), reverse=True),
        "other_cpus": max(0.0, busy - sum(during.values()) - db_during - own_cpu) / window,
        "quiet_before": quiet,
    }


async def make_posts(base_url: str, token: str, count: int) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        semaphore = asyncio.Semaphore(8)

        async def one(index: int) -> str:
            async with semaphore:
                return await create_post(session, base_url, token, f"lookup {tag} #{index}")

        return list(await asyncio.gather(*(one(i) for i in range(count))))


def run_config(workers: int, args: argparse.Namespace, tmp: Path, label: str) -> dict[str, Any]:
    print(f"[{label}] {workers} process(es): fresh database, starting ...", flush=True)
    with fresh_database(f"proc{workers}") as db_url:
        log = tmp / f"{label}.log"
        server = RoostServer(db_url, log, workers, args.server_cpus)
        receiver: Receiver | None = None
        try:
            server.start()
            if len(server.answering) < workers:
                print(f"  note: only {len(server.answering)} of {workers} workers answered /_roost/health")
            creds = server.credentials()
            ids = asyncio.run(make_posts(server.base_url, str(creds["oauth2_user_token"]), args.posts))
            ids_file = tmp / f"{label}.ids"
            ids_file.write_text("\n".join(ids) + "\n")
            reads = read_phase(server, ids_file, str(creds["bearer_token"]), args)
            print(
                f"  reads: {reads['rps']:,.0f} req/s, p99 {reads['p99_ms']:.1f} ms, errors "
                f"{reads['errors']}, CPU {reads['cpu_ms']:.3f} ms/req, split {reads['split']}",
                flush=True,
            )
            receiver = Receiver(secret=str(creds["consumer_secret"]))
            receiver.start()
            writes = asyncio.run(write_phase(server, creds, receiver, args))
            print(
                f"  writes: {writes['rps']:,.0f} posts/s, p99 {writes['p99_ms']:.1f} ms, errors "
                f"{writes['errors']}, CPU {writes['cpu_ms']:.3f} ms/post, delivered "
                f"{writes['delivered']}/{writes['acked']} ({writes['drain_s']:.1f} s drain), "
                f"split {writes['split']}",
                flush=True,
            )
            return {"workers": workers, "answering": len(server.answering), "reads": reads, "writes": writes}
        except BaseException:
            sys.stderr.write(f"server log ({log}):\n{tail(log, 40)}\n")
            raise
        finally:
            server.stop()
            if receiver is not None:
                receiver.stop()


# ---- report -----------------------------------------------------------------------------------------------


def _median(runs: list[dict[str, Any]], scenario: str, key: str) -> float:
    return statistics.median(run[scenario][key] for run in runs)


def report(results: list[dict[str, Any]], args: argparse.Namespace, elapsed: float) -> str:
    m = machine()
    for run in results:
        for scenario in ("reads", "writes"):
            run[scenario]["total_ms"] = run[scenario]["cpu_ms"] + run[scenario]["db_cpu_ms"]
    by = {n: [r for r in results if r["workers"] == n] for n in (1, 2)}

    def ratio(scenario: str, key: str) -> float:
        return _median(by[2], scenario, key) / _median(by[1], scenario, key)

    rounds = len(by[1])

    def verdict(ratio: float) -> str:
        return "**met**" if ratio <= TARGET_RATIO else "**NOT met**"

    lines = [
        "# One process against two on PostgreSQL",
        "",
        f"Written by `bench/processes.py` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC "
        f"({elapsed / 60:.1f} min). "
        f"Rerun: `.venv/bin/python -m bench.processes --duration {args.duration:g} --connections "
        f"{args.connections} --writers {args.writers} --rounds {args.rounds} --rate {args.rate:g}"
        + (" --per-process`." if args.per_process else "`."),
        "",
        f"- machine: **{m['nproc']} CPUs** ({m['cpu_model']}), Python {m['python']}, PostgreSQL on "
        "127.0.0.1; shared with other work, so timings move by about ±20%",
        "- servers: `roost serve --no-rate-limits` (1 process) and "
        "`roost serve --workers 2 --no-rate-limits` "
        "(a supervisor and 2 workers on one socket), each on a fresh database with the demo seed",
        "- **the load generators share the server's CPUs** (nothing pinned): reads come from "
        "bench/loadgen.py (another process), writes from aiohttp clients in this process, which also "
        "runs the webhook receiver. With 2 CPUs, 2 workers cannot get 2 CPUs' worth, so req/s "
        "understates what a second process gives on a larger machine; CPU per request is the figure "
        "compared",
        f"- order: {rounds} round(s) of 1 process then 2 (A/B/A/B), fresh database each time; figures are "
        "medians over the rounds",
        f"- (a) reads: {args.posts} posts, then `GET /2/tweets/:id{FIELDS}` with the app bearer token, "
        f"{args.connections} keep-alive connections"
        + (
            f" paced at {args.rate:g} requests/s per server process (equal load on each)"
            if args.rate and args.per_process
            else f" paced at {args.rate:g} requests/s in all"
            if args.rate
            else " as fast as answered"
        )
        + f", {args.warmup:g} s warm-up, {args.duration:g} s measured",
        f"- (b) writes: `POST /2/tweets` from {args.writers} concurrent clients (oauth2 user token) for "
        f"{args.duration:g} s with a subscribed webhook; every acknowledged post must be delivered "
        f"(waited for up to {DRAIN_S:.0f} s). CPU per post covers the writes and the deliveries' drain",
        "- server CPU: utime+stime from /proc of the supervisor and all its descendants (the lone "
        "process for 1) over the measured window. PostgreSQL's own CPU (the backends serving the "
        "database, read the same way: it runs on this machine) is shown beside it, for information",
        "",
        "## Medians",
        "",
        "| scenario | processes | req/s | p99 ms | errors | server CPU ms/request | PostgreSQL CPU "
        "ms/request | server CPUs busy |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for scenario, name in (("reads", "(a) single lookup"), ("writes", "(b) `POST /2/tweets` + webhook")):
        for n in (1, 2):
            runs = by[n]
            lines.append(
                f"| {name} | {n} | {_median(runs, scenario, 'rps'):,.0f} | "
                f"{_median(runs, scenario, 'p99_ms'):.1f} | {sum(r[scenario]['errors'] for r in runs)} | "
                f"{_median(runs, scenario, 'cpu_ms'):.3f} | {_median(runs, scenario, 'db_cpu_ms'):.3f} | "
                f"{_median(runs, scenario, 'server_cpus'):.2f} |"
            )
    delivered = sum(r["writes"]["delivered"] for r in results)
    acked = sum(r["writes"]["acked"] for r in results)
    lines += [
        "",
        "## CPU per request, 2 processes ÷ 1 process (target ≤ 1.2)",
        "",
        "| scenario | ratio of medians | per round | target | server + PostgreSQL, ratio of medians |",
        "|---|---:|---|---|---:|",
    ]
    for scenario in ("reads", "writes"):
        pairs = zip(by[1], by[2], strict=False)
        per_round = [b[scenario]["cpu_ms"] / a[scenario]["cpu_ms"] for a, b in pairs]
        lines.append(
            f"| {scenario} | {ratio(scenario, 'cpu_ms'):.2f} | {', '.join(f'{x:.2f}' for x in per_round)} | "
            f"{verdict(ratio(scenario, 'cpu_ms'))} | {ratio(scenario, 'total_ms'):.2f} |"
        )
    lines += [
        "",
        f"Every acknowledged post delivered: {'**yes**' if delivered == acked else '**NO**'} "
        f"({delivered} of {acked} over all runs).",
        "",
        "## Every run",
        "",
        "Split: each process's share of a CPU in the window (processes under 5% left out). Other: the rest "
        "of the machine's busy CPUs in the window, besides the server, its PostgreSQL backends and the "
        "generator.",
        "",
        "| # | processes | scenario | req/s | p99 ms | errors | CPU ms/request | CPU ms/post, writes only | "
        "PostgreSQL CPU ms/request | delivered / acked | drain s | split | other CPUs | workers answering |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|",
    ]
    for index, run in enumerate(results, 1):
        for scenario in ("reads", "writes"):
            r = run[scenario]
            writes_only = f"{r['cpu_ms_writes']:.3f}" if scenario == "writes" else "—"
            delivery = f"{r['delivered']} / {r['acked']}" if scenario == "writes" else "—"
            drain = f"{r['drain_s']:.1f}" if scenario == "writes" else "—"
            lines.append(
                f"| {index} | {run['workers']} | {scenario} | {r['rps']:,.0f} | {r['p99_ms']:.1f} | "
                f"{r['errors']} | {r['cpu_ms']:.3f} | {writes_only} | {r['db_cpu_ms']:.3f} | {delivery} | "
                f"{drain} | "
                f"{' + '.join(f'{x:.2f}' for x in r['split'])} | {r['other_cpus']:.2f} | "
                f"{run['answering']} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=15.0, help="measured seconds per scenario")
    parser.add_argument("--warmup", type=float, default=2.0, help="read warm-up seconds, not measured")
    parser.add_argument("--connections", type=int, default=16, help="load generator connections (reads)")
    parser.add_argument(
        "--rate", type=float, default=0.0, help="reads: requests/s in all (0: as fast as answered)"
    )
    parser.add_argument(
        "--per-process",
        action="store_true",
        help="reads: --rate is per server process (2 processes get twice the load: equal load per process)",
    )
    parser.add_argument("--writers", type=int, default=8, help="concurrent writers")
    parser.add_argument("--posts", type=int, default=200, help="posts created for the lookups")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of (1 process, 2 processes)")
    parser.add_argument("--quiet-wait", type=float, default=10.0, help="max wait for a quiet machine, s")
    parser.add_argument(
        "--server-cpus", type=cpu_list, default=None, help="pin the server(s) to these CPUs, e.g. 1"
    )
    parser.add_argument(
        "--client-cpus", type=cpu_list, default=None, help="pin the generators (and this process), e.g. 0"
    )
    parser.add_argument("--output", type=Path, default=BENCH / "PROCESSES.md")
    args = parser.parse_args()
    if args.client_cpus:
        os.sched_setaffinity(0, args.client_cpus)
    if args.posts < 100:
        parser.error("--posts must be at least 100 (the load generator draws from 100 ids or more)")
    install_sigterm()
    started = time.monotonic()
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="roost-bench-processes-") as tmp_name:
        tmp = Path(tmp_name)
        for round_number in range(1, args.rounds + 1):
            for workers in (1, 2):
                results.append(run_config(workers, args, tmp, f"round{round_number}-{workers}p"))
    text = report(results, args, time.monotonic() - started)
    args.output.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
