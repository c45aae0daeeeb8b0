"""`roost serve --workers N` (issue 16): N processes on one port for a PostgreSQL database; a worker
that dies is replaced; SIGTERM stops them all; SQLite is refused in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from tests.api.test_persistence import _wait_ready
from tests.support.server import PG_ENV, free_port, fresh_database_url

from roost.auth.oauth1 import sign_request


def test_workers_on_sqlite_are_refused_in_one_line(tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "roost",
        "serve",
        "--workers",
        "2",
        "--port",
        str(free_port()),
        "--db",
        f"sqlite:///{tmp_path / 'roost.db'}",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "Error: --workers needs a PostgreSQL database (--db postgresql://...): SQLite allows one "
        "writing process, so run one process on it"
    ]
    assert not (tmp_path / "roost.db").exists()  # refused before anything was created


def _processes_answering(base_url: str, want: int, timeout: float = 30.0) -> set[int]:
    """Process ids seen on new connections until `want` distinct ones answered (or the time is up)."""
    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    while len(seen) < want and time.monotonic() < deadline:
        with httpx.Client(base_url=base_url, timeout=5) as fresh:  # a new connection each time
            answer = fresh.get("/_roost/health")
            if answer.status_code == 200:
                seen.add(answer.json()["process"])
    return seen


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_workers_share_one_port_and_a_dead_worker_is_replaced(tmp_path: Path) -> None:
    if not os.environ.get(PG_ENV):
        pytest.skip(f"needs PostgreSQL ({PG_ENV} is not set)")
    db_url = fresh_database_url("workers")
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    command = [sys.executable, "-m", "roost", "serve", "--port", str(port), "--db", db_url, "--workers", "2"]
    env = {**os.environ, "ROOST_DATA_DIR": str(tmp_path)}
    with log.open("wb") as out:
        supervisor = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_ready(base_url, supervisor)
        workers = _processes_answering(base_url, 2)
        assert len(workers) == 2 and supervisor.pid not in workers
        # A write through one connection is read through another, whichever worker each reaches.
        creds = httpx.get(base_url + "/_roost/credentials").json()
        url = base_url + "/2/tweets"
        header = sign_request(
            "POST",
            url,
            creds["consumer_key"],
            creds["consumer_secret"],
            creds["access_token"],
            creds["access_token_secret"],
        )
        created = httpx.post(url, json={"text": "one port, two processes"}, headers={"Authorization": header})
        assert created.status_code == 201, created.text
        post_id = created.json()["data"]["id"]
        for _ in range(6):
            with httpx.Client(base_url=base_url, timeout=5) as fresh:
                bearer = {"Authorization": f"Bearer {creds['bearer_token']}"}
                read = fresh.get(f"/2/tweets/{post_id}", headers=bearer)
                assert read.json()["data"]["text"] == "one port, two processes"
        # One worker killed: the supervisor starts another in its place.
        killed = min(workers)
        os.kill(killed, signal.SIGKILL)
        deadline = time.monotonic() + 60
        replaced: set[int] = set()
        while killed in replaced or len(replaced) < 2:
            assert time.monotonic() < deadline, f"no replacement for worker {killed}: {replaced}"
            replaced = _processes_answering(base_url, 2, timeout=5)
    finally:
        supervisor.send_signal(signal.SIGTERM)
        code = supervisor.wait(timeout=30)
    assert code == 0
    for pid in workers | replaced:
        assert not _alive(pid), f"worker {pid} outlived the supervisor"
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text
    assert f"(pid {killed}) ended with -9: starting another" in text
