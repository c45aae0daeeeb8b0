"""`roost seed` wall time: the whole command (start-up, migrating a fresh SQLite file, loading) as a
user runs it, against the goal of 100,000 posts in under 30 seconds. Writes bench/SEED.md.

    .venv/bin/python bench/seed.py [--runs 3] [--users 10000] [--posts 100000] [--follows 0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOST = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "roost"
GOAL_S = 30.0


def _run_once(arguments: list[str]) -> tuple[float, str]:
    """Seconds for one `roost seed` on a fresh SQLite file, and its summary line."""
    with tempfile.TemporaryDirectory(prefix="roost-seed-") as folder:
        url = f"sqlite:///{Path(folder) / 'seed.db'}"
        started = time.perf_counter()
        done = subprocess.run(
            [str(ROOST), "seed", *arguments, "--db", url], capture_output=True, text=True, check=False
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"roost seed failed ({done.returncode}): {done.stderr.strip()}")
        return seconds, done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--follows", type=int, default=0)
    options = parser.parse_args()
    arguments = ["--users", str(options.users), "--posts", str(options.posts)]
    if options.follows:
        arguments += ["--follows", str(options.follows)]
    times: list[float] = []
    summary = ""
    for run in range(options.runs):
        seconds, summary = _run_once(arguments)
        times.append(seconds)
        print(f"run {run + 1}: {seconds:.1f} s  ({summary})", flush=True)
    command = f"roost seed {' '.join(arguments)} --db sqlite:///<fresh file>"
    best, median = min(times), statistics.median(times)
    verdict = "met" if median < GOAL_S else "NOT met"
    lines = [
        "# `roost seed`",
        "",
        f"Measured {datetime.now(UTC).isoformat(timespec='seconds')} by `bench/seed.py` "
        f"on this machine ({os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at the end).",
        "",
        "Command, timed whole (start-up, migrations, the load), each run on a new SQLite file:",
        "",
        f"    {command}",
        "",
        f"{options.runs} runs. Goal: 100,000 posts in under 30 s. The machine is shared: the load average",
        "above says how busy it was.",
        "",
        "| runs (s) | median (s) | best (s) | goal |",
        "|---|---|---|---|",
        f"| {', '.join(f'{t:.1f}' for t in times)} | {median:.1f} | {best:.1f} | {verdict} |",
        "",
        f"Last run's summary: `{summary}`",
        "",
    ]
    (HERE / "SEED.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"median {median:.1f} s, best {best:.1f} s: goal {verdict}; wrote bench/SEED.md")


if __name__ == "__main__":
    main()
