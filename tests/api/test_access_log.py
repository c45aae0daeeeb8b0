"""`roost serve --access-log --log-format json|text` (issue 17): one line per request on stderr, with
no secret in it; with `--workers N`, each process writes its own requests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.server import PG_ENV, free_port, fresh_database_url

from roost.auth.oauth1 import sign_request

ROOST = [sys.executable, "-m", "roost"]


class Served:
    def __init__(self, process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
        self.process = process
        self.base_url = base_url
        self.log = log

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for_line(self, found: Callable[[str], bool], timeout: float = 30.0) -> str:
        """The first log line `found` accepts, waiting for it to be written."""
        deadline = time.monotonic() + timeout
        while True:
            for line in self.text().splitlines():
                if found(line):
                    return line
            assert time.monotonic() < deadline, f"no such line in the log:\n{self.text()[-5000:]}"
            time.sleep(0.05)


def _serve(tmp_path: Path, *options: str, db_url: str | None = None) -> Iterator[Served]:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    db = db_url or f"sqlite:///{tmp_path / f'access-{port}.db'}"
    log = tmp_path / f"serve-{port}.log"
    env = {**os.environ, "ROOST_DATA_DIR": str(tmp_path)}
    command = [*ROOST, "serve", "--port", str(port), "--db", db, *options]
    with log.open("wb") as stderr:
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    served = Served(process, base_url, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base_url + "/_roost/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, f"roost serve exited:\n{served.text()}"
            assert time.monotonic() < deadline, f"roost serve did not start:\n{served.text()}"
            time.sleep(0.05)
        yield served
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def json_server(tmp_path: Path) -> Iterator[Served]:
    yield from _serve(tmp_path, "--access-log", "--log-format", "json")


@pytest.fixture
def text_server(tmp_path: Path) -> Iterator[Served]:
    yield from _serve(tmp_path, "--access-log", "--log-format", "text")


def _credentials(served: Served) -> dict[str, Any]:
    return dict(httpx.get(served.base_url + "/_roost/credentials", timeout=30).json())


def _json_line(path: str) -> Callable[[str], bool]:
    def found(line: str) -> bool:
        try:
            record = json.loads(line)
        except ValueError:
            return False
        return (
            isinstance(record, dict) and record.get("logger") == "roost.access" and record.get("path") == path
        )

    return found


def test_json_access_lines(json_server: Served) -> None:
    creds = _credentials(json_server)
    bearer = creds["bearer_token"]
    path = "/2/users/by/username/roost_dev"
    answered = httpx.get(
        json_server.base_url + path,
        params={"user.fields": "id"},
        headers={"Authorization": f"Bearer {bearer}"},
    )
    assert answered.status_code == 200
    record = json.loads(json_server.wait_for_line(_json_line(path)))
    assert record["level"] == "INFO" and record["method"] == "GET" and record["status"] == 200
    assert record["operation"] == "findUserByUsername"
    assert record["app"].isdigit() and record["user"] is None  # an app-only token names no user
    assert record["reason"] is None and record["latency_ms"] >= 0
    assert record["transaction_id"] == answered.headers["x-transaction-id"]
    assert record["time"].endswith("Z") and isinstance(record["pid"], int)

    refused = httpx.get(json_server.base_url + "/2/users/me", headers={"Authorization": f"Bearer {bearer}"})
    assert refused.status_code == 403
    denied = json.loads(json_server.wait_for_line(_json_line("/2/users/me")))
    assert denied["status"] == 403 and denied["reason"]

    # A bad OAuth 1.0a signature: the journal shows the base string (query, header values); the
    # access log only the reason's first sentence.
    url = json_server.base_url + "/2/users/me?marker=query_value_9f3"
    wrong = sign_request("GET", url, creds["consumer_key"], "W" * 50, creds["access_token"], "x" * 40)
    assert httpx.get(url, headers={"Authorization": wrong}).status_code == 401
    mismatch = json.loads(
        json_server.wait_for_line(lambda line: _json_line("/2/users/me")(line) and '"status": 401' in line)
    )
    assert mismatch["reason"] == "OAuth 1.0a signature mismatch"

    log = json_server.text()
    assert bearer not in log and creds["consumer_secret"] not in log  # no secret is ever logged
    assert creds["access_token"] not in log and "query_value_9f3" not in log
    assert "user.fields" not in log  # nor the query string


def test_text_access_lines(text_server: Served) -> None:
    creds = _credentials(text_server)
    path = f"/2/users/by/username/nobody_{uuid.uuid4().hex[:8]}"
    answered = httpx.get(
        text_server.base_url + path, headers={"Authorization": f"Bearer {creds['bearer_token']}"}
    )
    assert answered.status_code == 200
    line = text_server.wait_for_line(lambda line: f" GET {path} " in line)
    assert " INFO roost.access " in line
    after = line.split(f" GET {path} ", 1)[1].split()
    assert after[0] == "200" and after[1].endswith("ms")
    assert after[2].startswith("app=") and after[2][4:].isdigit()
    assert after[3] == "user=-" and after[4] == "reason=-"
    unsigned = httpx.get(text_server.base_url + "/2/users/me")
    assert unsigned.status_code == 401
    refused = text_server.wait_for_line(lambda line: " GET /2/users/me 401 " in line)
    assert 'reason="' in refused and "app=- user=-" in refused
    assert creds["bearer_token"] not in text_server.text()


def test_without_access_log_no_line_is_written(tmp_path: Path) -> None:
    serving = _serve(tmp_path, "--log-format", "json", "--log-level", "info")
    served = next(serving)
    creds = _credentials(served)
    marker = f"/2/users/by/username/quiet_{uuid.uuid4().hex[:8]}"
    assert httpx.get(served.base_url + marker, headers={"Authorization": f"Bearer {creds['bearer_token']}"})
    # Something this server logs at info (uvicorn's start-up lines) shows the format applies to all.
    started = served.wait_for_line(lambda line: line.startswith("{") and '"logger": "uvicorn' in line)
    assert json.loads(started)["level"] == "INFO"
    serving.close()  # stops the server and waits for it to exit: the log is complete
    assert served.process.returncode is not None
    assert marker not in served.text()


def test_each_worker_logs_its_own_requests(tmp_path: Path) -> None:
    if not os.environ.get(PG_ENV):
        pytest.skip(f"needs PostgreSQL ({PG_ENV} is not set)")
    db_url = fresh_database_url("access-workers")
    for served in _serve(tmp_path, "--access-log", "--log-format", "json", "--workers", "2", db_url=db_url):
        bearer = {"Authorization": f"Bearer {_credentials(served)['bearer_token']}"}
        writers: set[int] = set()
        deadline = time.monotonic() + 60
        n = 0
        while len(writers) < 2:
            assert time.monotonic() < deadline, f"access lines from {writers} only:\n{served.text()[-3000:]}"
            n += 1
            path = f"/2/users/by/username/worker_{n}"
            with httpx.Client(base_url=served.base_url, timeout=10) as fresh:  # a new connection each time
                assert fresh.get(path, headers=bearer).status_code == 200
            writers.add(json.loads(served.wait_for_line(_json_line(path)))["pid"])
