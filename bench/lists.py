"""The list timeline under load: `GET /2/lists/:id/tweets` of a 500-member list against the single lookup,
same server, same run.

    .venv/bin/python bench/lists.py                   # writes bench/LISTS.md
    .venv/bin/python bench/lists.py --duration 5      # shorter runs; --help for the rest

1. Data: bench/run.py's cached database (10k users, 100k posts; built when missing), copied, with one
   public list of 500 members drawn at random (a fixed seed) added through the list rules
   (`ListService`), owned by the demo user.
2. Server: bench/serve.py's roost (as bench/run.py starts it), on its own CPU when there are two.
3. Load: wrk with bench/load.lua (mode `paths`) or bench/loadgen.py; rounds interleave (a) the single
   lookup of bench/run.py and (b) the first pages of the list timeline with the single lookup's field
   selection (`expansions=author_id&tweet.fields=created_at,public_metrics`), `max_results` 10 by
   default. Each page is checked before the load.
4. Report: req/s, p50, p99, server CPU per request of both, and the ratio list / single (target
   ≥ 0.25 on req/s), from the round least disturbed by other processes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sqlite3
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/lists.py`
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
    wait_ready,
)
from bench.run import SINGLE_QUERY, VISIBLE_POSTS, ensure_database

TARGET = 0.25
PAGE_QUERY = "expansions=author_id&tweet.fields=created_at,public_metrics"


async def add_list(url: str, user_ids: list[int], members: int, seed: int) -> int:
    """A public list of `members` users drawn at random, made through the list rules; its id."""
    from roost.config import Settings
    from roost.storage.db import open_database
    from roost.wiring import assemble

    db = await open_database(url)
    try:
        server = assemble(Settings(db_url=url, demo=False), db)
        await server.domain.maintenance.observe_ids()
        rng = random.Random(seed)
        owner = user_ids[0]
        chosen = rng.sample([u for u in user_ids if u != owner], members)
        lists = server.domain.lists
        created = await lists.create(owner, {"name": "Bench list", "description": f"{members} members"})
        for member in chosen:
            await lists.add_member(owner, created["id"], member)
        return int(created["id"])
    finally:
        await db.close()


def page_paths(port: int, token: str, list_id: int, max_results: int, pages: int) -> list[str]:
    """The paths of the list timeline's first `pages` pages, each fetched and checked once."""
    auth = {"Authorization": f"Bearer {token}"}
    base = f"/2/lists/{list_id}/tweets?max_results={max_results}&{PAGE_QUERY}"
    paths = [base]
    while len(paths) < pages:
        status, body = http_get(f"http://{HOST}:{port}{paths[-1]}", auth)
        page = json.loads(body)
        if status != 200 or len(page.get("data", [])) == 0 or "users" not in page.get("includes", {}):
            raise SystemExit(f"list timeline check failed: {status} {body[:300]!r}")
        token_next = page["meta"].get("next_token")
        if token_next is None:
            break
        paths.append(f"{base}&pagination_token={token_next}")
    return paths


def write_report(path: Path, report: dict[str, Any]) -> None:
    single: LoadResult = report["single"]
    listed: LoadResult = report["list"]
    ratio = listed.rps / single.rps if single.rps else 0.0
    verdict = "met" if ratio >= TARGET else "NOT met"
    cpu_ratio = single.cpu_us_per_request / listed.cpu_us_per_request if listed.cpu_us_per_request else 0.0
    lines = [
        "# List timeline benchmark",
        "",
        f"Run {report['date']} with `bench/lists.py` ({report['generator']}, {report['connections']} "
        f"connections, {report['duration']} s measured per round, {report['rounds']} rounds; "
        f"pinning: {report['pinning']}).",
        "",
        f"Data: bench/run.py's database ({report['rows']['users']:,} users, {report['rows']['posts']:,} "
        f"posts) plus one public list of {report['members']} members drawn at random; its timeline "
        f"holds the members' {report['timeline_posts']:,} visible posts, of which it serves the newest "
        "800 (as the platform).",
        "",
        "| scenario | req/s | p50 ms | p99 ms | server CPU µs/request | errors |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, result in (
        ("single lookup `GET /2/tweets/:id?" + SINGLE_QUERY.lstrip("?") + "`", single),
        (
            f"list timeline `GET /2/lists/:id/tweets?max_results={report['max_results']}&{PAGE_QUERY}` "
            f"(first {report['pages']} pages)",
            listed,
        ),
    ):
        lines.append(
            f"| {label} | {result.rps:,.0f} | {result.p50_ms:.2f} | {result.p99_ms:.2f} | "
            f"{result.cpu_us_per_request:.0f} | {result.errors} |"
        )
    lines += [
        "",
        f"List timeline / single lookup (req/s): **{ratio:.2f}** (target ≥ {TARGET}: {verdict}); by server "
        f"CPU per request: {cpu_ratio:.2f}. Other processes used {single.background_cpu:.2f} and "
        f"{listed.background_cpu:.2f} CPU during the two reported rounds (a shared machine inflates p99).",
        "",
        "How a page is served: the ids and authors of the members' newest 800 posts are read once through "
        "the posts' `(author_id, id)` index and kept until the next commit (`ListStore.timeline`); a page "
        "is a slice of them after the cursor, the viewer's protected-author filter, and one read of the "
        "page's posts by id with only the columns the field selection needs.",
        "",
    ]
    path.write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--members", type=int, default=500)
    parser.add_argument("--max-results", type=int, default=10)
    parser.add_argument("--pages", type=int, default=10, help="first pages of the timeline requested")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quiet-wait", type=float, default=60.0)
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--output", type=Path, default=BENCH / "LISTS.md")
    args = parser.parse_args()
    if not 1 <= args.max_results <= 100 or not 1 <= args.duration <= 120:
        parser.error("max-results 1-100, duration 1-120 s")

    work = Path(tempfile.mkdtemp(prefix="roost-bench-lists-"))
    log = work / "servers.log"
    try:
        database, data = ensure_database(args.users, args.posts, args.seed, False, log)
        served = work / "roost.db"
        shutil.copyfile(database, served)
        url = f"sqlite:///{served}"
        with sqlite3.connect(served) as conn:
            user_ids = sorted(r[0] for r in conn.execute("SELECT id FROM users"))
        conn.close()
        list_id = asyncio.run(add_list(url, user_ids, args.members, args.seed))
        with sqlite3.connect(served) as conn:
            ids = [str(r[0]) for r in conn.execute(VISIBLE_POSTS)]
            timeline_posts = conn.execute(
                "SELECT count(*) FROM posts p JOIN list_members m ON m.user_id = p.author_id "
                "JOIN users u ON u.id = p.author_id WHERE m.list_id = ? AND p.deleted_at IS NULL "
                "AND u.protected = 0",
                (list_id,),
            ).fetchone()[0]
        conn.close()
        ids_file = work / "ids.txt"
        ids_file.write_text("\n".join(ids) + "\n")

        wrk = ensure_wrk() if args.generator in ("auto", "wrk") else None
        generator = "wrk" if wrk else "python"
        server_cpu, generator_cpu = cpu_layout()
        pinning = (
            f"server on CPU {server_cpu}, load generator on CPU {generator_cpu}"
            if server_cpu is not None
            else "none (one CPU)"
        )
        port = free_port()
        roost = spawn(
            [PYTHON, str(BENCH / "serve.py"), "roost", "--db", url, "--port", str(port)], server_cpu, log
        )
        rounds: dict[str, list[LoadResult]] = {"single": [], "list": []}
        try:
            wait_ready(f"http://{HOST}:{port}/_roost/health", roost, log)
            token = json.loads(http_get(f"http://{HOST}:{port}/_roost/credentials")[1])["bearer_token"]
            paths = page_paths(port, token, list_id, args.max_results, args.pages)
            paths_file = work / "paths.txt"
            paths_file.write_text("\n".join(paths) + "\n")
            plan = (("single", "single", ids_file), ("list", "paths", paths_file))
            for number in range(1, args.rounds + 1):
                for name, mode, source in plan:
                    result = run_load(
                        name, generator, wrk, port, mode, source, token, args, generator_cpu, roost.pid
                    )
                    rounds[name].append(result)
                    print(f"round {number}/{args.rounds} {name}: {describe(result)}")
        finally:
            stop(roost)
        report = {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "generator": generator,
            "connections": args.connections,
            "duration": args.duration,
            "rounds": args.rounds,
            "pinning": pinning,
            "rows": data["rows"],
            "members": args.members,
            "timeline_posts": timeline_posts,
            "max_results": args.max_results,
            "pages": len(paths),
            "single": cleanest(rounds["single"]),
            "list": cleanest(rounds["list"]),
        }
        write_report(args.output, report)
        single, listed = report["single"], report["list"]
        print(f"ratio list/single: {listed.rps / single.rps:.2f} (target {TARGET}); wrote {args.output}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
