"""Committed writes survive a restart and a kill -9 of the server process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
from tests.support.server import LiveServer, free_port, fresh_database_url

from roost.auth.oauth1 import sign_request

# Each started server's stderr, by process id: shown when it fails to start.
_LOGS: dict[int, Path] = {}


def _wait_ready(base_url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{_log_tail(process)}")
        try:
            if httpx.get(base_url + "/_roost/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    # Where it is stuck: SIGABRT makes the server's faulthandler print every thread's stack.
    process.send_signal(signal.SIGABRT)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    raise TimeoutError(f"server did not become ready:\n{_log_tail(process)}")


def _log_tail(process: subprocess.Popen[bytes]) -> str:
    log = _LOGS.get(process.pid)
    if log is None or not log.exists():
        return "(no log)"
    return log.read_text(errors="replace")[-20_000:]


def _serve(db_url: str, port: int, tmp_path: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "ROOST_DATA_DIR": str(tmp_path), "PYTHONFAULTHANDLER": "1"}
    command = [
        sys.executable,
        "-m",
        "roost",
        "serve",
        "--port",
        str(port),
        "--db",
        db_url,
        "--no-rate-limits",
    ]
    log = tmp_path / f"server-{port}-{time.monotonic_ns()}.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    _LOGS[process.pid] = log
    return process


def test_data_survives_a_graceful_restart() -> None:
    db_url = fresh_database_url("restart")
    first = LiveServer(tag="restart", db_url=db_url).start()
    creds = httpx.get(first.base_url + "/_roost/credentials").json()
    url = first.base_url + "/2/tweets"
    header = sign_request(
        "POST",
        url,
        creds["consumer_key"],
        creds["consumer_secret"],
        creds["access_token"],
        creds["access_token_secret"],
    )
    created = httpx.post(url, json={"text": "still here after a restart"}, headers={"Authorization": header})
    assert created.status_code == 201
    post_id = created.json()["data"]["id"]
    first.stop()

    second = LiveServer(tag="restart", db_url=db_url).start()
    try:
        again = httpx.get(
            f"{second.base_url}/2/tweets/{post_id}",
            headers={"Authorization": f"Bearer {creds['bearer_token']}"},
        )
        assert again.json()["data"]["text"] == "still here after a restart"
        assert httpx.get(second.base_url + "/_roost/credentials").json() == {
            **creds,
            "base_url": second.base_url,
            "ads_base_url": second.base_url,
            "ads_sandbox_base_url": second.base_url + "/sandbox",
        }
    finally:
        second.stop()


def test_no_acknowledged_write_is_lost_when_the_server_is_killed(tmp_path: Path) -> None:
    """Eight writers post as fast as they can; the server is killed mid-burst. Every 201 must persist."""
    db_url = fresh_database_url("kill")
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    process = _serve(db_url, port, tmp_path)
    acknowledged: list[str] = []
    lock = threading.Lock()
    try:
        _wait_ready(base_url, process)
        creds = httpx.get(base_url + "/_roost/credentials").json()

        def writer(worker: int) -> None:
            url = base_url + "/2/tweets"
            with httpx.Client(timeout=5) as client:
                for index in range(10_000):
                    header = sign_request(
                        "POST",
                        url,
                        creds["consumer_key"],
                        creds["consumer_secret"],
                        creds["access_token"],
                        creds["access_token_secret"],
                    )
                    try:
                        response = client.post(
                            url, json={"text": f"burst {worker}-{index}"}, headers={"Authorization": header}
                        )
                    except httpx.HTTPError:
                        return
                    if response.status_code == 201:
                        with lock:
                            acknowledged.append(response.json()["data"]["id"])

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        while len(acknowledged) < 50:
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        for thread in threads:
            thread.join(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()

    restarted = _serve(db_url, port, tmp_path)
    try:
        _wait_ready(base_url, restarted)
        bearer = {"Authorization": f"Bearer {creds['bearer_token']}"}
        missing: list[str] = []
        for start in range(0, len(acknowledged), 100):
            chunk = acknowledged[start : start + 100]
            found = httpx.get(base_url + "/2/tweets", params={"ids": ",".join(chunk)}, headers=bearer).json()
            missing.extend(item["resource_id"] for item in found.get("errors", []))
        assert missing == []
    finally:
        restarted.send_signal(signal.SIGTERM)
        restarted.wait(timeout=15)
