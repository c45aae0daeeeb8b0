"""The write path: `POST /2/tweets` at 64 in flight against one roost process with a subscribed webhook
(deliveries running), 1,000 filtered-stream rules and one stream connection open; the single lookup
in the same run as the baseline; then writes with reads mixed in. Writes bench/WRITES.md.

    .venv/bin/python -m bench.writes                                  # SQLite, 3 rounds of 10 s
    .venv/bin/python -m bench.writes --db-kinds sqlite,postgresql     # both; --help for the rest

Per database kind: a fresh database (SQLite file, or a new `roost_bench_writes_*` PostgreSQL database,
dropped afterwards), one bench/serve.py roost process (`--no-rate-limits` settings, demo data seeded)
pinned to the server CPU; a receiver process (bench/writes_setup.py, pinned to the generator CPU)
registered as a webhook with the demo user subscribed, which also holds the filtered stream open; the
rules added with the app's bearer token. Then --rounds rounds of
(a) single lookup: bench/load.lua `single` (bench/run.py's (b)) over the server's posts, --connections;
(b) writes: bench/writes.lua, unique texts with words, hashtags and mentions, --connections;
(c) mixed: (b) and, at the same time, a second wrk doing (a) with --read-connections;
each after a wait for a quiet machine, a 2 s warm-up (its posts count as acknowledged too) and
--duration s measured with wrk (1 thread, pinned to the generator CPU). After (b) and (c) the
benchmark waits (up to 60 s) until every acknowledged post id reached the receiver and the server has
no pending delivery and no event log lag. Figures are medians over the rounds; every round is shown.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/writes.py`: the repository root makes `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import (
    BENCH,
    HOST,
    PYTHON,
    LoadResult,
    _errors,
    cpu_layout,
    ensure_wrk,
    free_port,
    http_get,
    machine_busy_seconds,
    pinned,
    proc_cpu_seconds,
    spawn,
    stop,
    tail,
    wait_for_quiet,
    wait_ready,
    wrk_version,
)
from bench.processes import fresh_database
from bench.report import machine, mark
from bench.writes_setup import (
    backend_cpu,
    backlog,
    database_facts,
    make_rules,
    prepare,
    receiver_call,
    receiver_main,
    wait_receiver,
    write_words_file,
)

TARGET_POSTS = 3000.0
TARGET_P99_MS = 100.0
TARGET_RATIO = 0.12
TARGET_MIXED_P99_MS = 200.0
DRAIN_S = 60.0
SCENARIOS = ("single", "writes", "mixed_writes", "mixed_reads")
TITLES = {
    "single": "(a) single lookup",
    "writes": "(b) `POST /2/tweets`",
    "mixed_writes": "(c) mixed: writes",
    "mixed_reads": "(c) mixed: reads",
}


@dataclass
class Env:
    """One server under test and what the scenarios need to load it."""

    wrk: str
    port: int
    server_pid: int
    receiver_port: int
    receiver_pid: int
    db_url: str
    ids_file: Path
    words_file: Path
    user_token: str
    app_token: str
    work: Path
    cpu: int | None  # the generator CPU


# ---- load and measurement -------------------------------------------------------------------------------


def wrk_writes(env: Env, args: argparse.Namespace, seconds: int, ids_out: Path) -> list[str]:
    command = [env.wrk, "-t1", f"-c{args.connections}", f"-d{seconds}s", "--timeout", "5s"]
    command += ["-s", str(BENCH / "writes.lua"), "-H", f"Authorization: Bearer {env.user_token}"]
    nonce = uuid.uuid4().hex[:10]  # texts are unique across runs: a repeated text is refused
    command += [f"http://{HOST}:{env.port}", "--", str(env.words_file), str(ids_out), nonce, str(args.seed)]
    return pinned(command, env.cpu)


def wrk_reads(env: Env, args: argparse.Namespace, seconds: int, connections: int) -> list[str]:
    command = [env.wrk, "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s"]
    command += ["-s", str(BENCH / "load.lua"), "-H", f"Authorization: Bearer {env.app_token}"]
    command += [f"http://{HOST}:{env.port}", "--", "single", str(env.ids_file), str(args.seed)]
    return pinned(command, env.cpu)


def side_cpu(env: Env) -> tuple[float, float]:
    """(receiver process CPU seconds, PostgreSQL backends' CPU seconds) so far."""
    return proc_cpu_seconds(env.receiver_pid), backend_cpu(env.db_url)


def measure(env: Env, commands: list[list[str]]) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Run the wrk commands together; their result lines and the CPU seconds spent in the window."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    processes = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for c in commands]
    server0, (receiver0, db0), busy0 = proc_cpu_seconds(env.server_pid), side_cpu(env), machine_busy_seconds()
    started = time.perf_counter()
    outputs = [process.communicate(timeout=600) for process in processes]
    window = time.perf_counter() - started
    server, (receiver, db), busy = proc_cpu_seconds(env.server_pid), side_cpu(env), machine_busy_seconds()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the wrks are the only children reaped here
    cpu = {
        "window": window,
        "server": server - server0,
        "receiver": receiver - receiver0,
        "db": db - db0,
        "generator": sum(getattr(after, f) - getattr(before, f) for f in ("ru_utime", "ru_stime")),
        "busy": busy - busy0,
    }
    raws = []
    for process, (out, err) in zip(processes, outputs, strict=True):
        lines = [x for x in out.decode(errors="replace").splitlines() if x.startswith("WRK_RESULT ")]
        if not lines:
            raise SystemExit(f"wrk failed ({process.returncode}):\n{out.decode()}\n{err.decode()}")
        raws.append(json.loads(lines[-1].removeprefix("WRK_RESULT ")))
    return raws, cpu


def to_result(name: str, raw: dict[str, Any], cpu: dict[str, float], quiet: float, warm: int) -> LoadResult:
    seconds, window = raw["duration_us"] / 1e6, cpu["window"]
    own = cpu["server"] + cpu["generator"] + cpu["receiver"] + cpu["db"]
    return LoadResult(
        name=name,
        generator="wrk",
        requests=int(raw["requests"]),
        seconds=seconds,
        p50_ms=raw["p50_us"] / 1000,
        p90_ms=raw["p90_us"] / 1000,
        p99_ms=raw["p99_us"] / 1000,
        max_ms=raw["max_us"] / 1000,
        non2xx=int(raw["non2xx"]),
        socket_errors=_errors(raw) - int(raw["non2xx"]),
        bytes_per_response=raw["bytes"] / raw["requests"] if raw["requests"] else 0.0,
        server_cpu=cpu["server"] / window,
        generator_cpu=(cpu["generator"] + cpu["receiver"]) / window,  # everything on the generator CPU
        warmup_errors=warm,
        background_cpu=max(0.0, cpu["busy"] - own) / window,
        quiet_before=quiet,
        raw={**raw, "cpu": cpu},
    )


def wait_drained(env: Env, files: list[Path], ended: float) -> dict[str, Any]:
    """Until every acknowledged post reached the receiver and the server has nothing left to deliver."""
    query = "/_missing?files=" + ",".join(str(f) for f in files)
    server0, deadline = proc_cpu_seconds(env.server_pid), ended + DRAIN_S
    while True:
        seen = receiver_call(env.receiver_port, query)
        state = backlog(env.port)
        busy = state.get("pending", 0) + state.get("sending", 0) + state.get("lag", 0)
        if (seen["missing"] == 0 and busy == 0) or time.perf_counter() >= deadline:
            break
        time.sleep(0.1)
    return {
        **seen,
        "drain_s": time.perf_counter() - ended,
        "drained": seen["missing"] == 0 and busy == 0,
        "backlog": state,
        "drain_cpu_s": proc_cpu_seconds(env.server_pid) - server0,
    }


def run_scenario(
    env: Env, args: argparse.Namespace, label: str, writes: bool, reads: int
) -> list[LoadResult]:
    """Writes and/or reads (`reads` connections): a warm-up, the measured run and, with writes, the
    wait for every delivery. The results: the writes' first."""
    quiet = wait_for_quiet(args.quiet_wait)
    warm_ids, ids = env.work / f"{label}.warm.ids", env.work / f"{label}.ids"
    warm_seconds = max(1, round(args.warmup))

    def commands(seconds: int, out: Path) -> list[list[str]]:
        wrks = [wrk_writes(env, args, seconds, out)] if writes else []
        return wrks + ([wrk_reads(env, args, seconds, reads)] if reads else [])

    before = receiver_call(env.receiver_port, "/_stats")
    warm_raws, _ = measure(env, commands(warm_seconds, warm_ids))
    raws, cpu = measure(env, commands(args.duration, ids))
    names = (("mixed_writes", "mixed_reads") if reads else ("writes",)) if writes else ("single",)
    results = [
        to_result(n, r, cpu, quiet, _errors(w)) for n, r, w in zip(names, raws, warm_raws, strict=True)
    ]
    if writes:
        drained = wait_drained(env, [warm_ids, ids], time.perf_counter())
        after = receiver_call(env.receiver_port, "/_stats")
        drained["stream_lines"] = after["stream_lines"] - before["stream_lines"]
        drained["deliveries"] = after["deliveries"] - before["deliveries"]
        results[0].raw.update(drained, warm_created=warm_raws[0]["created"])
    return results


def post_figures(result: LoadResult) -> dict[str, float]:
    """Posts (201s) per second and server CPU per post, in the window and with the delivery drain."""
    created = int(result.raw["created"])
    cpu = result.raw["cpu"]
    return {
        "posts_s": created / result.seconds if result.seconds else 0.0,
        "cpu_us": cpu["server"] / created * 1e6 if created else float("nan"),
        "cpu_drain_us": (cpu["server"] + result.raw["drain_cpu_s"]) / created * 1e6 if created else 0.0,
        "db_us": cpu["db"] / created * 1e6 if created else float("nan"),
    }


# ---- one database kind ------------------------------------------------------------------------------------


@contextlib.contextmanager
def database(kind: str, work: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{work / 'writes.db'}"
    else:
        with fresh_database("writes") as url:
            yield url


def run_kind(kind: str, args: argparse.Namespace, wrk: str, work: Path) -> dict[str, Any]:
    server_cpu, generator_cpu = cpu_layout()
    with database(kind, work) as db_url:
        port, log = free_port(), work / f"{kind}-server.log"
        command = [PYTHON, str(BENCH / "serve.py"), "roost", "--db", db_url, "--port", str(port)]
        print(f"[{kind}] starting roost on {db_url.split('@')[-1]} ...", flush=True)
        server = spawn(command, server_cpu, log)
        receiver: subprocess.Popen[bytes] | None = None
        try:
            wait_ready(f"http://{HOST}:{port}/_roost/health", server, log)
            status, body = http_get(f"http://{HOST}:{port}/_roost/credentials")
            creds = json.loads(body) if status == 200 else {}
            if not creds.get("oauth2_user_token"):
                raise SystemExit(f"/_roost/credentials answered {status}: {body[:200]!r}")
            ids, users = database_facts(db_url, str(creds["user_id"]))
            ids_file, words_file = work / f"{kind}-lookup.ids", work / f"{kind}-words.txt"
            ids_file.write_text("\n".join(ids) + "\n")
            write_words_file(words_file, args.seed, users)
            receiver_port = free_port()
            command = [PYTHON, "-m", "bench.writes", "receiver", "--port", str(receiver_port)]
            command += ["--secret", str(creds["consumer_secret"])]
            if not args.no_stream:
                command += ["--server", f"http://{HOST}:{port}", "--bearer", str(creds["bearer_token"])]
            receiver = spawn(command, generator_cpu, work / f"{kind}-receiver.log")
            wait_receiver(receiver_port, receiver, stream=False)
            rules = make_rules(args.rules, args.seed, users) if args.rules else []
            setup = asyncio.run(prepare(f"http://{HOST}:{port}", creds, receiver_port, rules))
            wait_receiver(receiver_port, receiver, stream=not args.no_stream)
            env = Env(
                wrk, port, server.pid, receiver_port, receiver.pid, db_url, ids_file, words_file,
                str(creds["oauth2_user_token"]), str(creds["bearer_token"]), work, generator_cpu,
            )  # fmt: skip
            rounds: list[dict[str, LoadResult]] = []
            for number in range(1, args.rounds + 1):
                found: dict[str, LoadResult] = {}
                found["single"] = run_scenario(
                    env, args, f"{kind}-r{number}-single", False, args.connections
                )[0]
                found["writes"] = run_scenario(env, args, f"{kind}-r{number}-writes", True, 0)[0]
                found["mixed_writes"], found["mixed_reads"] = run_scenario(
                    env, args, f"{kind}-r{number}-mixed", True, args.read_connections
                )
                rounds.append(found)
                for name in SCENARIOS:
                    print(
                        f"[{kind}] round {number}/{args.rounds} {TITLES[name]}: {line(found[name])}",
                        flush=True,
                    )
            final = receiver_call(receiver_port, "/_stats")
            measured_log = log.stat().st_size  # what the server logged before it was asked to stop
            state = backlog(port)
        except BaseException:
            sys.stderr.write(f"server log ({log}):\n{tail(log, 40)}\n")
            raise
        finally:
            stopping_at = time.perf_counter()
            stop(server)
            stop_s = time.perf_counter() - stopping_at
            after_stop: dict[str, Any] = {}
            if receiver is not None:
                with contextlib.suppress(OSError, RuntimeError):
                    after_stop = receiver_call(receiver_port, "/_stats")
                stop(receiver)
    text = log.read_bytes()

    def problems(part: bytes) -> list[str]:
        lines = part.decode(errors="replace").splitlines()
        return [x for x in lines if "Traceback" in x or "ERROR" in x or "Exception" in x]

    stopping = text[measured_log:].decode(errors="replace").strip().splitlines()
    reconnects = after_stop.get("stream_connects", 0) - final["stream_connects"]
    return {
        "kind": kind,
        "rounds": rounds,
        "setup": setup,
        "lookup_ids": len(ids),
        "users": len(users) + 1,
        "receiver": final,
        "backlog": state,
        "log_problems": problems(text[:measured_log]),
        "log_tail": tail(log, 15) if problems(text[:measured_log]) else "",
        "stop_problems": problems(text[measured_log:]),
        "stop_log": stopping[-1] if stopping else "",
        "stop_s": stop_s,
        "stop_reconnects": reconnects,
        "exit": server.returncode,
        "connections": args.connections,
    }


def line(result: LoadResult) -> str:
    text = f"{result.rps:,.0f} req/s, p50 {result.p50_ms:.1f} ms, p99 {result.p99_ms:.1f} ms, "
    text += f"errors {result.errors}, server CPU {result.server_cpu or 0:.0%}"
    if "created" in result.raw and "missing" in result.raw:
        text += (
            f", {post_figures(result)['posts_s']:,.0f} posts/s, delivered "
            f"{result.raw['acked'] - result.raw['missing']}/{result.raw['acked']} in "
            f"{result.raw['drain_s']:.1f} s"
        )
    return text + f", other processes {result.background_cpu:.2f} CPU"


# ---- report -----------------------------------------------------------------------------------------------


def med(rounds: list[dict[str, LoadResult]], name: str, key: str) -> float:
    def value(r: LoadResult) -> float:
        if key in ("posts_s", "cpu_us", "cpu_drain_us", "db_us"):
            return post_figures(r)[key]
        return float(getattr(r, key))

    return statistics.median(value(found[name]) for found in rounds)


def verdicts(run: dict[str, Any]) -> dict[str, tuple[bool, str]]:
    rounds = run["rounds"]
    posts, single = med(rounds, "writes", "posts_s"), med(rounds, "single", "rps")
    p99, mixed = med(rounds, "writes", "p99_ms"), med(rounds, "mixed_writes", "p99_ms")
    ratio = posts / single if single else 0.0
    errors = sum(r[n].errors + r[n].warmup_errors for r in rounds for n in SCENARIOS)
    writes = [r[n] for r in rounds for n in ("writes", "mixed_writes")]
    acked, missing = sum(w.raw["acked"] for w in writes), sum(w.raw["missing"] for w in writes)
    return {
        f"≥ {TARGET_POSTS:,.0f} posts/s (b)": (posts >= TARGET_POSTS, f"{posts:,.0f}"),
        f"p99 < {TARGET_P99_MS:.0f} ms (b)": (p99 < TARGET_P99_MS, f"{p99:.1f} ms"),
        f"ratio (b) posts/s ÷ (a) req/s ≥ {TARGET_RATIO}": (ratio >= TARGET_RATIO, f"{ratio:.3f}"),
        f"mixed write p99 < {TARGET_MIXED_P99_MS:.0f} ms (c)": (
            mixed < TARGET_MIXED_P99_MS,
            f"{mixed:.1f} ms",
        ),
        "zero errors (all scenarios, warm-ups included)": (errors == 0, str(errors)),
        "every acknowledged post delivered": (acked > 0 and missing == 0, f"{acked - missing:,} / {acked:,}"),
    }


def report(runs: list[dict[str, Any]], args: argparse.Namespace, wrk: str, elapsed: float) -> str:
    m = machine()
    server_cpu, generator_cpu = cpu_layout()
    rerun = f".venv/bin/python -m bench.writes --rounds {args.rounds} --duration {args.duration}"
    rerun += f" --connections {args.connections} --read-connections {args.read_connections}"
    rerun += f" --rules {args.rules} --db-kinds {','.join(args.db_kinds)}" + " --no-stream" * args.no_stream
    versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items())
    first = runs[0]
    lines = [
        "# Write path benchmark",
        "",
        f"Written by `bench/writes.py` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC ({elapsed / 60:.1f} min). "
        f"Rerun: `{rerun}`.",
        "",
        "| | |",
        "|---|---|",
        f"| machine | nproc {m['nproc']}, {m['cpu_model']}, {m['memory_gb']} GiB, Linux {m['kernel']}; "
        "shared with other work |",
        f"| software | Python {m['python']}, {versions}, aiohttp {metadata.version('aiohttp')}, SQLite "
        f"{m['sqlite']}, {wrk_version(wrk)}"
        + (f", {pg_version()}" if "postgresql" in args.db_kinds else "")
        + " |",
        "| server | one bench/serve.py roost process (uvicorn, uvloop, httptools, 1 worker, "
        f"`--no-rate-limits` settings, demo data seeded on the empty database), on CPU {server_cpu} |",
        f"| data | fresh database per kind: demo seed ({first['users']} users, {first['lookup_ids']} posts "
        "visible to the app); the posts written by the benchmark accumulate over the rounds |",
        "| webhook | a receiver process (aiohttp, bench/writes_setup.py) on the generator CPU, registered "
        "with `POST /2/webhooks` (CRC answered) and the demo user subscribed to all account activity; it "
        "checks every signature and keeps the post ids of `tweet_create_events` |",
        f"| stream | {args.rules:,} filtered-stream rules (8 shapes: phrases, `#tag`, `from:`, `lang:`, "
        "`@user`, OR groups, negations, `-is:`) added in batches of 100; "
        + (
            "no stream connection (--no-stream) |"
            if args.no_stream
            else "one `GET /2/tweets/search/stream` "
            "connection held open by the receiver process, read and counted |"
        ),
        f"| generator | {wrk_version(wrk)}, 1 thread per wrk, on CPU {generator_cpu} with the receiver; "
        f"{args.warmup:g} s warm-up then {args.duration} s measured per scenario; --timeout 5 s |",
        f"| (a) | `GET /2/tweets/:id?expansions=author_id&tweet.fields=created_at,public_metrics` (app "
        f"bearer), random ids of the server's posts, {args.connections} connections (bench/load.lua) |",
        f"| (b) | `POST /2/tweets` (demo user's OAuth 2 token), unique texts of 9 words + "
        "nonce/thread/counter, 30% with a hashtag, 20% with a mention, "
        f"{args.connections} connections (bench/writes.lua) |",
        f"| (c) | (b) at {args.connections} connections and, at the same time, (a) at "
        f"{args.read_connections} connections, each from its own wrk |",
        f"| delivery | after (b) and (c): wait (≤ {DRAIN_S:.0f} s) until every acknowledged post id (the "
        "201s of the warm-up and the measured run) reached the receiver and `/_roost/metrics` shows no "
        "pending or sending delivery and no event log lag |",
        f"| order | {args.rounds} rounds of (a), (b), (c); before each, a wait (≤ {args.quiet_wait:g} s) "
        "for other processes to go quiet; **figures are medians over the rounds** |",
        "",
    ]
    for run in runs:
        lines += kind_section(run)
    lines += ["## Targets", "", "| target | " + " | ".join(r["kind"] for r in runs) + " |"]
    lines.append("|---|" + "---|" * len(runs))
    checks = [verdicts(r) for r in runs]
    for target in checks[0]:
        lines.append(
            f"| {target} | " + " | ".join(f"{mark(c[target][0])} ({c[target][1]})" for c in checks) + " |"
        )
    lines += [
        "",
        "The targets are set for SQLite; PostgreSQL is reported against the same figures. The ratio is "
        "acknowledged posts/s (201s only) ÷ single-lookup req/s, medians of the same run.",
    ]
    return "\n".join(lines) + "\n"


def kind_section(run: dict[str, Any]) -> list[str]:
    rounds, kind = run["rounds"], run["kind"]
    rc, setup = run["receiver"], run["setup"]
    acked_all = sum(r[n].raw["acked"] for r in rounds for n in ("writes", "mixed_writes"))
    lines = [
        f"## {kind}",
        "",
        f"{setup['rules']:,} rules added (project count {setup['counts'].get('project_rules_count', '?')}). "
        f"Receiver over the whole run: {rc['deliveries']:,} deliveries, {rc['create_events']:,} post "
        f"events, {rc['distinct_ids']:,} distinct post ids, {rc['bad_signatures']} bad signatures, "
        f"{rc['other_bodies']} other bodies; stream: {rc['stream_connects']} connect(s), "
        f"{rc['stream_lines']:,} post lines, {rc['stream_keepalives']} keep-alives, "
        f"{rc['stream_errors']} errors, {rc['stream_refusals']} refusals. Server at the end: "
        f"{', '.join(f'{k} {v:g}' for k, v in run['backlog'].items())}; exit code {run['exit']}. "
        f"Posts created but never acknowledged (requests in flight when a wrk stopped, at most "
        f"{run['connections']} per wrk run): {rc['distinct_ids'] - acked_all:,} delivered beyond the "
        "acknowledged ones.",
        "",
        f"### Medians ({len(rounds)} rounds)",
        "",
        "| scenario | req/s | posts/s | p50 ms | p99 ms | max ms | errors | server CPU | server CPU µs/post "
        "(with delivery drain); PostgreSQL backends' | delivered / acknowledged | drain s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for name in SCENARIOS:
        writes = name in ("writes", "mixed_writes")
        cpu_us = ""
        if name == "writes":
            cpu_us = f"{med(rounds, name, 'cpu_us'):,.0f} ({med(rounds, name, 'cpu_drain_us'):,.0f})"
            if kind != "sqlite":
                cpu_us += f"; PostgreSQL {med(rounds, name, 'db_us'):,.0f}"
        elif name == "single":
            cpu_us = f"{statistics.median(r[name].cpu_us_per_request for r in rounds):,.0f} per lookup"
            if kind != "sqlite":
                db = statistics.median(r[name].raw["cpu"]["db"] / r[name].requests * 1e6 for r in rounds)
                cpu_us += f"; PostgreSQL {db:,.0f}"
        delivered = "—"
        if writes:
            acked = sum(r[name].raw["acked"] for r in rounds)
            delivered = f"{acked - sum(r[name].raw['missing'] for r in rounds):,} / {acked:,}"
        lines.append(
            f"| {TITLES[name]} | {med(rounds, name, 'rps'):,.0f} | "
            + (f"{med(rounds, name, 'posts_s'):,.0f}" if writes else "—")
            + f" | {med(rounds, name, 'p50_ms'):.1f} | {med(rounds, name, 'p99_ms'):.1f} | "
            f"{med(rounds, name, 'max_ms'):.1f} | {sum(r[name].errors for r in rounds)} | "
            f"{med(rounds, name, 'server_cpu'):.0%} | {cpu_us or '—'} | {delivered} | "
            + (f"{statistics.median(r[name].raw['drain_s'] for r in rounds):.1f}" if writes else "—")
            + " |"
        )
    lines += [
        "",
        "### Every round",
        "",
        "Server CPU: its share of one CPU in the window. Generator CPU: wrk(s) + the receiver process, on "
        "the generator CPU. Other: CPUs' worth used by the rest of the machine in the window. Warm-up "
        "errors are in brackets.",
        "",
        "| round | scenario | req/s | posts/s | p50 ms | p99 ms | max ms | errors | server CPU | generator "
        "CPU | other | delivered / acknowledged | drain s | stream post lines (warm-up + run + drain) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for number, found in enumerate(rounds, 1):
        for name in SCENARIOS:
            r = found[name]
            delivery = "— | — | —"
            if "missing" in r.raw:
                delivery = f"{r.raw['acked'] - r.raw['missing']:,} / {r.raw['acked']:,}"
                delivery += "" if r.raw["drained"] else " (not drained)"
                delivery += f" | {r.raw['drain_s']:.1f} | {r.raw['stream_lines']:,}"
            posts = f"{post_figures(r)['posts_s']:,.0f}" if "missing" in r.raw else "—"
            lines.append(
                f"| {number} | {TITLES[name]} | {r.rps:,.0f} | {posts} | {r.p50_ms:.1f} | {r.p99_ms:.1f} | "
                f"{r.max_ms:.1f} | {r.errors} ({r.warmup_errors}) | {r.server_cpu or 0:.0%} | "
                f"{r.generator_cpu or 0:.0%} | {r.background_cpu:.2f} | {delivery} |"
            )
    samples = {r[n].raw.get("first_error") for r in rounds for n in SCENARIOS} - {None, ""}
    if samples:
        lines += ["", "First error response bodies seen: " + "; ".join(f"`{s}`" for s in sorted(samples))]
    if run["log_problems"]:
        lines += ["", f"Server log: {len(run['log_problems'])} line(s) with errors; its end:", "", "```"]
        lines += [run["log_tail"], "```"]
    if run["stop_problems"]:
        lines += [
            "",
            f"Stopping the server (SIGINT, after the measurements) took {run['stop_s']:.1f} s; it logged "
            f"{len(run['stop_problems'])} error line(s), the last `{run['stop_log'][-200:]}`. The stream "
            f"reader reconnects as soon as its stream ends; it reconnected {run['stop_reconnects']} "
            "time(s) while the server was stopping.",
        ]
    return [*lines, ""]


def pg_version() -> str:
    with contextlib.suppress(Exception):
        import psycopg

        from bench.processes import PG

        with psycopg.connect(f"{PG}/postgres") as conn:
            row = conn.execute("SHOW server_version").fetchone()
            return f"PostgreSQL {row[0] if row else '?'}"
    return "PostgreSQL ?"


# ---- main -------------------------------------------------------------------------------------------------


def main() -> None:
    if sys.argv[1:2] == ["receiver"]:
        receiver_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10, help="measured seconds per scenario")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up seconds per scenario")
    parser.add_argument("--connections", type=int, default=64, help="(a) and (b) connections")
    parser.add_argument("--read-connections", type=int, default=16, help="the reads of (c)")
    parser.add_argument("--rules", type=int, default=1000, help="filtered-stream rules")
    parser.add_argument("--db-kinds", default="sqlite", help="comma-separated: sqlite, postgresql")
    parser.add_argument("--no-stream", action="store_true", help="no filtered stream connection")
    parser.add_argument("--quiet-wait", type=float, default=10.0, help="max wait for a quiet machine, s")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--output", type=Path, default=BENCH / "WRITES.md")
    args = parser.parse_args()
    args.db_kinds = [k.strip() for k in args.db_kinds.split(",") if k.strip()]
    if not args.db_kinds or set(args.db_kinds) - {"sqlite", "postgresql"}:
        parser.error("--db-kinds: sqlite and/or postgresql")
    if not 1 <= args.duration <= 120 or not 1 <= args.connections <= 1024 or args.rounds < 1:
        parser.error("duration 1-120 s, connections 1-1024, at least one round")
    wrk = ensure_wrk()
    if wrk is None:
        raise SystemExit("wrk is not installed and could not be installed")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="roost-bench-writes-") as work_dir:
        runs = [run_kind(kind, args, wrk, Path(work_dir)) for kind in args.db_kinds]
    text = report(runs, args, wrk, time.monotonic() - started)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
