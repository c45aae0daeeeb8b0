"""The home timeline under load, against the single lookup in the same run.

    .venv/bin/python bench/home.py                 # the bench data of bench/run.py, write bench/HOME.md
    .venv/bin/python bench/home.py --duration 5    # shorter runs; --help for the rest

1. Data: bench/run.py's cached database (10k users, 100k posts; built when missing or stale), copied,
   plus one bulk user made to follow `--follows` (500) other public bulk users (seeded choice).
2. Server: bench/serve.py roost (as `roost serve --no-rate-limits`), pinned like bench/run.py's.
3. Load: the generator bench/run.py uses (wrk with bench/load.lua, or bench/loadgen.py), the same
   connections, warm-up and duration; rounds interleave (b) the single lookup with the app-only
   token and (h) `GET /2/users/:id/timelines/reverse_chronological?max_results=N` with that user's
   OAuth 2.0 token, for each N of `--max-results` (the first page, default fields), and (l) the first
   10 pages at max_results=10 with the single lookup's field selection, as bench/lists.py measures
   the list timeline.
4. Report: req/s, p50, p99, server CPU per request and the home/single ratio, with the target
   (>= 0.25) judged on the pages of 10, the size bench/lists.py measures; the load
   average before and after; SQLite's plan for the read of the home timeline's entries.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import (
    BENCH,
    HOST,
    PYTHON,
    LoadResult,
    cleanest,
    cpu_layout,
    describe,
    ensure_wrk,
    free_port,
    http_get,
    run_load,
    spawn,
    stop,
    tail,
    wait_ready,
)
from bench.lists import PAGE_QUERY
from bench.report import machine
from bench.run import VISIBLE_POSTS, ensure_database
from roost.storage.posts import HOME_FIRST_CHUNK, HOME_GROWTH

TARGET = 0.25
# The target applies to pages of this size, the one bench/lists.py measures its list timeline at (so
# the two compare). A page of 100 (the endpoint's default max_results) renders 100 posts:
# bench/run.py's 100-id lookup, rendering as many, runs at about 0.09 of the single lookup, so no
# page of 100 can reach 0.25; it is reported, not judged.
TARGET_PAGE = 10
HOME = "/2/users/{id}/timelines/reverse_chronological?max_results={n}"
LIST_LIKE_PAGES = 10


def add_follows(database: Path, count: int, seed: int) -> tuple[int, list[int]]:
    """Make one public bulk user follow `count` other public users; returns (user, followees)."""
    rng = random.Random(seed)
    with sqlite3.connect(database) as conn:
        public = [r[0] for r in conn.execute("SELECT id FROM users WHERE protected = 0 ORDER BY id")]
        user = rng.choice(public)
        followees = rng.sample([u for u in public if u != user], count)
        now = int(time.time() * 1000)
        conn.execute("DELETE FROM follows WHERE follower_id = ?", (user,))
        conn.executemany(
            "INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)",
            [(user, followee, now) for followee in followees],
        )
        conn.execute("UPDATE users SET following_count = ? WHERE id = ?", (count, user))
    conn.close()
    return user, followees


def query_plan(database: Path, user: int) -> list[str]:
    """SQLite's plan for the read of the home timeline's entries, as roost compiles it (read once per
    user and commit; pages are then cut from them and their rows read by id)."""
    from sqlalchemy.dialects import sqlite

    from roost.storage.posts import MAX_ID, _home_chunk

    statement = _home_chunk.compile(dialect=sqlite.dialect())
    params = {"home_id": user, "self_id": user, "until_id": MAX_ID, "limit": HOME_FIRST_CHUNK}
    values = statement.construct_params(params)
    positional = [values[name] for name in statement.positiontup or []]
    with sqlite3.connect(database) as conn:
        rows = conn.execute(f"EXPLAIN QUERY PLAN {statement}", positional).fetchall()
    conn.close()
    return [str(row[-1]) for row in rows]


def issue_token(port: int, consumer_key: str, user_id: int) -> str:
    body = json.dumps({"consumer_key": consumer_key, "user_id": str(user_id), "kind": "oauth2"}).encode()
    request = urllib.request.Request(
        f"http://{HOST}:{port}/_roost/tokens",
        data=body,
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        token: str = json.loads(response.read())["access_token"]
    return token


def check_home(port: int, token: str, path: str, user: int, followees: list[int], n: int) -> None:
    status, body = http_get(
        f"http://{HOST}:{port}{path}&tweet.fields=author_id", {"Authorization": f"Bearer {token}"}
    )
    page = json.loads(body)
    data = page.get("data") or []
    allowed = {str(user), *(str(f) for f in followees)}
    ids = [int(post["id"]) for post in data]
    if status != 200 or len(data) != n or ids != sorted(ids, reverse=True):
        raise SystemExit(f"home timeline check failed: {status}, {len(data)} posts: {body[:300]!r}")
    if any(post["author_id"] not in allowed for post in data):
        raise SystemExit("home timeline check failed: a post of an account not followed")


def page_paths(port: int, token: str, user: int, pages: int) -> list[str]:
    """The paths of the home timeline's first `pages` pages of 10 with the single lookup's field
    selection (bench/lists.py's list timeline requests), each fetched and checked once."""
    auth = {"Authorization": f"Bearer {token}"}
    base = HOME.format(id=user, n=10) + "&" + PAGE_QUERY
    paths = [base]
    while len(paths) < pages:
        status, body = http_get(f"http://{HOST}:{port}{paths[-1]}", auth)
        page = json.loads(body)
        if status != 200 or len(page.get("data", [])) != 10 or "users" not in page.get("includes", {}):
            raise SystemExit(f"home timeline check failed: {status} {body[:300]!r}")
        paths.append(f"{base}&pagination_token={page['meta']['next_token']}")
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--follows", type=int, default=500)
    parser.add_argument("--max-results", default="100,10", help="page sizes measured, comma-separated")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quiet-wait", type=float, default=60.0)
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--output", type=Path, default=BENCH / "HOME.md")
    args = parser.parse_args()
    sizes = [int(n) for n in args.max_results.split(",")]

    load_before = os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="roost-home-"))
    log = work / "servers.log"
    try:
        database, data = ensure_database(args.users, args.posts, args.seed, args.rebuild, log)
        wrk = ensure_wrk() if args.generator in ("auto", "wrk") else None
        generator = "wrk" if wrk else "python"
        server_cpu, generator_cpu = cpu_layout()
        served = work / "roost.db"
        shutil.copyfile(database, served)
        user, followees = add_follows(served, args.follows, args.seed)
        plan = query_plan(served, user)
        with sqlite3.connect(served) as conn:
            ids = [str(r[0]) for r in conn.execute(VISIBLE_POSTS)]
            marks = ",".join("?" * len(followees))
            followed_posts = conn.execute(
                f"SELECT count(*) FROM posts WHERE author_id IN ({marks})", followees
            ).fetchone()[0]
        conn.close()
        ids_file = work / "ids.txt"
        ids_file.write_text("\n".join(ids) + "\n")

        port = free_port()
        command = [
            PYTHON,
            str(BENCH / "serve.py"),
            "roost",
            "--db",
            f"sqlite:///{served}",
            "--port",
            str(port),
        ]
        roost = spawn(command, server_cpu, log)
        rounds: dict[str, list[LoadResult]] = {"single": [], **{f"home{n}": [] for n in sizes}, "pages10": []}
        try:
            wait_ready(f"http://{HOST}:{port}/_roost/health", roost, log)
            _, body = http_get(f"http://{HOST}:{port}/_roost/credentials")
            credentials = json.loads(body)
            app_token = credentials["bearer_token"]
            user_token = issue_token(port, credentials["consumer_key"], user)
            path_files = {}
            for n in sizes:
                path = HOME.format(id=user, n=n)
                check_home(port, user_token, path, user, followees, n)
                path_files[n] = work / f"home{n}.txt"
                path_files[n].write_text(path + "\n")
            pages = page_paths(port, user_token, user, LIST_LIKE_PAGES)
            pages_file = work / "pages10.txt"
            pages_file.write_text("\n".join(pages) + "\n")
            for number in range(1, args.rounds + 1):
                result = run_load(
                    "single",
                    generator,
                    wrk,
                    port,
                    "single",
                    ids_file,
                    app_token,
                    args,
                    generator_cpu,
                    roost.pid,
                )
                rounds["single"].append(result)
                print(f"round {number} single lookup: {describe(result)}")
                for n in sizes:
                    name = f"home{n}"
                    result = run_load(
                        name,
                        generator,
                        wrk,
                        port,
                        "paths",  # the file holds one path: every request is that page
                        path_files[n],
                        user_token,
                        args,
                        generator_cpu,
                        roost.pid,
                    )
                    rounds[name].append(result)
                    print(f"round {number} home timeline max_results={n}: {describe(result)}")
                result = run_load(
                    "pages10",
                    generator,
                    wrk,
                    port,
                    "paths",
                    pages_file,
                    user_token,
                    args,
                    generator_cpu,
                    roost.pid,
                )
                rounds["pages10"].append(result)
                print(f"round {number} home timeline, first pages of 10 with fields: {describe(result)}")
        finally:
            stop(roost)
        if roost.returncode not in (0, None):
            print(f"note: roost exited with {roost.returncode}\n{tail(log)}")
        loads = {name: cleanest(results) for name, results in rounds.items()}
        report = {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(),
            "generator": generator,
            "connections": args.connections,
            "duration": args.duration,
            "rounds": args.rounds,
            "rows": data.get("rows"),
            "follows": args.follows,
            "followed_posts": followed_posts,
            "plan": plan,
            "load_before": load_before,
            "load_after": os.getloadavg(),
            "loads": loads,
            "all": rounds,
        }
        write(args.output, report, sizes)
        print(f"wrote {args.output}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def target_note(loads: dict[str, Any], sizes: list[int]) -> str:
    """What the target applies to, and why not to a page of 100 (with this run's figures)."""
    note = (
        f"Target: home timeline req/s >= {TARGET} of the single lookup's in the same run, for pages of "
        f"{TARGET_PAGE}, the size bench/lists.py measures the list timeline at (so the two compare). A "
        "page of 100, the endpoint's default `max_results`, is reported but not judged: it reads and "
        "renders 100 posts, and bench/run.py's 100-id lookup, which does as much, runs at about 0.09 "
        "of the single lookup (bench/RESULTS.md)."
    )
    if 10 in sizes and 100 in sizes:
        single = loads["single"].cpu_us_per_request
        ten, hundred = loads["home10"].cpu_us_per_request, loads["home100"].cpu_us_per_request
        per_post = (hundred - ten) / 90
        note += (
            f" In this run a page of 100 cost {hundred:.0f} server CPU µs and a page of 10 {ten:.0f}: "
            f"about {per_post:.1f} µs per further post, so its 100 posts alone cost about "
            f"{100 * per_post:.0f} µs, more than the {1 / TARGET:g} single lookups "
            f"({single / TARGET:.0f} µs) that {TARGET} allows a whole request."
        )
    return note


def write(output: Path, report: dict[str, Any], sizes: list[int]) -> None:
    loads: dict[str, LoadResult] = report["loads"]
    single = loads["single"]
    machine_info = report["machine"]
    before, after = report["load_before"], report["load_after"]
    lines = [
        "# Home timeline benchmark",
        "",
        f"Written by `bench/home.py` on {report['date']}. Rerun: `.venv/bin/python bench/home.py`.",
        "",
        f"Machine: nproc {machine_info['nproc']}, {machine_info['cpu_model']}, "
        f"SQLite {machine_info['sqlite']}; shared with other work: load average (1, 5, 15 min) "
        f"{before[0]:.2f}, {before[1]:.2f}, {before[2]:.2f} before the run, "
        f"{after[0]:.2f}, {after[1]:.2f}, {after[2]:.2f} after. "
        f"Generator: {report['generator']}, {report['connections']} keep-alive connections, "
        f"{report['duration']} s measured per scenario, {report['rounds']} interleaved rounds "
        "(each figure: the round least disturbed by other processes).",
        "",
        f"Data: bench/run.py's database ({report['rows']}); one user follows {report['follows']} public "
        f"users who wrote {report['followed_posts']:,} posts between them.",
        "",
        target_note(loads, sizes),
        "",
        "| scenario | req/s | p50 ms | p99 ms | errors | server CPU µs/request | ratio to (b) | "
        "ratio by server CPU | target |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        "| (b) single lookup `GET /2/tweets/:id?expansions=author_id&tweet.fields=created_at,public_metrics` "
        f"| {single.rps:,.0f} | {single.p50_ms:.2f} | {single.p99_ms:.2f} | {single.errors} "
        f"| {single.cpu_us_per_request:.0f} | 1 | 1 | |",
    ]
    scenarios = [(f"home{n}", f"(h) home timeline `max_results={n}`, first page", n) for n in sizes]
    scenarios.append(
        (
            "pages10",
            f"(l) home timeline `max_results=10&{PAGE_QUERY}`, first {LIST_LIKE_PAGES} pages "
            "(as bench/lists.py)",
            10,
        )
    )
    for name, label, n in scenarios:
        home = loads[name]
        ratio = home.rps / single.rps if single.rps else 0.0
        by_cpu = single.cpu_us_per_request / home.cpu_us_per_request if home.cpu_us_per_request else 0.0
        verdict = (
            f">= {TARGET}: {'met' if ratio >= TARGET else 'not met'}" if n == TARGET_PAGE else "not judged"
        )
        lines.append(
            f"| {label} | {home.rps:,.0f} | {home.p50_ms:.2f} | {home.p99_ms:.2f} | {home.errors} "
            f"| {home.cpu_us_per_request:.0f} | {ratio:.3f} | {by_cpu:.3f} | {verdict} |"
        )
    lines += [
        "",
        "How a page is served: the user's home timeline entries (post id, created_at, whether a reply "
        "or a repost; deleted and superseded versions left out; at most the newest 3,200, the "
        "platform's depth) are kept in memory until the next commit of any process "
        "(`PostStore.home_entries`); a page is cut from them with its id and time bounds, exclusions "
        "and cursor applied, and only its posts are read, by id, with the columns the field "
        "selection needs. After a commit the entries are read again, newest first in chunks "
        f"({HOME_FIRST_CHUNK} candidates, or twice the page, then {HOME_GROWTH} times more each time a "
        "page reaches past them): "
        "through `ix_posts_author_id` alone for the ids, then those rows for the rest. "
        "`bench/profile_home.py` times the same requests in process and the cold reads.",
        "",
        "Before the entries were kept (commit 7ce4fd4, the same script's first scenarios on the same "
        "quiet machine, 2026-11-26 13:19 UTC, wrk): single lookup 18,134 req/s, 54 server CPU "
        "µs/request; `max_results=10` 2,019 req/s, ratio 0.111, 493 µs/request; `max_results=100` "
        "748 req/s, ratio 0.041, 1,336 µs/request. Each page then sought every followed author's "
        "range of `ix_posts_author_id` (about 250 µs) before reading its rows whole.",
        "",
        "## Every round",
        "",
        "| scenario | req/s | p50 ms | p99 ms | errors | server CPU µs/request | other processes' CPUs |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, results in report["all"].items():
        for result in results:
            lines.append(
                f"| {name} | {result.rps:,.0f} | {result.p50_ms:.2f} | {result.p99_ms:.2f} "
                f"| {result.errors} | {result.cpu_us_per_request:.0f} | {result.background_cpu:.2f} |"
            )
    lines += [
        "",
        "## SQLite's plan for the read of the home timeline's entries",
        "",
        "```",
        *report["plan"],
        "```",
        "",
    ]
    output.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
