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
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as `python bench/run.py`: the repository root makes `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import (
    BENCH,
    HOST,
    PYTHON,
    ROOT,
    LoadResult,
    add_lookup_load_flags,
    check_lookup_load_flags,
    cleanest,
    cpu_layout,
    describe,
    ensure_wrk,
    free_port,
    http_get,
    pinned,
    proc_status_kb,
    run_load,
    spawn,
    stop,
    tail,
    wait_ready,
    wrk_version,
)
from bench.report import machine, write_report

CACHE = BENCH / ".cache"
SRC = ROOT / "src" / "roost"
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
    from roost.storage.db import open_database
    from roost.wiring import assemble

    db = await open_database(url)
    try:
        server = assemble(Settings(db_url=url, demo=False), db)
        await server.domain.maintenance.observe_ids()
        stores = server.stores
        return await load_bulk(
            stores.db,
            stores.clock,
            stores.ids,
            url_seed=server.settings.seed,
            users=users,
            posts=posts,
            seed=seed,
        )
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


# ---- main --------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_lookup_load_flags(parser)
    parser.add_argument("--settle", type=float, default=3.0, help="idle seconds before the last RSS reading")
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached database")
    parser.add_argument("--no-profile", action="store_true", help="skip the in-process profile")
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args()
    check_lookup_load_flags(parser, args)

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
        # Issue 17, the request journal's cost: two more roosts, twins that serve only the single lookup
        # (no batch load before it to leave a different heap), one keeping the journal, one not.
        twins: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
        for twin, kept in (("logged", "2000"), ("unlogged", "0")):
            twin_db = work / f"{twin}.db"
            shutil.copyfile(database, twin_db)
            twin_port = free_port()
            twin_command = [PYTHON, str(BENCH / "serve.py"), "roost", "--db", f"sqlite:///{twin_db}"]
            twin_command += ["--port", str(twin_port), "--request-log", kept]
            twins[twin] = (spawn(twin_command, server_cpu, log), twin_port)
        (logged, logged_port), (unlogged, unlogged_port) = twins["logged"], twins["unlogged"]
        rss: dict[str, int] = {}
        rounds: dict[str, list[LoadResult]] = {
            "bare": [],
            "single": [],
            "batch": [],
            "logged": [],
            "unlogged": [],
        }
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
            wait_ready(f"http://{HOST}:{logged_port}/_roost/health", logged, log)
            wait_ready(f"http://{HOST}:{unlogged_port}/_roost/health", unlogged, log)
            plan = (
                ("bare", "(a) bare ASGI", bare_port, None, "", bare.pid),
                ("single", "(b) roost single lookup", roost_port, ids_file, token, roost.pid),
                ("batch", "(c) roost 100-id lookup", roost_port, ids_file, token, roost.pid),
                ("logged", "(d) single lookup, journal on (twin)", logged_port, ids_file, token, logged.pid),
                (
                    "unlogged",
                    "(e) single lookup, journal off (twin)",
                    unlogged_port,
                    ids_file,
                    token,
                    unlogged.pid,
                ),
            )
            for number in range(1, args.rounds + 1):
                # The twins take turns at going first, so neither always follows the batch load.
                order = plan if number % 2 else (*plan[:3], plan[4], plan[3])
                for name, title, port, ids_path, bearer, pid in order:
                    mode = "single" if name in ("logged", "unlogged") else name
                    result = run_load(
                        name, generator, wrk, port, mode, ids_path, bearer, args, generator_cpu, pid
                    )
                    rounds[name].append(result)
                    print(f"round {number}/{args.rounds} {title}: {describe(result)}")
            time.sleep(args.settle)
            rss["after_load"] = proc_status_kb(roost.pid, "VmRSS")
            rss["peak"] = proc_status_kb(roost.pid, "VmHWM")
        finally:
            stop(roost)
            stop(logged)
            stop(unlogged)
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
