"""In-process timing of the home timeline against the single lookup: the ASGI app called in a loop,
no sockets, no server (bench/profile_hot.py's harness), on a copy of bench/run.py's database with one
user following `--follows` public users (bench/home.py's data).

    .venv/bin/python bench/profile_home.py [--requests 3000] [--profile]

Prints µs per request of roost's own code for the single lookup and for home timeline pages
(max_results 10 and 100, and the page bench/lists.py measures on its list timeline), then what
reading one user's home timeline entries costs when the cache is cold (after a commit).
With `--profile`, cProfile's top functions by own time for the page of 10.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.home import HOME, add_follows
from bench.profile_hot import SINGLE_QUERY, Harness, top_rows, visible_ids
from bench.run import ensure_database
from roost.app import RoostApp
from roost.config import Settings

LIST_LIKE_QUERY = "&expansions=author_id&tweet.fields=created_at,public_metrics"


async def timed(harness: Harness, scopes: list[dict[str, Any]]) -> float:
    started = time.perf_counter()
    await harness.loop(scopes)
    return (time.perf_counter() - started) / len(scopes) * 1e6


async def main_async(args: argparse.Namespace, db_url: str, user: int) -> None:
    app = RoostApp(Settings(db_url=db_url, demo=True, rate_limits=False))
    await app.startup()
    assert app.state is not None and app.server is not None
    credentials = await app.state.credentials()
    issued = await app.server.domain.accounts.issue_token(credentials["consumer_key"], user, kind="oauth2")
    app_harness = Harness(app, credentials["bearer_token"])
    user_harness = Harness(app, issued["access_token"])
    rng = random.Random(7)
    ids = visible_ids(db_url)

    def single(n: int) -> list[dict[str, Any]]:
        return [app_harness.scope(f"/2/tweets/{rng.choice(ids)}", SINGLE_QUERY) for _ in range(n)]

    def home(n: int, query: str) -> list[dict[str, Any]]:
        path, _, rest = HOME.format(id=user, n=query).partition("?")
        return [user_harness.scope(path, rest.encode()) for _ in range(n)]

    cases = [
        ("single lookup", lambda n: single(n)),
        ("home max_results=10", lambda n: home(n, "10")),
        ("home max_results=100", lambda n: home(n, "100")),
        ("home max_results=10 (bench/lists.py's fields)", lambda n: home(n, "10" + LIST_LIKE_QUERY)),
    ]
    results: dict[str, float] = {}
    for label, build in cases:
        await (app_harness if label == "single lookup" else user_harness).loop(build(500))  # warm up
        results[label] = min([await timed(app_harness, build(args.requests)) for _ in range(3)])
    base = results["single lookup"]
    print("| request | µs/request | ratio to the single lookup (by time) |")
    print("|---|---:|---:|")
    for label, us in results.items():
        print(f"| {label} | {us:.0f} | {base / us:.3f} |")

    posts: Any = app.server.stores.posts
    if hasattr(posts, "home_entries"):  # not in trees before the entries were cached
        first, whole = [], []
        for _ in range(10):
            posts._homes.clear()
            started = time.perf_counter()
            kept = await posts._home(user, 11)
            first.append((time.perf_counter() - started) * 1e6)
            while not kept[2].complete:
                kept = await posts._extend_home(user, kept)
            whole.append((time.perf_counter() - started) * 1e6)
        print(
            f"\ncold read of the user's home entries (best of 10): the first chunk "
            f" {min(first):.0f} µs; "
            f"chunk by chunk to the whole depth ({len(kept[2].ids):,} entries) {min(whole):.0f} µs"
        )

    if args.profile:
        profiler = cProfile.Profile()
        scopes = home(args.requests, "10")
        profiler.enable()
        await user_harness.loop(scopes)
        profiler.disable()
        print("\n| function | own µs/req | cum µs/req | calls/req |\n|---|---:|---:|---:|")
        for name, own, cum, calls in top_rows(pstats.Stats(profiler), args.requests, args.top):
            print(f"| `{name}` | {own:.1f} | {cum:.1f} | {calls:g} |")
    if set(user_harness.statuses) | set(app_harness.statuses) != {200}:
        print(f"**unexpected statuses: {user_harness.statuses} {app_harness.statuses}**")
    await app.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--follows", type=int, default=500)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="roost-profile-home-"))
    try:
        database, _ = ensure_database(10_000, 100_000, args.seed, False, work / "build.log")
        served = work / "roost.db"
        shutil.copyfile(database, served)
        user, _ = add_follows(served, args.follows, args.seed)
        asyncio.run(main_async(args, f"sqlite:///{served}", user))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
