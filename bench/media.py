"""Chunked media upload: 64 MiB through `POST /2/media/upload/initialize`, `/{id}/append` (multipart
segments) and `/{id}/finalize` on loopback, against writing the same segments to the same storage
(the server's SQLite file, one transaction per segment, as the server stores them) in the same run;
and the server's resident memory during the upload. Writes bench/MEDIA.md.

    .venv/bin/python bench/media.py [--megabytes 64] [--segment-mib 1 4] [--runs 3]

Targets: upload MB/s ≥ 0.3 × the direct write's; RSS growth during the upload < 2 × the segment size.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
MIB = 1024 * 1024
WARM_UP = 48 * MIB
MP4_HEAD = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class RssSampler:
    """The server's peak RSS while a block runs, sampled every 5 ms."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _rss_kb(self.pid))
            time.sleep(0.005)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_kb(self.pid))


def segments(total: int, size: int) -> list[bytes]:
    """The file's segments: an MP4 header, then random bytes (incompressible, like real video)."""
    data = []
    for start in range(0, total, size):
        chunk = os.urandom(min(size, total - start))
        data.append(MP4_HEAD + chunk[len(MP4_HEAD) :] if start == 0 else chunk)
    return data


def upload(client: httpx.Client, token: str, parts: list[bytes]) -> float:
    """Seconds from initialize to a finished finalize."""
    headers = {"Authorization": f"Bearer {token}"}
    total = sum(len(p) for p in parts)
    started = time.perf_counter()
    init = client.post(
        "/2/media/upload/initialize", json={"media_type": "video/mp4", "total_bytes": total}, headers=headers
    )
    init.raise_for_status()
    media_id = init.json()["data"]["id"]
    for index, part in enumerate(parts):
        response = client.post(
            f"/2/media/upload/{media_id}/append",
            data={"segment_index": str(index)},
            files={"media": ("blob", part, "application/octet-stream")},
            headers=headers,
        )
        response.raise_for_status()
    done = client.post(f"/2/media/upload/{media_id}/finalize", headers=headers)
    done.raise_for_status()
    assert done.json()["data"]["size"] == total, done.text
    return time.perf_counter() - started


def direct_write(db_path: Path, parts: list[bytes]) -> float:
    """Seconds to store the same segments in the same SQLite file, one transaction each."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS bench_segments (media_id INTEGER, segment_index INTEGER, size INTEGER,"
        " data BLOB, PRIMARY KEY (media_id, segment_index))"
    )
    media_id = time.monotonic_ns()
    started = time.perf_counter()
    for index, part in enumerate(parts):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO bench_segments VALUES (?, ?, ?, ?)", (media_id, index, len(part), part))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - started
    conn.execute("DELETE FROM bench_segments")
    conn.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--megabytes", type=int, default=64)
    parser.add_argument("--segment-mib", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    total = args.megabytes * MIB
    rows = []
    with tempfile.TemporaryDirectory() as data_dir:
        db_path = Path(data_dir) / "roost.db"
        port = _port()
        command = [
            sys.executable, "-m", "roost", "serve", "--port", str(port),
            "--db", f"sqlite:///{db_path}", "--no-rate-limits",
        ]  # fmt: skip
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(base + "/_roost/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start")
                time.sleep(0.05)
            token = httpx.get(base + "/_roost/credentials").json()["oauth2_user_token"]
            with httpx.Client(base_url=base, timeout=120) as client:
                # Warm-up: imports, statements, the allocator, and SQLite's page cache (32 MiB per
                # connection, `storage/db.py`), which any write of that much data fills once.
                for segment_mib in args.segment_mib:
                    upload(client, token, segments(WARM_UP, segment_mib * MIB))
                for segment_mib in args.segment_mib:
                    size = segment_mib * MIB
                    for run in range(1, args.runs + 1):
                        parts = segments(total, size)
                        before = _rss_kb(server.pid)
                        with RssSampler(server.pid) as sampler:
                            uploaded = upload(client, token, parts)
                        written = direct_write(db_path, parts)
                        rows.append(
                            {
                                "segment_mib": segment_mib,
                                "run": run,
                                "upload_mbs": total / MIB / uploaded,
                                "direct_mbs": total / MIB / written,
                                "rss_before_mib": before / 1024,
                                "rss_growth_mib": (sampler.peak - before) / 1024,
                            }
                        )
                        print(rows[-1], flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
    write_report(rows, args.megabytes)


def write_report(rows: list[dict[str, float]], megabytes: int) -> None:
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# roost chunked media upload",
        "",
        f"Written by `bench/media.py` on {now}. Rerun: `.venv/bin/python bench/media.py`.",
        "",
        f"A {megabytes} MiB video (random bytes behind an MP4 header) uploaded through"
        " `POST /2/media/upload/initialize`, one multipart `/{id}/append` per segment, and"
        " `/{id}/finalize`, with an OAuth 2.0 user token, on loopback, by one sequential client"
        " (httpx), to `roost serve` on SQLite (rate limits off). The direct write stores the same"
        " segments in the same database file, one transaction per segment, from the benchmark process."
        " Resident memory is the server's VmRSS, sampled every 5 ms during the upload, against its"
        " value just before. A 48 MiB warm-up upload per segment size runs first: it fills SQLite's"
        " page cache (32 MiB per connection, `storage/db.py`), which grows once whatever stores that"
        " much data and then stays; what is left is what the upload itself holds.",
        "",
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()},"
        f" SQLite {sqlite3.sqlite_version}.",
        "",
        "| segment | upload MB/s (median) | direct write MB/s (median) | ratio | target"
        " | RSS growth MiB (max) | target |",
        "|---:|---:|---:|---:|---|---:|---|",
    ]
    for segment_mib in sorted({int(r["segment_mib"]) for r in rows}):
        mine = [r for r in rows if r["segment_mib"] == segment_mib]
        up = statistics.median(r["upload_mbs"] for r in mine)
        direct = statistics.median(r["direct_mbs"] for r in mine)
        ratio = statistics.median(r["upload_mbs"] / r["direct_mbs"] for r in mine)
        growth = max(r["rss_growth_mib"] for r in mine)
        ratio_met = "met" if ratio >= 0.3 else "MISSED"
        growth_met = "met" if growth < 2 * segment_mib else "MISSED"
        lines.append(
            f"| {segment_mib} MiB | {up:.1f} | {direct:.1f} | {ratio:.2f} | ≥ 0.3 {ratio_met}"
            f" | {growth:.1f} | < {2 * segment_mib} MiB {growth_met} |"
        )
    lines += [
        "",
        "Every run:",
        "",
        "| segment | run | upload MB/s | direct MB/s | RSS before MiB | RSS growth MiB |",
    ]
    lines.append("|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        lines.append(
            f"| {int(r['segment_mib'])} MiB | {int(r['run'])} | {r['upload_mbs']:.1f} | {r['direct_mbs']:.1f}"
            f" | {r['rss_before_mib']:.1f} | {r['rss_growth_mib']:.1f} |"
        )
    (HERE / "MEDIA.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
