"""Snapshot save and load of a large state: `roost snapshot save` and `roost snapshot load` against a
served copy (bench/SNAPSHOT.md has the figures).

    .venv/bin/python bench/snapshot.py [--posts 100000] [--users 10000] [--db URL]

Builds the data as bench/run.py does (`roost.data.bulk.load_bulk` on a migrated database, then the
demo seed when the server first starts), starts `roost serve` on it, times `roost snapshot save FILE`,
a reset, `roost snapshot load FILE` and a second save (which must equal the first), and reads the
server's peak resident memory (VmHWM, reset before each step) from /proc.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from run import _load  # noqa: E402  # the benchmark's own bulk load

ROOST = str(Path(sys.executable).parent / "roost")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak(pid: int) -> None:
    # "5" resets the peak resident set size to the current one (Linux 4.0 and later).
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def _timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _wait_ready(base_url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"roost serve exited with {process.returncode}")
        try:
            if httpx.get(base_url + "/_roost/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError("roost serve did not become ready")


def measure(db_url: str, users: int, posts: int, workdir: Path) -> dict[str, Any]:
    from roost.storage.migrate import upgrade

    upgrade(db_url)
    built = asyncio.run(_load(db_url, users, posts, seed=7))
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    log = (workdir / "server.log").open("wb")
    server = subprocess.Popen(
        [ROOST, "serve", "--db", db_url, "--port", str(port), "--no-rate-limits"],
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        _wait_ready(base_url, server)
        first, second = workdir / "first.json", workdir / "second.json"
        counts = {k: v for k, v in built.items() if not k.startswith("sample") and "post_id" not in k}
        figures: dict[str, Any] = {"database": db_url.split(":", 1)[0], "built": counts}
        figures["server_rss_idle_mb"] = round(_rss_mb(server.pid), 1)

        _reset_peak(server.pid)
        figures["save_s"] = round(_timed([ROOST, "snapshot", "save", str(first), "--target", base_url]), 2)
        figures["save_peak_rss_mb"] = round(_peak_rss_mb(server.pid), 1)
        figures["document_mb"] = round(first.stat().st_size / 1e6, 1)

        httpx.post(base_url + "/_roost/reset", timeout=600)
        _reset_peak(server.pid)
        figures["load_s"] = round(_timed([ROOST, "snapshot", "load", str(first), "--target", base_url]), 2)
        figures["load_peak_rss_mb"] = round(_peak_rss_mb(server.pid), 1)

        _timed([ROOST, "snapshot", "save", str(second), "--target", base_url])
        figures["round_trip_identical"] = first.read_bytes() == second.read_bytes()
        return figures
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--db", default=None, help="a database URL (default: a new SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="roost-snapshot-bench-") as tmp:
        workdir = Path(tmp)
        db_url = args.db or f"sqlite:///{workdir / 'roost.db'}"
        env_data = {"ROOST_DATA_DIR": str(workdir)}
        os.environ.update(env_data)
        print(json.dumps(measure(db_url, args.users, args.posts, workdir), indent=2))


if __name__ == "__main__":
    main()
