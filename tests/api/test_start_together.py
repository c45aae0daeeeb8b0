"""Several server processes started at once on one new database: the schema is migrated once, under a
database lock (PostgreSQL: an advisory lock; SQLite: a lock file), the demo data is seeded once, the
others wait for both, and every process comes up without a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from tests.api.test_persistence import _wait_ready
from tests.support.server import PG_ENV, free_port, fresh_database_url

from roost.storage.migrate import head_revision, stored_revision

PROCESSES = 4


def _database(kind: str, monkeypatch: pytest.MonkeyPatch) -> str:
    if kind == "sqlite":
        monkeypatch.delenv(PG_ENV, raising=False)
    elif not os.environ.get(PG_ENV):
        pytest.skip(f"needs PostgreSQL ({PG_ENV} is not set)")
    return fresh_database_url("start_together")


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_processes_started_together_on_a_new_database_all_come_up(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_url = _database(kind, monkeypatch)
    ports = [free_port() for _ in range(PROCESSES)]
    logs = [tmp_path / f"server-{n}.log" for n in range(PROCESSES)]
    env = {**os.environ, "ROOST_DATA_DIR": str(tmp_path)}
    processes = []
    for port, log in zip(ports, logs, strict=True):
        command = [sys.executable, "-m", "roost", "serve", "--port", str(port), "--db", db_url]
        with log.open("wb") as out:
            processes.append(subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT))
    try:
        for port, process in zip(ports, processes, strict=True):
            _wait_ready(f"http://127.0.0.1:{port}", process)
        # One demo dataset: every process hands out the same demo user and keys.
        keys = ("user_id", "consumer_key", "access_token", "bearer_token", "oauth2_user_token")
        credentials = [httpx.get(f"http://127.0.0.1:{port}/_roost/credentials").json() for port in ports]
        assert {tuple(each[key] for key in keys) for each in credentials} == {
            tuple(credentials[0][key] for key in keys)
        }
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=20)
    assert stored_revision(db_url) == head_revision()
    for log in logs:
        assert "Traceback" not in log.read_text(encoding="utf-8", errors="replace")
    if kind == "postgresql":
        _drop(db_url)


def _drop(db_url: str) -> None:
    import psycopg

    base, name = db_url.rsplit("/", 1)
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
