"""Filtered stream: `POST /2/tweets` to stream line latency with 1,000 rules and 10 connections,
against a real `roost serve`. Writes bench/STREAM.md.

    .venv/bin/python -m bench.stream [--rules 1000] [--connections 10] [--posts 200]

Latency is the arrival of a post's line on a stream connection minus the moment the `POST /2/tweets`
that created it was sent, both read with time.perf_counter in this process (a line may arrive before
the 201 does). The same-run baseline is the POST round trip itself (request sent → 201 received).
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import orjson

from bench.delivery import Server, _pct

HERE = Path(__file__).resolve().parent
TARGET_P99_MS = 50.0
WORDS = [f"w{index:04d}" for index in range(5000)]


def _rules(count: int, rng: random.Random) -> list[dict[str, str]]:
    """A mix of the shapes users write: single words, conjunctions, OR groups, negations, phrases."""
    rules: list[dict[str, str]] = []
    seen: set[str] = set()
    index = 0
    while len(rules) < count:
        a, b, c = rng.sample(WORDS, 3)
        shape = index % 5
        if shape == 0:
            value = a
        elif shape == 1:
            value = f"{a} {b}"
        elif shape == 2:
            value = f"({a} OR {b}) -{c}"
        elif shape == 3:
            value = f'"{a} {b}" lang:en'
        else:
            value = f"{a} -is:retweet"
        index += 1
        if value in seen:
            continue  # a duplicate would make the platform refuse its whole batch
        seen.add(value)
        rules.append({"value": value, "tag": f"r{len(rules)}"})
    return rules


async def _reader(
    client: httpx.AsyncClient, headers: dict[str, str], arrivals: dict[str, float], ready: asyncio.Event
) -> None:
    async with client.stream("GET", "/2/tweets/search/stream", headers=headers) as response:
        assert response.status_code == 200, await response.aread()
        ready.set()
        buffer = b""
        async for chunk in response.aiter_bytes():
            buffer += chunk
            while b"\r\n" in buffer:
                line, _, buffer = buffer.partition(b"\r\n")
                if line.strip():
                    post_id = orjson.loads(line)["data"]["id"]
                    arrivals.setdefault(post_id, time.perf_counter())


async def measure(server: Server, rules: int, connections: int, posts: int) -> dict[str, object]:
    rng = random.Random(7)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as client:
        creds = (await client.get("/_roost/credentials")).json()
        # The default rule cap (an access level's) is below the rule count measured here.
        await client.post(
            "/_roost/settings",
            json={"stream_connection_limit": str(connections), "stream_rule_limit": str(max(rules, 1000))},
        )
        app = {"Authorization": f"Bearer {creds['bearer_token']}"}
        user = {"Authorization": f"Bearer {creds['oauth2_user_token']}"}
        made = _rules(rules, rng)
        for start in range(0, len(made), 100):
            response = await client.post(
                "/2/tweets/search/stream/rules", json={"add": made[start : start + 100]}, headers=app
            )
            assert response.status_code == 201, response.text
            assert response.json()["meta"]["summary"]["created"] == len(made[start : start + 100]), (
                response.text
            )
        per_connection: list[dict[str, float]] = [{} for _ in range(connections)]
        ready = [asyncio.Event() for _ in range(connections)]
        readers = [
            asyncio.create_task(_reader(client, app, per_connection[i], ready[i])) for i in range(connections)
        ]
        await asyncio.gather(*(event.wait() for event in ready))
        acked: dict[str, float] = {}
        round_trips: list[float] = []
        matching_words = [rule["value"] for rule in made if " " not in rule["value"]]
        for index in range(posts):
            word = matching_words[index % len(matching_words)]
            sent = time.perf_counter()
            response = await client.post("/2/tweets", json={"text": f"{word} bench {index}"}, headers=user)
            done = time.perf_counter()
            assert response.status_code == 201, response.text
            acked[response.json()["data"]["id"]] = sent
            round_trips.append((done - sent) * 1000)
            await asyncio.sleep(0.02)  # 50 posts a second: steady traffic, not a burst
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(len(a) < posts for a in per_connection):
            await asyncio.sleep(0.05)
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
    latencies = [
        (arrivals[post_id] - acked_at) * 1000
        for arrivals in per_connection
        for post_id, acked_at in acked.items()
        if post_id in arrivals
    ]
    return {
        "lines": len(latencies),
        "expected": posts * connections,
        "p50": statistics.median(latencies),
        "p99": _pct(latencies, 0.99),
        "max": max(latencies),
        "post_p50": statistics.median(round_trips),
        "post_p99": _pct(round_trips, 0.99),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=10)
    parser.add_argument("--posts", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="roost-bench-stream-") as tmp:
        server = Server(Path(tmp))
        try:
            server.wait_ready()
            result = asyncio.run(measure(server, args.rules, args.connections, args.posts))
        finally:
            server.stop()
    verdict = "met" if float(result["p99"]) < TARGET_P99_MS else "NOT met"
    table = (
        f"# Filtered stream latency\n\n"
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()}, Python "
        f"{platform.python_version()}, SQLite, one `roost serve` process; {args.rules} rules, "
        f"{args.connections} connections, {args.posts} posts at 50 per second, each matching a rule.\n\n"
        "| measure | p50 ms | p99 ms |\n|---|---:|---:|\n"
        f"| POST sent → line on a stream connection | {result['p50']:.1f} | {result['p99']:.1f} |\n"
        f"| baseline: `POST /2/tweets` round trip | {result['post_p50']:.1f} | {result['post_p99']:.1f} |\n\n"
        f"Lines received: {result['lines']} of {result['expected']} (max latency {result['max']:.1f} ms). "
        f"Target p99 < {TARGET_P99_MS:.0f} ms: {verdict}.\n"
    )
    (HERE / "STREAM.md").write_text(table, encoding="utf-8")
    print(table)


if __name__ == "__main__":
    main()
