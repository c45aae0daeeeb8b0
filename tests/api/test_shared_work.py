"""Several server processes on one database share the webhook work (issue 16): every process sends,
claiming due deliveries for itself, so an event reaches a webhook once while all processes live; one
process at a time (the holder of the `dispatch` lease) turns the event log into deliveries and runs the
CRC schedule and replay jobs, and another takes over when it dies."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.api.test_persistence import _wait_ready
from tests.support.counting_receiver import CountingReceiver
from tests.support.server import PG_ENV, free_port, fresh_database_url

LEASE_S = 2  # short, so a takeover is quick; the issue asks for one within 30 seconds
TAKEOVER_S = 30


class Process:
    """One `roost serve` process with its stderr kept in a file."""

    def __init__(self, db_url: str, directory: Path, lease_s: int | None = LEASE_S) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = directory / f"stderr-{self.port}.log"
        command = [
            *(sys.executable, "-m", "roost", "serve", "--port", str(self.port), "--db", db_url),
            *("--no-rate-limits", "--log-level", "info"),
            *(("--option", f"work_lease_seconds={lease_s}") if lease_s is not None else ()),
        ]
        env = {**os.environ, "ROOST_DATA_DIR": str(directory)}
        with self.log.open("wb") as stderr:
            self.process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        _wait_ready(self.url, self.process)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def _database(kind: str) -> str:
    if kind == "postgresql":
        if not os.environ.get(PG_ENV):
            pytest.skip(f"needs PostgreSQL: set {PG_ENV} to a server's URL")
        return fresh_database_url("shared_work")
    return f"sqlite:///{Path(tempfile.mkdtemp(prefix='roost-shared-work-')) / 'roost.db'}"


def _rows(db_url: str, query: str) -> list[tuple[Any, ...]]:
    """Rows read straight from the database (either kind)."""
    if db_url.startswith("sqlite"):
        conn = sqlite3.connect(db_url.removeprefix("sqlite:///"))
        try:
            return conn.execute(query).fetchall()
        finally:
            conn.close()
    import psycopg

    with psycopg.connect(db_url) as conn:
        return conn.execute(query).fetchall()


def _lease(db_url: str) -> tuple[str, int] | None:
    """The `dispatch` lease row: (holder, expires_at wall-clock ms)."""
    rows = _rows(db_url, "SELECT holder, expires_at FROM work_leases WHERE name = 'dispatch'")
    return None if not rows else (str(rows[0][0]), int(rows[0][1]))


def _wait(check: Any, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def _subscribe(base_url: str, receiver: CountingReceiver) -> dict[str, Any]:
    creds: dict[str, Any] = httpx.get(base_url + "/_roost/credentials", timeout=10).json()
    receiver.secret = creds["consumer_secret"]
    app_auth = {"Authorization": f"Bearer {creds['bearer_token']}"}
    hook = httpx.post(base_url + "/2/webhooks", json={"url": receiver.url}, headers=app_auth, timeout=30)
    assert hook.status_code == 200, hook.text
    subscribe = httpx.post(
        f"{base_url}/2/account_activity/webhooks/{hook.json()['data']['id']}/subscriptions/all",
        json={},
        headers={"Authorization": f"Bearer {creds['oauth2_user_token']}"},
        timeout=30,
    )
    assert subscribe.status_code == 200, subscribe.text
    return creds


def _post(base_url: str, token: str, text: str) -> str:
    response = httpx.post(
        base_url + "/2/tweets", json={"text": text}, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert response.status_code == 201, response.text
    return str(response.json()["data"]["id"])


@pytest.fixture
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="roost-shared-work-") as directory:
        yield Path(directory)


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_two_processes_deliver_every_event_once(kind: str, workdir: Path) -> None:
    db_url = _database(kind)
    receiver = CountingReceiver()
    first = Process(db_url, workdir)
    second: Process | None = None
    try:
        second = Process(db_url, workdir)
        creds = _subscribe(first.url, receiver)
        token = creds["oauth2_user_token"]
        posts = [_post((first, second)[n % 2].url, token, f"shared work {kind} {n}") for n in range(30)]
        assert _wait(lambda: receiver.has_posts(posts), 60), "every post reaches the webhook"
        # Every delivery row settles as delivered at its first attempt (no process sent one twice).
        assert _wait(
            lambda: all(
                row["state"] == "delivered"
                for row in httpx.get(first.url + "/_roost/deliveries", timeout=10).json()["data"]
            ),
            30,
        )
        rows = httpx.get(first.url + "/_roost/deliveries", timeout=10).json()["data"]
        assert [row["attempts"] for row in rows] == [1] * len(rows)
        with receiver.lock:
            assert {post_id: receiver.posts[post_id] for post_id in posts} == dict.fromkeys(posts, 1)
            assert sorted(receiver.events) == sorted(row["event_id"] for row in rows)
            assert set(receiver.events.values()) == {1}
            assert receiver.bad_signatures == 0
    finally:
        if second is not None:
            second.stop()
        first.stop()
        receiver.httpd.shutdown()
    for process in (first, second):
        assert process is not None
        assert "Traceback" not in process.stderr(), process.stderr()


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_another_process_takes_over_when_the_lease_holder_is_killed(kind: str, workdir: Path) -> None:
    db_url = _database(kind)
    receiver = CountingReceiver()
    first = Process(db_url, workdir)
    second: Process | None = None
    try:
        # The first process takes the lease before the second starts, so the kill hits its holder.
        held = _wait(lambda: _lease(db_url), 30)
        assert held is not None
        holder = held[0]
        second = Process(db_url, workdir)
        creds = _subscribe(second.url, receiver)
        token = creds["oauth2_user_token"]
        before = _post(second.url, token, f"before the kill {kind}")
        assert _wait(lambda: receiver.has_posts([before]), 30)
        assert _lease(db_url) is not None and _lease(db_url)[0] == holder  # type: ignore[index]

        os.kill(first.process.pid, signal.SIGKILL)
        first.process.wait(timeout=10)
        after = _post(second.url, token, f"after the kill {kind}")
        # Only the lease holder turns events into deliveries: this one arrives once the second
        # process has taken the lease over.
        assert _wait(lambda: receiver.has_posts([after]), TAKEOVER_S), "the survivor takes over dispatch"
        taken = _lease(db_url)
        assert taken is not None and taken[0] != holder
    finally:
        if second is not None:
            second.stop()
        first.stop()
        receiver.httpd.shutdown()
    assert second is not None
    assert "Traceback" not in second.stderr(), second.stderr()
