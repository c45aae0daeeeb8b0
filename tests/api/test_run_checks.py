"""`roost run` checks the target before starting the command, and `--credentials` hands the command
the demo credentials."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.server import LiveServer, free_port

ROOST = [sys.executable, "-m", "roost"]


def _roost(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ROOST, *args], capture_output=True, text=True, timeout=120)


def test_nothing_listening_is_one_line_and_the_command_never_starts(tmp_path: Path) -> None:
    target = f"http://127.0.0.1:{free_port()}"
    marker = tmp_path / "started"
    script = f"open({str(marker)!r}, 'w').close()"
    result = _roost("run", "--target", target, "--", sys.executable, "-c", script)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        f"Error: nothing answers at {target} — start it with roost serve"
    ]
    assert not marker.exists()


def test_credentials_are_in_the_commands_environment(server: LiveServer, credentials: dict[str, Any]) -> None:
    script = (
        "import os; print(os.environ['ROOST_BEARER_TOKEN']); print(os.environ['BEARER_TOKEN']);"
        "print(os.environ['ROOST_CONSUMER_KEY']); print(os.environ['ROOST_ACCESS_TOKEN_SECRET']);"
        "print(os.environ['ROOST_OAUTH2_USER_TOKEN']); print(os.environ['ROOST_USER_ID'])"
    )
    result = _roost("run", "--credentials", "--target", server.base_url, "--", sys.executable, "-c", script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        credentials["bearer_token"],
        credentials["bearer_token"],
        credentials["consumer_key"],
        credentials["access_token_secret"],
        credentials["oauth2_user_token"],
        credentials["user_id"],
    ]


def test_without_credentials_flag_nothing_is_exported(server: LiveServer) -> None:
    script = "import os; print(os.environ.get('ROOST_BEARER_TOKEN', 'unset'))"
    result = _roost("run", "--target", server.base_url, "--", sys.executable, "-c", script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "unset"
