"""Synchronous ads analytics under load, against the campaign list in the same run.

    .venv/bin/python bench/ads_stats.py                 # writes bench/ADS_STATS.md
    .venv/bin/python bench/ads_stats.py --duration 5    # shorter runs; --help for the rest

1. Data: a fresh roost database (the demo seed) where the demo advertiser (production account
   18ce54d4x5t) gets one ACTIVE campaign with 20 ACTIVE line items, each promoting one post, made
   through the API; roost's clock is then moved 8 days on, so the delivery model has a week to report.
2. Server: bench/serve.py roost (as `roost serve --no-rate-limits`), on its own CPU when there are two.
3. Load: a closed-loop generator in its own process (this file, `--generate`), on the other CPU: the
   ads API takes OAuth 1.0a only and refuses a replayed nonce, so every request is signed afresh
   (wrk cannot). Rounds interleave (c) `GET /12/accounts/:id/campaigns` and (s)
   `GET /12/stats/accounts/:id` for the 20 line items over 7 days at DAY granularity
   (ENGAGEMENT and BILLING). Each answer is checked before the load.
4. Report: req/s, p50, p99, server CPU per request of both, the ratio stats / campaigns, from the
   round least disturbed by other processes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

if __package__ in (None, ""):  # run as `python bench/ads_stats.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import (
    BENCH,
    HOST,
    PYTHON,
    cpu_layout,
    free_port,
    http_get,
    machine_busy_seconds,
    pinned,
    proc_cpu_seconds,
    spawn,
    stop,
    wait_for_quiet,
    wait_ready,
)
from bench.report import machine
from roost.auth.oauth1 import sign_request

ACCOUNT = "18ce54d4x5t"
LINE_ITEMS = 20


# ---- the generator (a separate process) --------------------------------------------------------


async def _connection(
    port: int,
    path: str,
    query: list[tuple[str, str]],
    keys: list[str],
    until: float,
    out: list[float],
    bad: list[int],
) -> None:
    reader, writer = await asyncio.open_connection(HOST, port)
    url = f"http://{HOST}:{port}{path}"
    target = path + ("?" + urlencode(query) if query else "")
    signed_url = url + ("?" + urlencode(query) if query else "")
    while time.perf_counter() < until:
        authorization = sign_request("GET", signed_url, keys[0], keys[1], token=keys[2], token_secret=keys[3])
        started = time.perf_counter()
        writer.write(
            f"GET {target} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAuthorization: {authorization}\r\n\r\n".encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        await reader.readexactly(length)
        out.append(time.perf_counter() - started)
        if not 200 <= status < 300:
            bad.append(status)
    writer.close()


async def _generate(args: argparse.Namespace) -> dict[str, Any]:
    spec = json.loads(args.generate)
    keys = spec["keys"]
    query = [tuple(pair) for pair in spec["query"]]
    warm: list[float] = []
    await asyncio.gather(
        *(
            _connection(args.port, spec["path"], query, keys, time.perf_counter() + args.warmup, warm, [])
            for _ in range(args.connections)
        )
    )
    latencies: list[float] = []
    bad: list[int] = []
    began = time.perf_counter()
    print("MEASURING", flush=True)
    await asyncio.gather(
        *(
            _connection(args.port, spec["path"], query, keys, began + args.duration, latencies, bad)
            for _ in range(args.connections)
        )
    )
    seconds = time.perf_counter() - began
    latencies.sort()

    def quantile(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else 0.0

    return {
        "requests": len(latencies),
        "seconds": seconds,
        "p50_ms": quantile(0.5),
        "p99_ms": quantile(0.99),
        "errors": len(bad),
    }


# ---- setup -----------------------------------------------------------------------------------


class Caller:
    def __init__(self, port: int, credentials: dict[str, Any]) -> None:
        self.base = f"http://{HOST}:{port}"
        self.keys = [
            credentials["consumer_key"],
            credentials["consumer_secret"],
            credentials["access_token"],
            credentials["access_token_secret"],
        ]

    def call(
        self, method: str, path: str, params: dict[str, Any] | None = None, json_body: Any = None
    ) -> Any:
        url = self.base + path + ("?" + urlencode(params) if params else "")
        authorization = sign_request(
            method, url, self.keys[0], self.keys[1], token=self.keys[2], token_secret=self.keys[3]
        )
        data = json.dumps(json_body).encode() if json_body is not None else None
        request = urllib.request.Request(
            url, data=data, method=method, headers={"Authorization": authorization}
        )
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())


def build_advertiser(port: int, credentials: dict[str, Any]) -> tuple[Caller, list[str]]:
    caller = Caller(port, credentials)
    instrument = caller.call("GET", f"/12/accounts/{ACCOUNT}/funding_instruments")["data"][0]["id"]
    campaign = caller.call(
        "POST",
        f"/12/accounts/{ACCOUNT}/campaigns",
        {
            "funding_instrument_id": instrument,
            "name": "bench campaign",
            "daily_budget_amount_local_micro": 500_000_000,
            "budget_optimization": "LINE_ITEM",
            "entity_status": "ACTIVE",
        },
    )["data"]["id"]
    post = caller.call("POST", "/2/tweets", json_body={"text": "bench: promoted post"})["data"]["id"]
    line_items = []
    for i in range(LINE_ITEMS):
        line_item = caller.call(
            "POST",
            f"/12/accounts/{ACCOUNT}/line_items",
            {
                "campaign_id": campaign,
                "name": f"bench line item {i}",
                "objective": "ENGAGEMENTS",
                "product_type": "PROMOTED_TWEETS",
                "placements": "ALL_ON_TWITTER",
                "bid_amount_local_micro": 150_000 + 10_000 * i,
                "daily_budget_amount_local_micro": 20_000_000,
                "entity_status": "ACTIVE",
            },
        )["data"]["id"]
        caller.call(
            "POST", f"/12/accounts/{ACCOUNT}/promoted_tweets", {"line_item_id": line_item, "tweet_ids": post}
        )
        line_items.append(line_item)
    moved = urllib.request.Request(
        caller.base + "/_roost/clock",
        data=json.dumps({"advance_seconds": 8 * 86400}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(moved, timeout=30) as response:
        now = json.loads(response.read())["now"]
    return caller, [now, *line_items]


def stats_query(now: str, line_items: list[str]) -> list[tuple[str, str]]:
    today = datetime.fromisoformat(now.replace("Z", "+00:00")).astimezone(UTC).date()
    end = today - timedelta(days=1)  # whole local days of the past week
    return [
        ("entity", "LINE_ITEM"),
        ("entity_ids", ",".join(line_items)),
        ("start_time", (end - timedelta(days=7)).isoformat()),
        ("end_time", end.isoformat()),
        ("granularity", "DAY"),
        ("metric_groups", "ENGAGEMENT,BILLING"),
        ("placement", "ALL_ON_TWITTER"),
    ]


# ---- measuring -------------------------------------------------------------------------------


def measure(
    name: str,
    path: str,
    query: list[tuple[str, str]],
    caller: Caller,
    args: argparse.Namespace,
    server: Any,
    cpu: int | None,
) -> dict[str, Any]:
    quiet = wait_for_quiet(args.quiet_wait)
    spec = json.dumps({"path": path, "query": query, "keys": caller.keys})
    command = [
        PYTHON,
        str(Path(__file__).resolve()),
        "--generate",
        spec,
        "--port",
        str(caller.base.rsplit(":", 1)[1]),
    ]
    command += [
        "--connections",
        str(args.connections),
        "--duration",
        str(args.duration),
        "--warmup",
        str(args.warmup),
    ]
    process = subprocess.Popen(pinned(command, cpu), stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()  # the warm-up is over
    assert line.strip() == "MEASURING", line
    cpu_before, busy_before, began = proc_cpu_seconds(server.pid), machine_busy_seconds(), time.perf_counter()
    output = process.stdout.read()
    process.wait()
    window = time.perf_counter() - began
    server_cpu = proc_cpu_seconds(server.pid) - cpu_before
    busy = machine_busy_seconds() - busy_before
    result = json.loads(output.strip().splitlines()[-1])
    result.update(
        name=name,
        rps=result["requests"] / result["seconds"],
        server_cpu=server_cpu / window,
        cpu_us=server_cpu / max(1, result["requests"]) * 1e6,
        background=max(0.0, busy - server_cpu) / window,
        quiet_before=quiet,
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quiet-wait", type=float, default=30.0)
    parser.add_argument("--output", type=Path, default=BENCH / "ADS_STATS.md")
    parser.add_argument("--generate", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        print(json.dumps(asyncio.run(_generate(args))), flush=True)
        return
    server_cpu, generator_cpu = cpu_layout()
    workdir = Path(tempfile.mkdtemp(prefix="roost-ads-stats-"))
    port = free_port()
    log = workdir / "server.log"
    command = [
        PYTHON,
        str(BENCH / "serve.py"),
        "roost",
        "--db",
        f"sqlite:///{workdir / 'roost.db'}",
        "--port",
        str(port),
    ]
    roost = spawn(command, server_cpu, log)
    rounds: dict[str, list[dict[str, Any]]] = {"campaigns": [], "stats": []}
    try:
        wait_ready(f"http://{HOST}:{port}/_roost/health", roost, log)
        _, body = http_get(f"http://{HOST}:{port}/_roost/credentials")
        caller, (now, *line_items) = build_advertiser(port, json.loads(body))
        campaigns_path, campaigns_query = f"/12/accounts/{ACCOUNT}/campaigns", []
        stats_path, query = f"/12/stats/accounts/{ACCOUNT}", stats_query(now, line_items)
        checked = caller.call("GET", stats_path, dict(query))
        assert checked["time_series_length"] == 7 and len(checked["data"]) == LINE_ITEMS, checked
        spend = [
            sum(item["id_data"][0]["metrics"]["billed_charge_local_micro"] or []) for item in checked["data"]
        ]
        assert all(value > 0 for value in spend), spend
        assert caller.call("GET", campaigns_path)["data"], "no campaigns"
        for _ in range(args.rounds):
            rounds["campaigns"].append(
                measure("campaigns", campaigns_path, campaigns_query, caller, args, roost, generator_cpu)
            )
            rounds["stats"].append(measure("stats", stats_path, query, caller, args, roost, generator_cpu))
            print(rounds["campaigns"][-1]["rps"], rounds["stats"][-1]["rps"], flush=True)
    finally:
        stop(roost)
    write_report(args, rounds, spend)
    shutil.rmtree(workdir, ignore_errors=True)


def _cleanest(results: list[dict[str, Any]]) -> dict[str, Any]:
    return min(results, key=lambda r: (round(r["background"], 1), -r["rps"]))


def write_report(args: argparse.Namespace, rounds: dict[str, list[dict[str, Any]]], spend: list[int]) -> None:
    campaigns, stats = _cleanest(rounds["campaigns"]), _cleanest(rounds["stats"])
    info = machine()
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Ads analytics under load (`bench/ads_stats.py`)",
        "",
        f"Written on {stamp}. Rerun: `.venv/bin/python bench/ads_stats.py`.",
        "",
        f"Machine: nproc {info['nproc']}, {info['cpu_model']}, Python {info['python']}. Server: "
        f"bench/serve.py roost, {args.connections} keep-alive connections, {args.warmup:g} s warm-up then "
        f"{args.duration:g} s "
        "per round, closed loop, every request OAuth 1.0a-signed afresh by the generator (its own process "
        "and CPU).",
        "",
        f"Data: the demo advertiser with 20 ACTIVE line items (one promoted post each), 8 days of delivery; "
        f"the stats request covers the last 7 whole days at DAY granularity (ENGAGEMENT, BILLING); each line "
        f"item spent {min(spend):,}–{max(spend):,} micros in that week.",
        "",
        "| scenario | req/s | p50 ms | p99 ms | errors | server CPU | server CPU µs/request "
        "| rest of the machine, generator included (CPUs) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, result in (
        (f"(c) `GET /12/accounts/{ACCOUNT}/campaigns`", campaigns),
        ("(s) `GET /12/stats/accounts/:id` 20 line items, 7 days, DAY", stats),
    ):
        lines.append(
            f"| {label} | {result['rps']:,.1f} | {result['p50_ms']:.2f} | {result['p99_ms']:.2f} | "
            f"{result['errors']} | {result['server_cpu']:.0%} | {result['cpu_us']:,.0f} | "
            f"{result['background']:.2f} |"
        )
    ratio = stats["rps"] / campaigns["rps"] if campaigns["rps"] else 0.0
    cpu_ratio = campaigns["cpu_us"] / stats["cpu_us"] if stats["cpu_us"] else 0.0
    lines += [
        "",
        f"Ratio stats / campaign list, same run: req/s **{ratio:.3f}**, "
        f"by server CPU per request {cpu_ratio:.3f}.",
        "",
        "### Every round",
        "",
        "| round | scenario | req/s | p50 ms | p99 ms | errors | server CPU | rest of the machine (CPUs) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in ("campaigns", "stats"):
        for i, result in enumerate(rounds[name], 1):
            lines.append(
                f"| {i} | {name} | {result['rps']:,.1f} | {result['p50_ms']:.2f} | {result['p99_ms']:.2f} | "
                f"{result['errors']} | {result['server_cpu']:.0%} | {result['background']:.2f} |"
            )
    args.output.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
