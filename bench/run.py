"""roost's HTTP benchmark: one roost server on SQLite with 100k posts against a bare ASGI app, same server.

    .venv/bin/python bench/run.py                  # build (or reuse) the data, load, write bench/RESULTS.md
    .venv/bin/python bench/run.py --duration 5     # shorter runs; --help for the rest

1. Data: a SQLite database built once and kept in bench/.cache/ (keyed by the sizes, the seed and the
   source of the schema, migrations, demo seed and bulk loader): schema by `roost.storage.migrate.upgrade`,
   the demo seed by starting `roost serve` once on it, then `roost.data.bulk.load_bulk` (10k users,
   100k posts). Each run serves a fresh copy in a temp directory.
2. Servers: bench/serve.py, through roost.serving as `roost serve` runs them: uvicorn + uvloop +
   httptools, one worker, log level warning, no access log:
   roost (`--no-rate-limits` settings) and a bare ASGI app answering a small fixed JSON body.
3. Load: wrk (Debian's package, installed with apt-get when missing and running as root) with
   bench/load.lua, or bench/loadgen.py (asyncio) when wrk cannot be had; 32 keep-alive connections,
   a warm-up then a fixed measured duration; every response status is checked. Server and generator
   are pinned to different CPUs with taskset when there are two or more.
4. Report: req/s, p50, p99, errors, roost/bare ratios, server RSS after start and after the load,
   against the targets; then an in-process cProfile of the hot path (bench/profile_hot.py).
Only 127.0.0.1 is ever targeted, and every load is bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
CACHE = BENCH / ".cache"
SRC = ROOT / "src" / "roost"
PYTHON = sys.executable
HOST = "127.0.0.1"
SINGLE_QUERY = "?expansions=author_id&tweet.fields=created_at,public_metrics"
# Inputs whose change makes a cached database stale.
DATA_SOURCES = (
    "data/bulk.py",
    "data/demo.py",
    "storage/schema.py",
    "storage/migrations",
    "domain/accounts.py",
    "domain/posts.py",
    "domain/text.py",
)
VISIBLE_POSTS = (
    "SELECT p.id FROM posts p JOIN users u ON u.id = p.author_id "
    "WHERE p.deleted_at IS NULL AND u.protected = 0"
)
NOTES_MARKER = "<!-- notes: kept as they are when bench/run.py rewrites this file -->"
TARGETS = {"single_rps": 5000.0, "single_ratio": 0.35, "idle_rss_mb": 150.0}


@dataclass
class LoadResult:
    name: str
    generator: str
    requests: int
    seconds: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    non2xx: int
    socket_errors: int
    bytes_per_response: float
    server_cpu: float | None  # share of one CPU used by the server process during the measured run
    generator_cpu: float | None
    warmup_errors: int
    background_cpu: float  # CPUs' worth used by other processes during the measured window
    quiet_before: float  # share of the machine other processes used just before the run
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def cpu_us_per_request(self) -> float:
        """Server CPU time per answered request: steadier than req/s on a shared machine."""
        if not self.requests or self.server_cpu is None:
            return 0.0
        return self.server_cpu * self.seconds / self.requests * 1e6

    @property
    def errors(self) -> int:
        return self.non2xx + self.socket_errors


# ---- processes and HTTP ------------------------------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def cpu_layout() -> tuple[int | None, int | None]:
    """(server CPU, generator CPU), or Nones when there is a single CPU to run on."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None, None
    return allowed[0], allowed[1]


def pinned(command: list[str], cpu: int | None) -> list[str]:
    if cpu is None or shutil.which("taskset") is None:
        return command
    return ["taskset", "-c", str(cpu), *command]


def spawn(command: list[str], cpu: int | None, log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("ab")
    try:
        if cpu is not None and shutil.which("taskset") is None:
            return subprocess.Popen(
                command,
                stdout=handle,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),  # what taskset does
            )
        return subprocess.Popen(pinned(command, cpu), stdout=handle, stderr=subprocess.STDOUT, cwd=ROOT)
    finally:
        handle.close()


def http_get(url: str, headers: dict[str, str] | None = None, timeout: float = 10.0) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as error:
        return int(error.code), error.read()


def wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with {process.returncode}:\n{tail(log)}")
        try:
            if http_get(url, timeout=2.0)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"server not ready at {url} after {timeout:.0f} s:\n{tail(log)}")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)  # the server shuts down gracefully (lifespan shutdown)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def proc_status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU-seconds spent busy by the whole machine (all CPUs) since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def wait_for_quiet(limit_s: float, threshold: float = 0.10) -> float:
    """Wait (at most limit_s) until the rest of the machine uses under `threshold` of its CPUs over one
    second (other people's test runs skew a benchmark); returns the last share measured."""
    cpus = len(os.sched_getaffinity(0))
    deadline = time.monotonic() + limit_s
    while True:
        before = machine_busy_seconds()
        time.sleep(1.0)
        share = (machine_busy_seconds() - before) / cpus
        if share < threshold or time.monotonic() >= deadline:
            return share


# ---- data --------------------------------------------------------------------------------------------


def cache_key(users: int, posts: int, seed: int) -> str:
    digest = hashlib.sha256(f"users={users} posts={posts} seed={seed}".encode())
    for name in DATA_SOURCES:
        path = SRC / name
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            digest.update(str(file.relative_to(SRC)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


async def _load(url: str, users: int, posts: int, seed: int) -> dict[str, Any]:
    from roost.config import Settings
    from roost.data.bulk import load_bulk
    from roost.services import Services
    from roost.storage.db import open_database

    db = await open_database(url)
    try:
        services = Services.build(Settings(db_url=url, demo=False), db)
        await services.observe_ids()
        return await load_bulk(services, users=users, posts=posts, seed=seed)
    finally:
        await db.close()


def build_database(target: Path, users: int, posts: int, seed: int, log: Path) -> dict[str, Any]:
    from roost.storage.migrate import upgrade

    building = target.with_suffix(".building.db")
    for leftover in (building, *(Path(f"{building}{s}") for s in ("-wal", "-shm"))):
        leftover.unlink(missing_ok=True)
    url = f"sqlite:///{building}"
    started = time.perf_counter()
    upgrade(url)
    migrated = time.perf_counter()

    # The demo seed, the way a user gets it: start the server once on the database.
    port = free_port()
    cli = Path(PYTHON).parent / "roost"
    command = [str(cli), "serve", "--db", url, "--port", str(port), "--no-rate-limits"]
    server = spawn(command, None, log)
    try:
        wait_ready(f"http://{HOST}:{port}/_roost/health", server, log)
        status, body = http_get(f"http://{HOST}:{port}/_roost/credentials")
        if status != 200 or not json.loads(body).get("bearer_token"):
            raise SystemExit(f"/_roost/credentials answered {status}: {body[:200]!r}")
    finally:
        stop(server)
    seeded = time.perf_counter()

    bulk = asyncio.run(_load(url, users, posts, seed))
    loaded = time.perf_counter()
    with sqlite3.connect(building) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("users", "posts")}
        counts["post_mentions"] = conn.execute("SELECT count(*) FROM post_mentions").fetchone()[0]
    conn.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{building}{suffix}").unlink(missing_ok=True)
    building.replace(target)
    return {
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "seconds": {
            "migrate": round(migrated - started, 2),
            "demo_seed_via_server": round(seeded - migrated, 2),
            "bulk_load": round(loaded - seeded, 2),
        },
        "bulk": {k: v for k, v in bulk.items() if not k.startswith("sample_")},
        "sample_post_ids": bulk["sample_post_ids"][:20],
        "rows": counts,
        "bytes": target.stat().st_size,
    }


def ensure_database(
    users: int, posts: int, seed: int, rebuild: bool, log: Path
) -> tuple[Path, dict[str, Any]]:
    CACHE.mkdir(parents=True, exist_ok=True)
    key = cache_key(users, posts, seed)
    database = CACHE / f"roost-{users}u-{posts}p-{key}.db"
    manifest_path = database.with_suffix(".json")
    if not rebuild and database.exists() and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        manifest["reused"] = True
        return database, manifest
    for stale in CACHE.glob("roost-*"):
        stale.unlink()
    print(f"building the database ({users} users, {posts} posts) into {database.relative_to(ROOT)} ...")
    manifest = build_database(database, users, posts, seed, log)
    manifest_path.write_text(json.dumps(manifest, indent=2))
    manifest["reused"] = False
    print(f"  done: {manifest['seconds']}")
    return database, manifest


# ---- load generators ---------------------------------------------------------------------------------


def ensure_wrk() -> str | None:
    found = shutil.which("wrk")
    if found or os.geteuid() != 0 or shutil.which("apt-get") is None:
        return found
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}

    def apt_get(*args: str) -> int:
        quiet = subprocess.DEVNULL
        return subprocess.run(["apt-get", *args], env=env, stdout=quiet, stderr=quiet, check=False).returncode

    print("installing wrk with apt-get ...")
    if apt_get("install", "-y", "-q", "wrk") != 0:
        apt_get("update", "-q")
        apt_get("install", "-y", "-q", "wrk")
    return shutil.which("wrk")


def wrk_version(wrk: str) -> str:
    out = subprocess.run([wrk, "--version"], capture_output=True, text=True, check=False)
    return (out.stdout + out.stderr).splitlines()[0].split(" Copyright")[0].strip()


def _run_measured(command: list[str], server_pid: int, warmup: float) -> tuple[dict[str, Any], float, float]:
    """Run a generator; returns its result line (plus the window's length and the CPU-seconds the rest of
    the machine used in it), the server's CPU seconds in the measured window and the generator's own."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    time.sleep(warmup)
    cpu_start, busy_start = proc_cpu_seconds(server_pid), machine_busy_seconds()
    wall_start = time.perf_counter()
    out, err = process.communicate(timeout=600)
    server_cpu = proc_cpu_seconds(server_pid) - cpu_start
    busy = machine_busy_seconds() - busy_start
    window = time.perf_counter() - wall_start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the generator is the only child reaped here
    own_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = out.decode(errors="replace")
    for line in text.splitlines():
        for marker in ("WRK_RESULT ", "LOADGEN_RESULT "):
            if line.startswith(marker):
                result = json.loads(line[len(marker) :])
                result["_window_s"] = window
                result["_busy_s"] = busy
                return result, server_cpu, own_cpu
    raise SystemExit(f"load generator failed ({process.returncode}):\n{text}\n{err.decode(errors='replace')}")


def run_load(
    name: str,
    generator: str,
    wrk: str | None,
    port: int,
    mode: str,
    ids_file: Path | None,
    token: str,
    args: argparse.Namespace,
    cpu: int | None,
    server_pid: int,
) -> LoadResult:
    target = f"http://{HOST}:{port}"
    warmup_errors = 0
    quiet = wait_for_quiet(args.quiet_wait)
    if generator == "wrk":
        assert wrk is not None
        base = [wrk, "-t1", f"-c{args.connections}", "--timeout", "5s", "-s", str(BENCH / "load.lua")]
        if token:
            base += ["-H", f"Authorization: Bearer {token}"]
        extra = ["--", mode, str(ids_file or ""), str(args.seed)]
        if args.warmup > 0:
            warm, _, _ = _run_measured(
                pinned([*base, f"-d{max(1, round(args.warmup))}s", target, *extra], cpu), server_pid, 0
            )
            warmup_errors = _errors(warm)
        raw, server_cpu, gen_cpu = _run_measured(
            pinned([*base, f"-d{args.duration}s", target, *extra], cpu), server_pid, 0
        )
        seconds = raw["duration_us"] / 1e6
    else:
        command = [PYTHON, str(BENCH / "loadgen.py"), "--port", str(port), "--mode", mode]
        command += ["--connections", str(args.connections), "--duration", str(args.duration)]
        command += ["--warmup", str(args.warmup), "--seed", str(args.seed)]
        if ids_file is not None:
            command += ["--ids-file", str(ids_file)]
        if token:
            command += ["--token", token]
        raw, server_cpu, gen_cpu = _run_measured(pinned(command, cpu), server_pid, args.warmup)
        seconds = raw["duration_us"] / 1e6
        gen_cpu *= seconds / (seconds + args.warmup)  # its own CPU, scaled to the measured part
    requests = int(raw["requests"])
    return LoadResult(
        name=name,
        generator=generator,
        requests=requests,
        seconds=seconds,
        p50_ms=raw["p50_us"] / 1000,
        p90_ms=raw["p90_us"] / 1000,
        p99_ms=raw["p99_us"] / 1000,
        max_ms=raw["max_us"] / 1000,
        non2xx=int(raw["non2xx"]),
        socket_errors=_errors(raw) - int(raw["non2xx"]),
        bytes_per_response=raw["bytes"] / requests if requests else 0.0,
        server_cpu=server_cpu / raw["_window_s"] if raw["_window_s"] else None,
        generator_cpu=gen_cpu / seconds if seconds else None,
        background_cpu=max(0.0, raw["_busy_s"] - server_cpu - gen_cpu) / raw["_window_s"],
        quiet_before=quiet,
        warmup_errors=warmup_errors,
        raw=raw,
    )


def describe(result: LoadResult) -> str:
    return (
        f"{result.rps:,.0f} req/s, p50 {result.p50_ms:.2f} ms, p99 {result.p99_ms:.2f} ms, errors "
        f"{result.errors}, server CPU {_pct(result.server_cpu)}, "
        f"other processes {result.background_cpu:.2f} CPU"
    )


def cleanest(results: list[LoadResult]) -> LoadResult:
    """The round least disturbed by other processes (then the fastest): the figure reported."""
    return min(results, key=lambda r: (round(r.background_cpu, 1), -r.rps))


def _errors(raw: dict[str, Any]) -> int:
    sockets = sum(int(raw[k]) for k in ("connect_errors", "read_errors", "write_errors", "timeouts"))
    # wrk's own `status` errors (>= 400) are a subset of non2xx, which the response hook counts.
    return int(raw["non2xx"]) + sockets


# ---- checks ------------------------------------------------------------------------------------------


def check_roost(port: int, token: str, ids: list[str], database: Path) -> dict[str, Any]:
    """One request of each kind by hand, with the body checked, before any load."""
    with sqlite3.connect(database) as conn:
        row = conn.execute("SELECT author_id FROM posts WHERE id = ?", (int(ids[0]),)).fetchone()
    conn.close()
    author_id = str(row[0])
    auth = {"Authorization": f"Bearer {token}"}
    status, body = http_get(f"http://{HOST}:{port}/2/tweets/{ids[0]}{SINGLE_QUERY}", auth)
    single = json.loads(body)
    data = single.get("data") or {}
    users = (single.get("includes") or {}).get("users") or []
    if status != 200 or data.get("id") != ids[0] or len(users) != 1 or users[0]["id"] != author_id:
        raise SystemExit(f"single lookup check failed: {status} {body[:300]!r}")
    if "created_at" not in data or "public_metrics" not in data:
        raise SystemExit(f"single lookup lacks the requested fields: {body[:300]!r}")
    batch_ids = ids[1:101]
    status, body = http_get(f"http://{HOST}:{port}/2/tweets?ids={','.join(batch_ids)}", auth)
    batch = json.loads(body)
    if status != 200 or [d["id"] for d in batch.get("data", [])] != batch_ids or "errors" in batch:
        got = [d["id"] for d in batch.get("data", [])]
        raise SystemExit(
            f"batch lookup check failed: {status}, {len(got)} of {len(batch_ids)} returned, "
            f"order kept: {got == batch_ids}, errors: {str(batch.get('errors'))[:300]}"
        )
    status, _ = http_get(f"http://{HOST}:{port}/2/tweets/{ids[0]}")
    if status != 401:
        raise SystemExit(f"a request without credentials answered {status}, not 401")
    return {"single_example": single, "batch_bytes": len(body)}


# ---- report ------------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=False).stdout.strip()
    return {
        "nproc": nproc or str(os.cpu_count()),
        "cpu_model": model,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "versions": {
            name: metadata.version(name) for name in ("uvicorn", "uvloop", "httptools", "starlette", "orjson")
        },
        "sqlite": sqlite3.sqlite_version,
    }


def mark(ok: bool) -> str:
    return "**met**" if ok else "**NOT met**"


def write_report(path: Path, report: dict[str, Any]) -> None:
    loads: dict[str, LoadResult] = report["loads"]
    bare, single, batch = loads["bare"], loads["single"], loads["batch"]
    m = report["machine"]
    rss = report["rss_kb"]
    data = report["data"]
    pin = report["pinning"]
    single_ratio = single.rps / bare.rps if bare.rps else 0.0
    batch_ratio = batch.rps / bare.rps if bare.rps else 0.0
    idle_mb = rss["after_load"] / 1024
    lines = [
        "# roost benchmark results",
        "",
        f"Written by `bench/run.py` on {report['date']}. Rerun: `.venv/bin/python bench/run.py`.",
        "",
        "| | |",
        "|---|---|",
        f"| date (UTC) | {report['date']} |",
        f"| machine | nproc {m['nproc']}, {m['cpu_model']}, {m['memory_gb']} GiB, Linux {m['kernel']} |",
        f"| software | Python {m['python']}, "
        + ", ".join(f"{k} {v}" for k, v in m["versions"].items())
        + f", SQLite {m['sqlite']} |",
        "| server | one process: uvicorn, uvloop loop, httptools parser, 1 worker, log level warning, "
        "no access log; roost with `--no-rate-limits` settings on SQLite (bench/serve.py) |",
        f"| baseline | bare ASGI app (200, {report['bare_body_bytes']}-byte JSON body), the same server and "
        "settings, its own process (idle while roost is measured, and the reverse) |",
        f"| generator | {report['generator_label']} |",
        f"| connections | {report['connections']} keep-alive, {report['warmup']:g} s warm-up then "
        f"{report['duration']:g} s measured, per scenario; {report['rounds_count']} rounds of (a), (b), "
        "(c) |",
        f"| CPU pinning | {pin} |",
        f"| data | {data['rows']['users']:,} users, {data['rows']['posts']:,} posts, "
        f"{data['rows']['post_mentions']:,} mentions (demo seed + `load_bulk`), "
        f"{data['bytes'] / 2**20:.0f} MiB SQLite file; bulk load {data['bulk']['seconds']:.1f} s "
        f"({'cached build reused' if data['reused'] else 'built in this run'}) |",
        "",
        "## Throughput and latency",
        "",
        "| scenario | req/s | p50 ms | p99 ms | max ms | errors (non-2xx + socket) | roost/bare "
        "| server CPU | server CPU µs/request | generator CPU | other processes (CPUs) | bytes/response |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, result, ratio in (
        ("(a) bare ASGI `GET /`", bare, None),
        (
            "(b) `GET /2/tweets/:id?expansions=author_id&tweet.fields=created_at,public_metrics`",
            single,
            single_ratio,
        ),
        ("(c) `GET /2/tweets?ids=<100 ids>`", batch, batch_ratio),
    ):
        lines.append(
            f"| {label} | {result.rps:,.0f} | {result.p50_ms:.2f} | {result.p99_ms:.2f} | "
            f"{result.max_ms:.1f} | {result.errors} ({result.non2xx} + {result.socket_errors}) | "
            f"{'—' if ratio is None else f'{ratio:.3f}'} | {_pct(result.server_cpu)} | "
            f"{result.cpu_us_per_request:.0f} | "
            f"{_pct(result.generator_cpu)} | {result.background_cpu:.2f} | "
            f"{result.bytes_per_response:,.0f} |"
        )
    lines += [
        "",
        f"Ids are drawn at random from the {report['lookup_ids']:,} stored posts the app-only bearer token "
        f"(the demo app's) may see; the {report['hidden_ids']:,} posts of protected accounts are left out, "
        "as their lookups answer an authorization error instead of the post. "
        "Server CPU is the server process's CPU time over the measured window (100% = one "
        "core saturated; per request, it is the cost that throughput is the inverse of); "
        "other processes' CPU is the rest of the machine's busy time in the same window "
        "(in CPUs; this machine is shared, and each scenario first waits up to "
        f"{report['quiet_wait']:g} s for it to go quiet). Each figure is the round least disturbed by "
        "other processes (then the fastest); every round is listed below.",
        "",
        "### Every round",
        "",
        "| round | scenario | req/s | p50 ms | p99 ms | errors | warm-up errors | server CPU "
        "| other processes' CPU | reported |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, results in report["rounds"].items():
        for number, result in enumerate(results, 1):
            lines.append(
                f"| {number} | {name} | {result.rps:,.0f} | {result.p50_ms:.2f} | {result.p99_ms:.2f} | "
                f"{result.errors} | {result.warmup_errors} | {_pct(result.server_cpu)} | "
                f"{result.background_cpu:.2f} | {'yes' if result is loads[name] else ''} |"
            )
    all_errors = sum(r.errors for results in report["rounds"].values() for r in results)
    lines += [
        "",
        "## Memory (roost server process, VmRSS from /proc/PID/status)",
        "",
        "| when | RSS MB |",
        "|---|---:|",
        f"| right after start (health answered) | {rss['after_start'] / 1024:.1f} |",
        f"| after the load, {report['settle']:g} s idle | {idle_mb:.1f} |",
        f"| peak (VmHWM) | {rss['peak'] / 1024:.1f} |",
        "",
        "## Targets",
        "",
        "| target | measured | |",
        "|---|---:|---|",
        f"| single lookup ≥ {TARGETS['single_rps']:,.0f} req/s | {single.rps:,.0f} | "
        f"{mark(single.rps >= TARGETS['single_rps'])} |",
        f"| single lookup ≥ {TARGETS['single_ratio']} × bare | {single_ratio:.3f} | "
        f"{mark(single_ratio >= TARGETS['single_ratio'])} |",
        f"| zero errors (every measured round of every scenario) | {all_errors} | {mark(all_errors == 0)} |",
        f"| idle RSS < {TARGETS['idle_rss_mb']:.0f} MB | {idle_mb:.1f} | "
        f"{mark(idle_mb < TARGETS['idle_rss_mb'])} |",
        "",
    ]
    if report.get("profile"):
        lines += [
            "## Hot path profile (in-process, `bench/profile_hot.py`)",
            "",
            report["profile"].rstrip(),
            "",
        ]
    previous = path.read_text() if path.exists() else ""
    if NOTES_MARKER in previous:  # hand-written analysis below the marker survives a rerun
        lines += ["", previous[previous.index(NOTES_MARKER) :].rstrip()]
    path.write_text("\n".join(lines) + "\n")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


# ---- main --------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--duration", type=int, default=10, help="measured seconds per scenario")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up seconds per scenario")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the three scenarios")
    parser.add_argument("--settle", type=float, default=3.0, help="idle seconds before the last RSS reading")
    parser.add_argument(
        "--quiet-wait",
        type=float,
        default=60.0,
        help="before each scenario, wait up to this many seconds for other processes to go quiet",
    )
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached database")
    parser.add_argument("--no-profile", action="store_true", help="skip the in-process profile")
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args()
    if not 1 <= args.duration <= 120 or not 0 <= args.warmup <= 30 or not 1 <= args.connections <= 1024:
        parser.error("duration 1-120 s, warm-up 0-30 s, connections 1-1024")

    work = Path(tempfile.mkdtemp(prefix="roost-bench-"))
    log = work / "servers.log"
    try:
        database, data = ensure_database(args.users, args.posts, args.seed, args.rebuild, log)

        wrk = ensure_wrk() if args.generator in ("auto", "wrk") else None
        if args.generator == "wrk" and wrk is None:
            raise SystemExit("wrk is not installed and could not be installed")
        generator = "wrk" if wrk else "python"
        label = (
            f"{wrk_version(wrk)} (Debian package), 1 thread, bench/load.lua (random ids, non-2xx counted "
            "in a `response` hook)"
            if wrk
            else "bench/loadgen.py (Python asyncio + uvloop, raw keep-alive sockets; "
            + ("chosen with --generator python)" if args.generator == "python" else "no wrk to be had)")
        )
        server_cpu, generator_cpu = cpu_layout()
        pinning = (
            f"server on CPU {server_cpu}, load generator on CPU {generator_cpu} (taskset -c)"
            if server_cpu is not None
            else "none (one CPU available): server and generator share it"
        )
        print(f"generator: {label}\npinning: {pinning}")

        served = work / "roost.db"
        shutil.copyfile(database, served)
        ids_file = work / "ids.txt"
        with sqlite3.connect(served) as conn:
            # Every stored post the app-only token may see: not deleted, author not protected.
            ids = [str(r[0]) for r in conn.execute(VISIBLE_POSTS)]
            hidden = conn.execute("SELECT count(*) FROM posts").fetchone()[0] - len(ids)
        conn.close()
        ids_file.write_text("\n".join(ids) + "\n")

        # One roost server and, in a process of its own, the bare ASGI baseline; both on the server CPU
        # (the one not under load is idle). Rounds interleave the three scenarios so that a burst of
        # other work on this shared machine does not land on one scenario only.
        bare_port, roost_port = free_port(), free_port()
        bare_command = [PYTHON, str(BENCH / "serve.py"), "bare", "--port", str(bare_port)]
        bare = spawn(bare_command, server_cpu, log)
        url = f"sqlite:///{served}"
        roost_command = [PYTHON, str(BENCH / "serve.py"), "roost", "--db", url, "--port", str(roost_port)]
        roost = spawn(roost_command, server_cpu, log)
        rss: dict[str, int] = {}
        rounds: dict[str, list[LoadResult]] = {"bare": [], "single": [], "batch": []}
        try:
            wait_ready(f"http://{HOST}:{bare_port}/", bare, log)
            bare_body = http_get(f"http://{HOST}:{bare_port}/")[1]
            wait_ready(f"http://{HOST}:{roost_port}/_roost/health", roost, log)
            rss["after_start"] = proc_status_kb(roost.pid, "VmRSS")
            status, body = http_get(f"http://{HOST}:{roost_port}/_roost/credentials")
            token = json.loads(body)["bearer_token"] if status == 200 else ""
            if not token:
                raise SystemExit(f"no bearer token from /_roost/credentials ({status})")
            check_roost(roost_port, token, ids[len(ids) // 2 :], served)
            plan = (
                ("bare", "(a) bare ASGI", bare_port, None, "", bare.pid),
                ("single", "(b) roost single lookup", roost_port, ids_file, token, roost.pid),
                ("batch", "(c) roost 100-id lookup", roost_port, ids_file, token, roost.pid),
            )
            for number in range(1, args.rounds + 1):
                for name, title, port, ids_path, bearer, pid in plan:
                    result = run_load(
                        name, generator, wrk, port, name, ids_path, bearer, args, generator_cpu, pid
                    )
                    rounds[name].append(result)
                    print(f"round {number}/{args.rounds} {title}: {describe(result)}")
            time.sleep(args.settle)
            rss["after_load"] = proc_status_kb(roost.pid, "VmRSS")
            rss["peak"] = proc_status_kb(roost.pid, "VmHWM")
        finally:
            stop(roost)
            stop(bare)
        if roost.returncode not in (0, None):
            print(f"note: roost exited with {roost.returncode}\n{tail(log)}")
        loads = {name: cleanest(results) for name, results in rounds.items()}

        profile = ""
        if not args.no_profile:
            print("profiling the hot path in-process ...")
            shutil.copyfile(database, work / "profile.db")
            out = subprocess.run(
                pinned(
                    [PYTHON, str(BENCH / "profile_hot.py"), "--db", f"sqlite:///{work / 'profile.db'}"],
                    server_cpu,
                ),
                capture_output=True,
                text=True,
                check=False,
                cwd=ROOT,
            )
            if out.returncode != 0:
                print(f"profile failed:\n{out.stdout}\n{out.stderr}")
            profile = out.stdout

        report = {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(),
            "generator": generator,
            "generator_label": label,
            "pinning": pinning,
            "connections": args.connections,
            "duration": args.duration,
            "warmup": args.warmup,
            "settle": args.settle,
            "quiet_wait": args.quiet_wait,
            "data": data,
            "loads": loads,
            "rounds": rounds,
            "rounds_count": args.rounds,
            "rss_kb": rss,
            "bare_body_bytes": len(bare_body),
            "profile": profile,
            "lookup_ids": len(ids),
            "hidden_ids": hidden,
        }
        write_report(args.output, report)
        summary = {
            name: {
                "rps": round(r.rps),
                "server_cpu_us_per_request": round(r.cpu_us_per_request, 1),
                "p50_ms": r.p50_ms,
                "p99_ms": r.p99_ms,
                "errors": r.errors,
                "server_cpu": r.server_cpu,
                "background_cpu": r.background_cpu,
            }
            for name, r in loads.items()
        }
        (CACHE / "last-run.json").write_text(
            json.dumps(
                {
                    **{k: v for k, v in report.items() if k not in ("loads", "rounds")},
                    "loads": summary,
                    "rounds": {name: [asdict(r) for r in results] for name, results in rounds.items()},
                },
                indent=2,
            )
        )
        print(json.dumps(summary, indent=2))
        print(f"RSS MB: start {rss['after_start'] / 1024:.1f}, after load {rss['after_load'] / 1024:.1f}")
        print(f"wrote {args.output}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
