"""Start-up time: `roost serve` with the demo dataset, from the command to the first answered request,
against a bare ASGI app started the same way in the same run. Writes bench/STARTUP.md.

    .venv/bin/python bench/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _time_to_ready(command: list[str], url: str, env: dict[str, str]) -> tuple[float, int]:
    """Seconds until `url` answers 200, and the server's RSS (kB) at that moment."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{command} exited with {process.returncode}")
            try:
                if httpx.get(url, timeout=0.5).status_code == 200:
                    elapsed = time.perf_counter() - started
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.01)
            if time.perf_counter() - started > 60:
                raise TimeoutError(url)
        rss = 0
        for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
        return elapsed, rss
    finally:
        process.terminate()
        process.wait(timeout=15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    roost_times, bare_times, roost_warm, rss_values = [], [], [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as data:
            env = {**os.environ, "ROOST_DATA_DIR": data}
            port = _port()
            command = [sys.executable, "-m", "roost", "serve", "--port", str(port)]
            elapsed, rss = _time_to_ready(command, f"http://127.0.0.1:{port}/_roost/health", env)
            roost_times.append(elapsed)
            rss_values.append(rss)
            port = _port()
            command = [sys.executable, "-m", "roost", "serve", "--port", str(port)]
            roost_warm.append(_time_to_ready(command, f"http://127.0.0.1:{port}/_roost/health", env)[0])
        port = _port()
        bare = [sys.executable, str(HERE / "serve.py"), "bare", "--port", str(port)]
        bare_times.append(_time_to_ready(bare, f"http://127.0.0.1:{port}/", dict(os.environ))[0])
    cold, warm, base = (statistics.median(v) for v in (roost_times, roost_warm, bare_times))
    rss_mb = statistics.median(rss_values) / 1024
    lines = [
        "# roost start-up",
        "",
        f"Written by `bench/startup.py` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; "
        f"median of {args.runs} runs.",
        "",
        "| | seconds to first answered request | ratio to bare |",
        "|---|---:|---:|",
        f"| bare ASGI app (same server and settings) | {base:.2f} | 1.0 |",
        f"| `roost serve`, new database: migrate + seed the demo dataset | {cold:.2f} | {cold / base:.1f} |",
        f"| `roost serve`, existing database | {warm:.2f} | {warm / base:.1f} |",
        "",
        f"Target: ready in under 2 seconds with the demo data: **{'met' if cold < 2 else 'NOT met'}** "
        f"({cold:.2f} s). RSS when ready: {rss_mb:.1f} MB.",
        "",
    ]
    (HERE / "STARTUP.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
