"""In-process profile of roost's hot path: the ASGI app called in a loop, no sockets, no server.

    .venv/bin/python bench/profile_hot.py --db sqlite:////tmp/copy-of-bench.db [--requests 20000]

Starts `RoostApp` (lifespan start-up as the server would run it) on a benchmark database, then for the
single lookup (`GET /2/tweets/:id?expansions=author_id&tweet.fields=created_at,public_metrics`) and
the 100-id lookup (`GET /2/tweets?ids=...`), with the demo app's bearer token and random visible ids:
1. times N calls without a profiler (µs per request of roost's own code: the ASGI app, not the server),
2. profiles N calls with cProfile: own time (tottime) per function and the cumulative time of the
   pipeline's stages, both in µs per request (cProfile inflates small calls: compare shares),
3. times a few building blocks on the same inputs (timeit), to price individual fixes.
Prints Markdown (bench/run.py puts it in RESULTS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import sqlite3
import time
import timeit
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import orjson

from roost.app import RoostApp
from roost.config import Settings
from roost.core.stages import TransactionIds
from roost.core.wire import elapsed_ms, parse_query
from roost.storage.db import sqlite_path

T = TypeVar("T")
WARM_UP_REQUESTS = 30_000
SINGLE_LABEL = "single lookup `GET /2/tweets/:id?expansions=author_id&tweet.fields=...`"
SINGLE_QUERY = b"expansions=author_id&tweet.fields=created_at,public_metrics"
# (label, function name, file suffix): cumulative time of each stage of the pipeline.
STAGES = (
    ("whole ASGI call (Skeleton.__call__)", "__call__", "core/stages.py"),
    ("router match", "match", "core/router.py"),
    ("authenticate (bearer, cached)", "authenticate", "core/stages.py"),
    ("rate limit (disabled: window bookkeeping only)", "_rate_limit", "platform/pipeline.py"),
    ("parse params + fields (memoised per query)", "_parse_params", "platform/pipeline.py"),
    ("handler and render (Pipeline.serve)", "serve", "platform/pipeline.py"),
    ("  single lookup (Lookup.post)", "post", "domain/lookup.py"),
    ("  id-list lookup (Lookup.posts)", "posts", "domain/lookup.py"),
    ("    SQLite read of one row", "one", "storage/db.py"),
    ("    SQLite read of rows", "all", "storage/db.py"),
    ("    hidden_authors (protected check)", "hidden_authors", "domain/lookup.py"),
    ("  render (fields engine)", "render", "core/fields.py"),
    ("    post renderer (compiled per selection)", "render", "domain/objects.py"),
    ("    user renderer (compiled per selection)", "render", "domain/user_objects.py"),
    ("JSON encode (orjson.dumps)", "<orjson.dumps>", "~"),
    ("response headers (Pipeline.head, Skeleton._write)", "head", "platform/pipeline.py"),
)


class Harness:
    def __init__(self, app: RoostApp, token: str) -> None:
        self.app = app
        self.headers = [
            (b"host", b"127.0.0.1:8080"),
            (b"authorization", b"Bearer " + token.encode()),
            (b"user-agent", b"bench"),
        ]
        self.statuses: dict[int, int] = {}

    def scope(self, path: str, query: bytes) -> dict[str, Any]:
        return {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query,
            "root_path": "",
            "headers": self.headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8080),
            "state": {},
        }

    async def call(self, scope: dict[str, Any]) -> None:
        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                self.statuses[status] = self.statuses.get(status, 0) + 1

        await self.app(scope, receive, send)

    async def loop(self, scopes: list[dict[str, Any]]) -> None:
        for scope in scopes:
            await self.call(scope)


def visible_ids(db_url: str) -> list[int]:
    with sqlite3.connect(sqlite_path(db_url)) as conn:
        rows = conn.execute(
            "SELECT p.id FROM posts p JOIN users u ON u.id = p.author_id "
            "WHERE p.deleted_at IS NULL AND u.protected = 0"
        ).fetchall()
    conn.close()
    return [row[0] for row in rows]


def stage_rows(stats: pstats.Stats, requests: int) -> list[tuple[str, float, float]]:
    """(label, cumulative µs per request, calls per request) for each stage found."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    rows = []
    for label, name, suffix in STAGES:
        total, calls = 0.0, 0
        for (filename, _, function), (_, ncalls, _, cumtime, _) in table.items():
            if function == name and filename.endswith(suffix):
                total += cumtime
                calls += ncalls
        if calls:
            rows.append((label, total / requests * 1e6, calls / requests))
    return rows


def top_rows(stats: pstats.Stats, requests: int, count: int) -> list[tuple[str, float, float, float]]:
    """(function, own µs per request, cumulative µs per request, calls per request) by own time."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    rows = []
    for (filename, line, function), (_, ncalls, tottime, cumtime, _) in table.items():
        where = filename.split("/site-packages/")[-1].split("/src/")[-1]
        label = f"{function} ({where}:{line})" if line else function
        rows.append((label, tottime / requests * 1e6, cumtime / requests * 1e6, ncalls / requests))
    rows.sort(key=lambda row: row[1], reverse=True)
    return rows[:count]


def micro(label: str, func: Callable[[], Any], number: int = 20000) -> tuple[str, float]:
    best = min(timeit.repeat(func, number=number, repeat=5))
    return label, best / number * 1e6


async def main_async(args: argparse.Namespace) -> str:
    app = RoostApp(Settings(db_url=args.db, demo=True, rate_limits=False))
    await app.startup()
    assert app.state is not None
    token = (await app.state.credentials())["bearer_token"]
    harness = Harness(app, token)
    rng = random.Random(7)
    ids = visible_ids(args.db)

    def single_scopes(n: int) -> list[dict[str, Any]]:
        return [harness.scope(f"/2/tweets/{rng.choice(ids)}", SINGLE_QUERY) for _ in range(n)]

    def batch_scopes(n: int) -> list[dict[str, Any]]:
        return [
            harness.scope("/2/tweets", b"ids=" + ",".join(str(i) for i in rng.sample(ids, 100)).encode())
            for _ in range(n)
        ]

    out: list[str] = []
    cases = (
        (SINGLE_LABEL, single_scopes, args.requests),
        ("100-id lookup `GET /2/tweets?ids=...`", batch_scopes, max(200, args.requests // 20)),
    )
    timings: list[tuple[str, float]] = []
    for label, build, n in cases:
        # Warm up as a live server is after a few seconds of load: statements, bearer and protected
        # ids cached, and the author rows of most posts in the user cache.
        await harness.loop(build(WARM_UP_REQUESTS if build is single_scopes else 200))
        scopes = build(n)
        started = time.perf_counter()
        await harness.loop(scopes)
        timings.append((label, (time.perf_counter() - started) / n * 1e6))

        profiler = cProfile.Profile()
        scopes = build(n)
        profiler.enable()
        await harness.loop(scopes)
        profiler.disable()
        stats = pstats.Stats(profiler)
        total = sum(row[1] for row in top_rows(stats, n, 10_000))
        out += [f"### {label}: cProfile, {n:,} calls", ""]
        out += ["| pipeline stage | cumulative µs/request (profiled) | calls/request |", "|---|---:|---:|"]
        out += [f"| {name} | {us:.1f} | {calls:g} |" for name, us, calls in stage_rows(stats, n)]
        out += ["", f"Top functions by own time (profiled total {total:.0f} µs/request):", ""]
        out += ["| function | own µs/req | cum µs/req | calls/req | share |", "|---|---:|---:|---:|---:|"]
        out += [
            f"| `{name}` | {own:.1f} | {cum:.1f} | {calls:g} | {own / total * 100:.1f}% |"
            for name, own, cum, calls in top_rows(stats, n, args.top)
        ]
        out.append("")

    header = [
        "Unprofiled time in roost's ASGI app (no sockets, no HTTP server), µs per request:",
        "",
        "| request | µs/request | requests/s of one core |",
        "|---|---:|---:|",
    ]
    header += [f"| {label} | {us:.1f} | {1e6 / us:,.0f} |" for label, us in timings]
    header.append("")

    # Building blocks on the inputs of one single-lookup request.
    scope = single_scopes(1)[0]
    raw_headers = scope["headers"]
    query = scope["query_string"]
    sample_id = ids[len(ids) // 2]
    conn = sqlite3.connect(sqlite_path(args.db))
    body = {
        "data": {
            "id": str(sample_id),
            "text": "x" * 100,
            "edit_history_tweet_ids": [str(sample_id)],
            "created_at": "2025-01-01T00:00:00.000Z",
            "public_metrics": {"retweet_count": 1, "reply_count": 2, "like_count": 3, "quote_count": 0},
        },
        "includes": {"users": [{"id": "1", "name": "A B", "username": "ab_1"}]},
    }
    # The columns the single lookup's selection reads (roost.core.fields.Selection.columns).
    assert app.v2 is not None
    selection, _ = app.v2.engine.parse("tweet", dict(parse_query(SINGLE_QUERY)))
    single_columns = selection.columns or ("*",)
    transaction_ids = TransactionIds()
    started = time.perf_counter()
    blocks = [
        micro("`TransactionIds.take()` (x-transaction-id, cut from a random block)", transaction_ids.take),
        micro("`random.getrandbits(64)` as 16 hex digits (the per-response alternative)", _random_hex),
        micro(
            "request headers → dict (latin-1 decode)",
            lambda: {k.decode("latin-1"): v.decode("latin-1") for k, v in raw_headers},
        ),
        micro("`parse_query` of the query (only on a memo miss)", lambda: parse_query(query)),
        micro(
            "SQLite `SELECT * FROM posts WHERE id = ?` + dict(zip(...))",
            lambda: _fetch(conn, "SELECT * FROM posts WHERE id = ?", sample_id),
        ),
        micro(
            f"SQLite the {len(single_columns)} columns the single lookup reads + dict(zip(...))",
            lambda: _fetch(conn, f"SELECT {', '.join(single_columns)} FROM posts WHERE id = ?", sample_id),
        ),
        micro("`orjson.dumps` of a small v2 body", lambda: orjson.dumps(body)),
        micro("`elapsed_ms` (x-response-time)", lambda: elapsed_ms(started)),
    ]
    conn.close()
    header += ["Building blocks (timeit, best of 5), µs per call:", "", "| operation | µs |", "|---|---:|"]
    header += [f"| {label} | {us:.2f} |" for label, us in blocks]
    header.append("")
    await app.shutdown()
    if set(harness.statuses) != {200}:
        header.append(f"**Unexpected statuses in the profile loop: {harness.statuses}**\n")
    return "\n".join(header + out)


def _fetch(conn: sqlite3.Connection, sql: str, key: int) -> dict[str, Any] | None:
    cursor = conn.execute(sql, (key,))
    row = cursor.fetchone()
    return None if row is None else dict(zip([d[0] for d in cursor.description], row, strict=True))


def _random_hex() -> str:
    return f"{random.getrandbits(64):016x}"


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
    parser.add_argument("--db", required=True, help="sqlite:////path (a copy of the benchmark database)")
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    print(run_with_uvloop(main_async(args)))


if __name__ == "__main__":
    main()
