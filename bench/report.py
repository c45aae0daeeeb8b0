"""bench/RESULTS.md from one run of bench/run.py: the set-up, every round, memory, the targets and the
in-process profile; the hand-written notes below the marker survive a rewrite."""

from __future__ import annotations

import os
import platform
import sqlite3
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.harness import LoadResult, pct

NOTES_MARKER = "<!-- notes: kept as they are when bench/run.py rewrites this file -->"
# single_ratio and batch_ratio: issue 19's targets (0.35 before it), each roost ÷ the bare app, same run.
TARGETS = {"single_rps": 5000.0, "single_ratio": 0.45, "batch_ratio": 0.06, "idle_rss_mb": 150.0}


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
    logged: LoadResult | None = loads.get("logged")
    unlogged: LoadResult | None = loads.get("unlogged")
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
        "| server | one process: uvicorn, uvloop loop, httptools parser, writes joined per loop step, "
        "whole-response extension offered (`roost.serving`), 1 worker, log level warning, no access "
        "log; roost with `--no-rate-limits` settings on SQLite (bench/serve.py) |",
        f"| baseline | bare ASGI app (200, {report['bare_body_bytes']}-byte JSON body, two plain ASGI "
        "messages), the same server and settings, its own process (idle while roost is measured, and "
        "the reverse) |",
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
        *(
            [
                ("(d) as (b), on a twin roost serving only this, request journal on (default)", logged, None),
                ("(e) as (d), its twin keeping no request journal (`--request-log 0`)", unlogged, None),
            ]
            if logged is not None and unlogged is not None
            else []
        ),
    ):
        lines.append(
            f"| {label} | {result.rps:,.0f} | {result.p50_ms:.2f} | {result.p99_ms:.2f} | "
            f"{result.max_ms:.1f} | {result.errors} ({result.non2xx} + {result.socket_errors}) | "
            f"{'—' if ratio is None else f'{ratio:.3f}'} | {pct(result.server_cpu)} | "
            f"{result.cpu_us_per_request:.0f} | "
            f"{pct(result.generator_cpu)} | {result.background_cpu:.2f} | "
            f"{result.bytes_per_response:,.0f} |"
        )
    if logged is not None and unlogged is not None and unlogged.rps and unlogged.cpu_us_per_request:
        journal_rps = logged.rps / unlogged.rps
        journal_cpu = logged.cpu_us_per_request / unlogged.cpu_us_per_request
        lines += [
            "",
            f"The request journal (issue 17): single lookup with it on ÷ off, (d) ÷ (e), same run: req/s "
            f"**{journal_rps:.3f}**, server CPU per request **{journal_cpu:.3f}** (target: within 5%: "
            f"{mark(journal_rps >= 0.95 and journal_cpu <= 1.05)}). The twins differ only in "
            "`--request-log`; both count the metrics and usage.",
        ]
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
                f"{result.errors} | {result.warmup_errors} | {pct(result.server_cpu)} | "
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
        f"| 100-id lookup ≥ {TARGETS['batch_ratio']} × bare | {batch_ratio:.3f} | "
        f"{mark(batch_ratio >= TARGETS['batch_ratio'])} |",
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
