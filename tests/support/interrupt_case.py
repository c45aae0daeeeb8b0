"""Not part of the suite (its name is not test_*): the long test that tests/api/test_scripts_test.py
runs through scripts/test and interrupts. It starts a `roost serve`, says so in the file named by
ROOST_INTERRUPT_MARKER, then waits far longer than anyone will let it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def test_a_long_wait_with_a_server_running(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "roost",
        "serve",
        "--port",
        str(port),
        "--db",
        f"sqlite:///{tmp_path}/r.db",
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/_roost/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        Path(os.environ["ROOST_INTERRUPT_MARKER"]).write_text(f"{os.getpid()} {server.pid}\n")
        time.sleep(600)
    finally:
        server.terminate()
        server.wait(timeout=30)
