"""The `roost` command line: run a program against roost, and manage apps, users and tokens offline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.server import LiveServer

ROOST = [sys.executable, "-m", "roost"]


def _roost(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ROOST, *args], capture_output=True, text=True, timeout=120, **kwargs)


def test_roost_run_sends_public_hosts_to_the_server(server: LiveServer, credentials: dict[str, Any]) -> None:
    script = (
        "import requests, sys;"
        "r = requests.get('https://api.twitter.com/2/users/by/username/roost_dev',"
        f" headers={{'Authorization': 'Bearer {credentials['bearer_token']}'}});"
        "print(r.status_code, r.json()['data']['id']); sys.exit(3)"
    )
    result = _roost("run", "--target", server.base_url, "--", sys.executable, "-c", script)
    assert result.returncode == 3, result.stderr
    assert result.stdout.split() == ["200", credentials["user_id"]]


def test_apps_users_tokens_commands_work_against_a_database(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    user = _roost("users", "create", "--username", "cli_alice", "--premium", "--db", db)
    assert user.returncode == 0, user.stderr
    assert json.loads(user.stdout)["username"] == "cli_alice"
    app = _roost(
        "apps", "create", "--name", "cli app", "--permission", "read", "--owner", "cli_alice", "--db", db
    )
    assert app.returncode == 0, app.stderr
    keys = json.loads(app.stdout)
    assert keys["permission"] == "read" and keys["bearer_token"].startswith("AAAA")
    token = _roost(
        "tokens", "issue", "--consumer-key", keys["consumer_key"], "--username", "cli_alice", "--db", db
    )
    issued = json.loads(token.stdout)
    assert issued["access_level"] == "read"
    assert issued["access_token"].startswith(json.loads(user.stdout)["id"] + "-")
    oauth2 = _roost(
        "tokens",
        "issue",
        "--consumer-key",
        keys["consumer_key"],
        "--username",
        "cli_alice",
        "--kind",
        "oauth2",
        "--scopes",
        "tweet.read users.read",
        "--db",
        db,
    )
    assert json.loads(oauth2.stdout)["scope"] == "tweet.read users.read"
    rotated = _roost("apps", "regenerate", "--consumer-key", keys["consumer_key"], "--db", db)
    new_keys = json.loads(rotated.stdout)
    assert new_keys["consumer_key"] != keys["consumer_key"]
    assert new_keys["bearer_token"] != keys["bearer_token"]
    unknown = _roost(
        "tokens", "issue", "--consumer-key", keys["consumer_key"], "--username", "cli_alice", "--db", db
    )
    assert unknown.returncode != 0
    assert "unknown consumer key" in unknown.stderr


def test_tokens_regenerate_revokes_the_old_token(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'regen.db'}"
    user = json.loads(_roost("users", "create", "--username", "cli_bob", "--db", db).stdout)
    app = json.loads(_roost("apps", "create", "--name", "regen app", "--db", db).stdout)
    first = json.loads(
        _roost(
            "tokens", "issue", "--consumer-key", app["consumer_key"], "--username", "cli_bob", "--db", db
        ).stdout
    )
    again = _roost("tokens", "regenerate", "--access-token", first["access_token"], "--db", db)
    assert again.returncode == 0, again.stderr
    second = json.loads(again.stdout)
    assert second["access_token"] != first["access_token"]
    assert second["access_token"].startswith(user["id"] + "-")
    stale = _roost("tokens", "regenerate", "--access-token", first["access_token"], "--db", db)
    assert stale.returncode != 0
    assert "no live OAuth 1.0a access token" in stale.stderr


def test_serve_rejects_a_malformed_option() -> None:
    result = _roost("serve", "--option", "no-equals-sign", "--port", "1")
    assert result.returncode == 2
    assert "expected KEY=VALUE" in result.stderr
