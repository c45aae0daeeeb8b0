"""Instructions per single lookup, counted by valgrind (callgrind): a figure that does not move with
the machine's load, for comparing two trees on a noisy host.

    .venv/bin/python bench/instructions.py                     # this tree
    .venv/bin/python bench/instructions.py --tree ../old-main  # this tree against another checkout

For each tree, the ASGI app is started in process on a copy of the benchmark database (as
bench/profile_hot.py does), warmed up with `--warm` single lookups, then run twice under callgrind:
once stopping after the warm-up and once after `--requests` more. The difference, divided by
`--requests`, is the instructions of one lookup (start-up and warm-up cancel out). The lookups are the
same random ids in the same order in every tree. Needs valgrind (Debian's package).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    sys.path.insert(0, str(ROOT))


async def _child(db_url: str, warm: int, requests: int) -> None:
    sys.path.insert(0, os.getcwd())  # the counted tree's own harness, whatever its modules are called
    from bench.profile_hot import SINGLE_QUERY, Harness, visible_ids
    from roost.app import RoostApp
    from roost.config import Settings

    app = RoostApp(Settings(db_url=db_url, demo=True, rate_limits=False))
    await app.startup()
    assert app.state is not None
    token = (await app.state.credentials())["bearer_token"]
    harness = Harness(app, token)
    rng = random.Random(7)
    ids = visible_ids(db_url)
    scopes = [harness.scope(f"/2/tweets/{rng.choice(ids)}", SINGLE_QUERY) for _ in range(warm + requests)]
    await harness.loop(scopes[:warm])
    # The bearer cache expires entries by the monotonic clock, which valgrind slows twentyfold: frozen
    # here, so every counted lookup is a cache hit in every tree instead of a varying share of misses.
    import roost.auth.principals as principals

    frozen = time.monotonic()
    principals.time = types.SimpleNamespace(monotonic=lambda: frozen, time=time.time)  # type: ignore[assignment]
    # What start-up and warm-up left alive is set aside, so the cyclic collector's passes cost the same
    # in trees whose modules hold different numbers of objects: the count is the lookup's own work.
    gc.collect()
    gc.freeze()
    await harness.loop(scopes[warm:])
    if set(harness.statuses) != {200}:
        raise SystemExit(f"unexpected statuses: {harness.statuses}")


def _collected(tree: Path, db: Path, warm: int, requests: int) -> int:
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / "bench.db"
        shutil.copyfile(db, copy)
        env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONHASHSEED": "0"}
        command = [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            f"sqlite:///{copy}",
            str(warm),
            str(requests),
        ]
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run failed in {tree}:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def _database() -> Path:
    cached = sorted((ROOT / "bench" / ".cache").glob("roost-*.db"))
    if not cached:
        raise SystemExit(
            "no benchmark database: run bench/run.py once (it builds bench/.cache/…), or pass --db"
        )
    return cached[-1]


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        asyncio.run(_child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", type=Path, help="a benchmark database (default: the one in bench/.cache)")
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout to count")
    parser.add_argument("--warm", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2, help="counts per tree, the trees taking turns")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    db = args.db or _database()
    trees = [ROOT, *(tree.resolve() for tree in args.tree)]
    counts: dict[Path, list[float]] = {tree: [] for tree in trees}
    for _ in range(args.rounds):
        for tree in trees:
            base = _collected(tree, db, args.warm, 0)
            total = _collected(tree, db, args.warm, args.requests)
            counts[tree].append((total - base) / args.requests)
    # Run to run, a count still moves a little (the collector, hash layouts of ids):
    # every round is shown, and the trees are compared on their medians.
    first = statistics.median(counts[ROOT])
    print("| tree | instructions per single lookup, each round | median | against the first |")
    print("|---|---|---:|---:|")
    for tree, values in counts.items():
        median = statistics.median(values)
        rounds = ", ".join(f"{value:,.0f}" for value in values)
        print(f"| {tree} | {rounds} | {median:,.0f} | {median / first:.3f} |")


if __name__ == "__main__":
    main()
