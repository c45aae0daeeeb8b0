"""Helpers of bench/writes.py: the webhook receiver and filtered-stream reader (a process of its own,
`python -m bench.writes receiver ...`), the words posts are made of, the stream rules, the server-side
set-up calls and what the benchmark reads from the database and from `/_roost/metrics`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import json
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import psycopg
from aiohttp import web

from bench.delivery import SIGNATURE_HEADER, Receiver, _sign
from bench.harness import HOST, http_get, proc_cpu_seconds
from bench.processes import subscribe
from bench.rules import vocabulary
from bench.run import VISIBLE_POSTS

POST_WORDS = 3000  # posts draw 9 words from these, uniformly
POST_TAGS = 100  # posts carry one of the first 100 tags (30% of them)
ALL_TAGS = 500  # rules name any of 500 tags
RULE_BATCH = 100  # rules per POST /2/tweets/search/stream/rules

# ---- words and rules ----------------------------------------------------------------------------------


def words_and_tags(seed: int) -> tuple[list[str], list[str]]:
    words = vocabulary(POST_WORDS, random.Random(seed))
    return words, [f"tag{w}" for w in words[20 : 20 + ALL_TAGS]]


def write_words_file(path: Path, seed: int, users: list[str]) -> None:
    """What bench/writes.lua composes posts from: words, hashtags (without #) and usernames to mention."""
    words, tags = words_and_tags(seed)
    lines = [f"w {w}" for w in words] + [f"t {t}" for t in tags[:POST_TAGS]] + [f"m {u}" for u in users]
    path.write_text("\n".join(lines) + "\n")


def make_rules(count: int, seed: int, users: list[str]) -> list[dict[str, str]]:
    """`count` distinct rules in eight shapes over the posts' words, tags and users. Most need two words
    together and so rarely match; `#tag`, `@user word` and `(a OR b) c` match a few percent of posts, so
    the stream carries some lines and every post is run through the whole rule set."""
    words, tags = words_and_tags(seed)
    rng = random.Random(seed + 1)
    rules: list[dict[str, str]] = []
    seen: set[str] = set()
    index = 0
    plain = words[20:]  # not the common words: `and`, `or` and the like are keywords in rules
    while len(rules) < count:
        a, b, c = rng.sample(plain, 3)
        user = rng.choice(users)
        value = (
            f'"{a} {b}" -is:retweet',
            f"#{rng.choice(tags)}",
            f"from:{user} {a}",  # other users: never the poster
            f"lang:en {a} {b}",
            f"@{user} {a}",
            f"({a} OR {b}) {c}",
            f"{a} {b} -{c}",
            f"{a} {b} -is:reply",
        )[index % 8]
        index += 1
        if value not in seen:  # a duplicate would make the platform refuse its whole batch
            seen.add(value)
            rules.append({"value": value, "tag": f"w{len(rules)}"})
    return rules


# ---- set-up through the API ---------------------------------------------------------------------------


async def prepare(
    base_url: str, creds: dict[str, Any], receiver_port: int, rules: list[dict[str, str]]
) -> dict[str, Any]:
    """Register the receiver as a webhook and subscribe the demo user (bench/processes.py's calls), then
    add the stream rules in batches with the app's bearer token."""
    app = {"Authorization": f"Bearer {creds['bearer_token']}"}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        if len(rules) > 1000:  # the default cap is 1,000 rules per project
            settings = {"stream_rule_limit": str(len(rules))}
            async with session.post(f"{base_url}/_roost/settings", json=settings) as response:
                if response.status != 200:
                    raise RuntimeError(f"/_roost/settings -> {response.status}: {await response.text()}")
        # A Receiver that is never started: only its url() is used, pointing at the receiver process.
        hook_id = await subscribe(session, base_url, creds, Receiver(secret="", port=receiver_port))
        created = 0
        for start in range(0, len(rules), RULE_BATCH):
            batch = rules[start : start + RULE_BATCH]
            url = f"{base_url}/2/tweets/search/stream/rules"
            async with session.post(url, json={"add": batch}, headers=app) as response:
                body = await response.read()
                if response.status != 201:
                    raise RuntimeError(f"add rules -> {response.status}: {body[:300]!r}")
                made = int(orjson.loads(body)["meta"]["summary"]["created"])
                if made != len(batch):
                    raise RuntimeError(f"{made} of {len(batch)} rules created: {body[:500]!r}")
                created += made
        async with session.get(f"{base_url}/2/tweets/search/stream/rules/counts", headers=app) as response:
            counts = orjson.loads(await response.read()).get("data", {})
    if created != len(rules):
        raise RuntimeError(f"{created} of {len(rules)} stream rules created")
    return {"hook_id": hook_id, "rules": created, "counts": counts}


# ---- the database and the server's state -------------------------------------------------------------


def database_facts(db_url: str, user_id: str) -> tuple[list[str], list[str]]:
    """(ids of every post the app may see, usernames of the other users): what the lookups ask for and
    whom posts mention."""
    users_sql = f"SELECT username FROM users WHERE id <> {int(user_id)} ORDER BY id"
    if db_url.startswith("sqlite:///"):
        conn = sqlite3.connect(db_url.removeprefix("sqlite:///"))
        try:
            ids = [str(r[0]) for r in conn.execute(VISIBLE_POSTS)]
            users = [str(r[0]) for r in conn.execute(users_sql)]
        finally:
            conn.close()
    else:
        with psycopg.connect(db_url) as pg:
            ids = [str(r[0]) for r in pg.execute(VISIBLE_POSTS).fetchall()]
            users = [str(r[0]) for r in pg.execute(users_sql).fetchall()]
    return ids, users


def backend_cpu(db_url: str) -> float:
    """CPU seconds of the PostgreSQL backends now serving this database (0 for SQLite)."""
    if db_url.startswith("sqlite"):
        return 0.0
    name = db_url.rsplit("/", 1)[1]
    with psycopg.connect(db_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (name,)).fetchall()
    total = 0.0
    for (pid,) in rows:
        with contextlib.suppress(OSError):
            total += proc_cpu_seconds(int(pid))
    return total


def backlog(port: int) -> dict[str, float]:
    """The server's delivery rows by state and its event log lag, from /_roost/metrics."""
    status, body = http_get(f"http://{HOST}:{port}/_roost/metrics")
    if status != 200:
        raise RuntimeError(f"/_roost/metrics -> {status}")
    out: dict[str, float] = {}
    for line in body.decode().splitlines():
        if line.startswith('roost_deliveries{state="'):
            state = line.split('"')[1]
            out[state] = float(line.rsplit(" ", 1)[1])
        elif line.startswith("roost_event_log_lag "):
            out["lag"] = float(line.rsplit(" ", 1)[1])
    return out


def receiver_call(port: int, path: str) -> dict[str, Any]:
    status, body = http_get(f"http://{HOST}:{port}{path}", timeout=30.0)
    if status != 200:
        raise RuntimeError(f"receiver {path} -> {status}: {body[:200]!r}")
    return dict(json.loads(body))


# ---- the receiver process -----------------------------------------------------------------------------


class ReceiverApp:
    """Answers the CRC, checks each delivery's signature and keeps the post ids of tweet_create_events;
    holds one filtered stream connection open (reconnecting if it ends), reading and counting lines."""

    def __init__(self, secret: str, server_url: str, bearer: str) -> None:
        self.secret = secret.encode()
        self.server_url = server_url
        self.bearer = bearer
        self.seen: set[str] = set()
        self.counts = dict.fromkeys(
            (
                "deliveries",
                "bad_signatures",
                "create_events",
                "other_bodies",
                "crc_calls",
                "stream_connects",
                "stream_lines",
                "stream_keepalives",
                "stream_other_lines",
                "stream_errors",
                "stream_refusals",
            ),
            0,
        )
        self.stream_status = 0

    async def crc(self, request: web.Request) -> web.Response:
        self.counts["crc_calls"] += 1
        token = request.query.get("crc_token", "").encode()
        return web.json_response({"response_token": _sign(self.secret, token)})

    async def delivery(self, request: web.Request) -> web.Response:
        raw = await request.read()
        self.counts["deliveries"] += 1
        if not hmac.compare_digest(request.headers.get(SIGNATURE_HEADER, ""), _sign(self.secret, raw)):
            self.counts["bad_signatures"] += 1
        try:
            events = orjson.loads(raw).get("tweet_create_events") or []
        except (orjson.JSONDecodeError, AttributeError):
            events = []
        if not events:
            self.counts["other_bodies"] += 1
        for event in events:
            self.counts["create_events"] += 1
            self.seen.add(str(event.get("id_str")))
        return web.Response(body=b"{}", content_type="application/json")

    async def stats(self, request: web.Request) -> web.Response:
        return web.json_response(
            {**self.counts, "distinct_ids": len(self.seen), "stream": self.stream_status}
        )

    async def missing(self, request: web.Request) -> web.Response:
        """Of the post ids in the files named (comma-separated paths), how many never arrived."""
        acked: set[str] = set()
        for name in request.query.get("files", "").split(","):
            if name:
                acked.update(line for line in Path(name).read_text().split() if line)
        lost = acked - self.seen
        return web.json_response(
            {
                "acked": len(acked),
                "missing": len(lost),
                "sample": sorted(lost)[:5],
                "unacked_seen": len(self.seen - acked),
                "distinct_ids": len(self.seen),
            }
        )

    async def stream(self) -> None:
        url = f"{self.server_url}/2/tweets/search/stream"
        headers = {"Authorization": f"Bearer {self.bearer}"}
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=90)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            while True:
                try:
                    async with session.get(url, headers=headers) as response:
                        self.stream_status = response.status
                        if response.status != 200:
                            self.counts["stream_refusals"] += 1
                            await response.read()
                            await asyncio.sleep(2)
                            continue
                        self.counts["stream_connects"] += 1
                        async for raw in response.content:
                            line = raw.strip()
                            if not line:
                                self.counts["stream_keepalives"] += 1
                            elif line.startswith(b'{"data"'):
                                self.counts["stream_lines"] += 1
                            else:
                                self.counts["stream_other_lines"] += 1
                except (aiohttp.ClientError, TimeoutError):
                    self.counts["stream_errors"] += 1
                    await asyncio.sleep(1)

    async def serve(self, port: int, stream: bool) -> None:
        app = web.Application(client_max_size=16 * 2**20)
        app.router.add_get("/_stats", self.stats)
        app.router.add_get("/_missing", self.missing)
        app.router.add_get("/{tail:.*}", self.crc)
        app.router.add_post("/{tail:.*}", self.delivery)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, HOST, port, backlog=1024).start()
        reader = asyncio.create_task(self.stream()) if stream else None
        try:
            while True:
                await asyncio.sleep(3600)
        finally:
            if reader is not None:
                reader.cancel()
            await runner.cleanup()


def receiver_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.writes receiver")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True, help="the app's consumer secret (CRC and signatures)")
    parser.add_argument("--server", default="", help="roost's base URL, for the filtered stream")
    parser.add_argument("--bearer", default="", help="app bearer token for the stream; none: no stream")
    args = parser.parse_args(argv)
    receiver = ReceiverApp(args.secret, args.server, args.bearer)
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    with contextlib.suppress(KeyboardInterrupt):
        runner(receiver.serve(args.port, bool(args.server and args.bearer)))


def wait_receiver(port: int, process: Any, stream: bool, timeout: float = 30.0) -> dict[str, Any]:
    """Wait until the receiver answers (and, with a stream, until that is connected): its counts."""
    deadline = time.monotonic() + timeout
    last: dict[str, Any] = {}
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the receiver exited with {process.returncode}")
        with contextlib.suppress(OSError, RuntimeError):
            last = receiver_call(port, "/_stats")
            if not stream or last["stream_connects"] >= 1:
                return last
        time.sleep(0.1)
    raise RuntimeError(f"the receiver (stream {stream}) not ready after {timeout:.0f} s: {last}")
