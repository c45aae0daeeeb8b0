"""The floor under roost's lookup targets: hand-written ASGI apps doing only each lookup's irreducible work.

    .venv/bin/python bench/floor.py                      # 3 rounds, 2 s warm-up + 10 s, bench/FLOOR.md
    .venv/bin/python bench/floor.py --rounds 1 --duration 3 --warmup 1 --output /tmp/floor.md
    .venv/bin/python bench/floor.py --batch-fields       # also the 100-id lookup with the fields above
    .venv/bin/python bench/floor.py serve --kind single --db /path/roost.db --port 8103   # one app

The targets are ratios to the bare ASGI app (single lookup >= 0.45, 100-id lookup >= 0.06, bench/run.py).
This measures what an app with no pipeline at all reaches on the same server, so the room the targets
leave roost's own pipeline (routing, auth, validation, fields engine, journal) can be stated:
- floor single: `GET /2/tweets/:id?...`: int() of the path's tail, one SQLite read of the 13 columns
  roost reads, the author from a dict loaded at start-up, the body built by hand, orjson.
- floor batch: `GET /2/tweets?ids=...`: the ids split from the query, one `WHERE id IN (...)` read of
  the columns roost reads for the same selection, data in request order (plus includes.users, deduped,
  when the query asks for `expansions=`).
Both send roost's headers and write through roost's whole-response extension (roost.core.wire.send_raw).
They leave out authentication, rate limits, parameter validation, visibility (deleted posts, protected
authors), partial errors, duplicate ids, the request journal and metrics. Data, servers (bench/serve.py
settings via roost.serving), wrk and CPU pinning are bench/run.py's; the bare app is bench/serve.py's.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

if __package__ in (None, ""):  # run as `python bench/floor.py`: the repository root makes `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness
from bench.harness import HOST, LoadResult, http_get
from bench.serve import bare_app
from roost.core.wire import RawHeaders, Receive, Scope, Send, send_raw

# The columns roost reads: for the single lookup's fields and expansion, and for default fields only.
DEFAULT = "id, text, display_text, author_id, deleted_at, edit_history"
FULL = f"{DEFAULT}, created_at, retweet_count, reply_count, like_count, quote_count, bookmark_count, "
FULL += "impression_count"
FIELDS = "expansions=author_id&tweet.fields=created_at,public_metrics"
# name -> (report title, server, load.lua mode); rounds interleave them as bench/run.py's do.
SCENARIOS = {
    "bare": ("bare ASGI `GET /` (bench/serve.py)", "bare", "bare"),
    "single": (f"floor single `GET /2/tweets/:id?{FIELDS}`", "single", "single"),
    "batch": ("floor 100-id `GET /2/tweets?ids=<100 ids>` (bench/run.py's query)", "batch", "batch"),
    "batch_fields": (f"floor 100-id `GET /2/tweets?ids=<100 ids>&{FIELDS}`", "batch", "paths"),
}


# ---- the floor apps ---------------------------------------------------------------------------------


class Reader:
    """One sqlite3 connection with roost's PRAGMAs (no busy timeout: nothing writes); like roost's reader
    it keeps one read transaction per event-loop turn (a statement outside one takes and drops the WAL
    read lock each time)."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=OFF", "cache_size=-32768"):
            self.conn.execute(f"PRAGMA {pragma}")
        self._open = False

    def rows(self, sql: str, params: list[int]) -> list[Any]:
        if not self._open:
            self.conn.execute("BEGIN")
            self._open = True
            asyncio.get_running_loop().call_soon(self._end)
        return self.conn.execute(sql, params).fetchall()

    def _end(self) -> None:
        self._open = False
        self.conn.execute("COMMIT")


_DAYS: dict[int, str] = {}


def iso_ms(epoch_ms: int) -> str:
    """2025-11-01T14:41:48.304Z, the date part formatted once per day."""
    day, in_day = divmod(epoch_ms, 86_400_000)
    date = _DAYS.get(day)
    if date is None:
        date = _DAYS[day] = time.strftime("%Y-%m-%dT", time.gmtime(day * 86_400))
    seconds, millis = divmod(in_day, 1000)
    minutes, second = divmod(seconds, 60)
    return f"{date}{minutes // 60:02d}:{minutes % 60:02d}:{second:02d}.{millis:03d}Z"


def history(post_id: str, edits: str | None) -> list[str]:
    return [post_id] if edits is None else [str(i) for i in orjson.loads(edits)]


def full_post(row: tuple[Any, ...]) -> dict[str, Any]:
    pid, text, shown, author, _, edits, created, reposts, replies, likes, quotes, marks, views = row
    sid = str(pid)
    return {
        "id": sid,
        "text": text if shown is None else shown,
        "edit_history_tweet_ids": history(sid, edits),
        "author_id": str(author),
        "created_at": iso_ms(created),
        "public_metrics": {
            "retweet_count": reposts,
            "reply_count": replies,
            "like_count": likes,
            "quote_count": quotes,
            "bookmark_count": marks,
            "impression_count": views,
        },
    }


def floor_app(kind: str, db: str) -> Any:
    """The floor app of one kind (single, batch), on the database file `db`."""
    reader = Reader(db)
    users = {
        uid: {"id": str(uid), "name": name, "username": username}
        for uid, name, username in reader.conn.execute("SELECT id, name, username FROM users")
    }
    single_sql = f"SELECT {FULL} FROM posts WHERE id = ?"
    batch_sql: dict[tuple[int, bool], str] = {}  # (id count, full selection) -> its statement
    # The headers of a roost response (copied from one; the values roost repeats are constants here too).
    limit = b"450" if kind == "single" else b"3500"  # the app-only limits of the two endpoints
    fixed: RawHeaders = [(b"content-type", b"application/json; charset=utf-8"), (b"api-version", b"2.167")]
    rate: RawHeaders = [(b"x-access-level", b"read"), (b"x-rate-limit-limit", limit)]
    rate += [(b"x-rate-limit-remaining", limit), (b"x-rate-limit-reset", b"%d" % (time.time() + 900))]
    getrandbits, perf_counter = random.getrandbits, time.perf_counter
    not_found = b'{"errors":[{"title":"Not Found Error"}]}'

    def answer_single(scope: Scope) -> tuple[int, bytes]:
        found = reader.rows(single_sql, [int(scope["path"][10:])])  # after "/2/tweets/"
        if not found:
            return 404, not_found
        row = found[0]
        return 200, orjson.dumps({"data": full_post(row), "includes": {"users": [users[row[3]]]}})

    def answer_batch(scope: Scope) -> tuple[int, bytes]:
        query: bytes = scope["query_string"]
        ids = [int(i) for i in query.partition(b"ids=")[2].partition(b"&")[0].split(b",")]
        full = b"expansions=" in query
        sql = batch_sql.get((len(ids), full))
        if sql is None:
            marks = ",".join("?" * len(ids))
            sql = batch_sql[(len(ids), full)] = (
                f"SELECT {FULL if full else DEFAULT} FROM posts WHERE id IN ({marks})"
            )
        by_id = {row[0]: row for row in reader.rows(sql, ids)}
        rows = [by_id[i] for i in ids if i in by_id]
        if not rows:
            return 404, not_found
        if not full:
            data = [
                {
                    "id": (s := str(r[0])),
                    "text": r[1] if r[2] is None else r[2],
                    "edit_history_tweet_ids": history(s, r[5]),
                }
                for r in rows
            ]
            return 200, orjson.dumps({"data": data})
        authors = [users[a] for a in dict.fromkeys(r[3] for r in rows)]
        return 200, orjson.dumps({"data": [full_post(r) for r in rows], "includes": {"users": authors}})

    answer = answer_single if kind == "single" else answer_batch

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            started = perf_counter()
            status, body = answer(scope)
            elapsed = int((perf_counter() - started) * 1000)
            headers = [*fixed, (b"x-transaction-id", b"%016x" % getrandbits(64)), *rate]
            headers.append((b"x-response-time", b"%d" % elapsed))
            await send_raw(scope, send, status, body, headers)
        elif scope["type"] == "lifespan":
            # The same start-up and shutdown as the baseline (its module types messages as MutableMapping).
            await bare_app(scope, receive, send)  # type: ignore[arg-type]

    return app


def serve(kind: str, db: str, port: int) -> None:
    from roost.serving import Server

    Server(floor_app(kind, db), "127.0.0.1", port, log_level="warning").run()  # as bench/serve.py


# ---- the measurement ------------------------------------------------------------------------------


def measure(args: argparse.Namespace) -> tuple[dict[str, LoadResult], str]:
    from bench.run import VISIBLE_POSTS, ensure_database

    work = Path(tempfile.mkdtemp(prefix="roost-floor-"))
    log = work / "servers.log"
    servers: dict[str, subprocess.Popen[bytes]] = {}
    try:
        database, _ = ensure_database(args.users, args.posts, args.seed, False, log)
        served = work / "roost.db"  # a copy, as run.py serves: the cached file stays untouched
        shutil.copyfile(database, served)
        with sqlite3.connect(served) as conn:
            ids = [str(r[0]) for r in conn.execute(VISIBLE_POSTS)]
            # The floor checks no token, but wrk sends one of roost's: the request bytes roost parses.
            found = conn.execute("SELECT bearer_token FROM apps WHERE bearer_token IS NOT NULL").fetchone()
        conn.close()
        (work / "ids.txt").write_text("\n".join(ids) + "\n")
        pick = random.Random(args.seed)  # 1,000 random 100-id lookups with fields, for mode `paths`
        paths = (f"/2/tweets?ids={','.join(pick.sample(ids, 100))}&{FIELDS}" for _ in range(1000))
        (work / "paths.txt").write_text("\n".join(paths) + "\n")
        files = {"bare": None, "single": work / "ids.txt", "batch": work / "ids.txt"}
        files["paths"] = work / "paths.txt"

        wrk = harness.ensure_wrk()
        setup = f"{harness.wrk_version(wrk)}, 1 thread, bench/load.lua" if wrk else "bench/loadgen.py"
        server_cpu, generator_cpu = harness.cpu_layout()
        setup += f"; server on CPU {server_cpu}, generator on CPU {generator_cpu} (None: not pinned)"
        ports = {name: harness.free_port() for name in ("bare", "single", "batch")}
        for name, port in ports.items():  # all on the server CPU; the ones not under load are idle
            floor = [
                harness.PYTHON,
                str(Path(__file__).resolve()),
                "serve",
                "--kind",
                name,
                "--db",
                str(served),
            ]
            command = [harness.PYTHON, str(harness.BENCH / "serve.py"), "bare"] if name == "bare" else floor
            servers[name] = harness.spawn([*command, "--port", str(port)], server_cpu, log)
        ready = {"bare": "/", "single": f"/2/tweets/{ids[0]}", "batch": f"/2/tweets?ids={ids[0]}"}
        for name, path in ready.items():
            harness.wait_ready(f"http://{HOST}:{ports[name]}{path}", servers[name], log)
        check(ports, ids)

        names = [n for n in SCENARIOS if n != "batch_fields" or args.batch_fields]
        rounds: dict[str, list[LoadResult]] = {name: [] for name in names}
        for number in range(1, args.rounds + 1):
            for name in names:
                _, server, mode = SCENARIOS[name]
                token = "" if name == "bare" or found is None else found[0]
                generator = "wrk" if wrk else "python"
                load = (name, generator, wrk, ports[server], mode, files[mode], token, args, generator_cpu)
                result = harness.run_load(*load, servers[server].pid)
                rounds[name].append(result)
                print(f"round {number}/{args.rounds} {name}: {harness.describe(result)}")
    finally:
        for process in servers.values():
            harness.stop(process)
        shutil.rmtree(work, ignore_errors=True)
    return {name: harness.cleanest(results) for name, results in rounds.items()}, setup


def check(ports: dict[str, int], ids: list[str]) -> None:
    """One answer of each floor app by hand before any load."""
    status, body = http_get(f"http://{HOST}:{ports['single']}/2/tweets/{ids[0]}?{FIELDS}")
    single = orjson.loads(body)
    if status != 200 or single["data"]["id"] != ids[0] or len(single["includes"]["users"]) != 1:
        raise SystemExit(f"floor single answered {status}: {body[:300]!r}")
    status, body = http_get(f"http://{HOST}:{ports['batch']}/2/tweets?ids={','.join(ids[1:101])}")
    if status != 200 or [d["id"] for d in orjson.loads(body)["data"]] != ids[1:101]:
        raise SystemExit(f"floor batch answered {status}: {body[:300]!r}")


def cpu_ratio(bare: LoadResult, other: LoadResult) -> float:
    return bare.cpu_us_per_request / other.cpu_us_per_request if other.cpu_us_per_request else 0.0


def report(args: argparse.Namespace, loads: dict[str, LoadResult], setup: str) -> str:
    from bench.report import TARGETS, machine

    m = machine()
    bare = loads["bare"]
    lines = [
        "# The floor under the lookup targets",
        "",
        f"Written by `bench/floor.py` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; rerun: "
        "`.venv/bin/python bench/floor.py`.",
        "",
        f"Machine: nproc {m['nproc']}, {m['cpu_model']}, Linux {m['kernel']}, Python {m['python']}, "
        + ", ".join(f"{k} {v}" for k, v in m["versions"].items())
        + f", SQLite {m['sqlite']}. Load: {setup}; {args.connections} connections, {args.warmup:g} s "
        f"warm-up + {args.duration} s measured, {args.rounds} round(s), the least disturbed shown. "
        "Servers: `roost.serving.Server` with bench/serve.py's settings.",
        "",
        # Two ratios: of req/s (the targets' measure) and of server CPU per request (steadier when other
        # processes take part of the server's CPU, as on a shared machine they do).
        "| scenario | req/s | p99 ms | errors | server CPU µs/req | ÷ bare, req/s | ÷ bare, CPU | target |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    targets = {"single": TARGETS["single_ratio"], "batch": TARGETS["batch_ratio"]}
    for name, r in loads.items():
        ratios = "— | —" if name == "bare" else f"{r.rps / bare.rps:.3f} | {cpu_ratio(bare, r):.3f}"
        target = f"{targets[name]:.2f}" if name in targets else "—"
        lines.append(
            f"| {SCENARIOS[name][0]} | {r.rps:,.0f} | {r.p99_ms:.2f} | {r.errors} | "
            f"{r.cpu_us_per_request:.1f} | {ratios} | {target} |"
        )
    lines += ["", "Server CPU per request at the target (bare's ÷ the target ratio), and what is left of it"]
    lines += ["above the floor for roost's own pipeline:", ""]
    for name, share in targets.items():
        budget, floor_us = bare.cpu_us_per_request / share, loads[name].cpu_us_per_request
        room = (
            f"room {budget - floor_us:.0f} µs" if budget > floor_us else "none: the floor misses the target"
        )
        lines.append(f"- {name}: {budget:.0f} µs at the target, floor {floor_us:.0f} µs, {room}")
    doc = (__doc__ or "").split("\n\n", 2)[2]  # the docstring's account of the apps
    lines += ["", "What the floor apps do and leave out:", "", *(line.strip() for line in doc.splitlines())]
    return "\n".join(lines) + "\n"


def main() -> None:
    if sys.argv[1:2] == ["serve"]:  # one floor app: `serve --kind single|batch --db FILE --port N`
        one = argparse.ArgumentParser(prog="bench/floor.py serve")
        for flag, kind in (("--kind", str), ("--db", str), ("--port", int)):
            one.add_argument(flag, type=kind, required=True)
        served = one.parse_args(sys.argv[2:])
        serve(served.kind, served.db, served.port)
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    harness.add_lookup_load_flags(parser)
    parser.add_argument("--batch-fields", action="store_true", help="also the 100-id lookup with fields")
    parser.add_argument("--output", type=Path, default=harness.BENCH / "FLOOR.md")
    args = parser.parse_args()
    harness.check_lookup_load_flags(parser, args)
    text = report(args, *measure(args))
    args.output.write_text(text)
    print(f"{text}\nwrote {args.output}")


if __name__ == "__main__":
    main()
