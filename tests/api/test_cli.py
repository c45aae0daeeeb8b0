"""The `roost` command line: run a program against roost, and manage apps, users and tokens offline."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from tests.support.server import PG_ENV, LiveServer, free_port

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


def test_apps_are_created_on_a_package_and_moved_to_another(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'packages.db'}"
    made = _roost("apps", "create", "--name", "self-serve bot", "--package", "pay-per-use", "--db", db)
    assert made.returncode == 0, made.stderr
    app = json.loads(made.stdout)
    assert app["package"] == "pay-per-use"
    moved = _roost(
        "apps", "package", "--consumer-key", app["consumer_key"], "--package", "enterprise", "--db", db
    )
    assert moved.returncode == 0, moved.stderr
    assert (json.loads(moved.stdout)["id"], json.loads(moved.stdout)["package"]) == (app["id"], "enterprise")
    unknown = _roost("apps", "package", "--consumer-key", "nope", "--package", "enterprise", "--db", db)
    assert unknown.returncode != 0
    assert "consumer_key must name an existing app" in unknown.stderr
    refused = _roost("apps", "create", "--name", "x", "--package", "platinum", "--db", db)
    assert refused.returncode == 2 and "'platinum' is not one of" in refused.stderr


def test_an_app_is_given_credit_and_its_limit_taken_away(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'credit.db'}"
    made = _roost("apps", "create", "--name", "metered bot", "--package", "pay-per-use", "--db", db)
    key = json.loads(made.stdout)["consumer_key"]
    given = _roost("apps", "credit", "--consumer-key", key, "--usd", "2.5", "--db", db)
    assert given.returncode == 0, given.stderr
    row = json.loads(given.stdout)
    assert (row["consumer_key"], row["credit_usd"], row["cost_usd"], row["out_of_credit"]) == (
        key,
        2.5,
        0,
        False,
    )
    unlimited = _roost("apps", "credit", "--consumer-key", key, "--no-limit", "--db", db)
    assert json.loads(unlimited.stdout)["credit_usd"] is None
    assert _one_line_error(_roost("apps", "credit", "--consumer-key", "nope", "--usd", "1", "--db", db)) == (
        "Error: no app has the consumer key nope"
    )
    neither = _roost("apps", "credit", "--consumer-key", key, "--db", db)
    assert neither.returncode == 2 and "give either --usd or --no-limit" in neither.stderr
    negative = _roost("apps", "credit", "--consumer-key", key, "--usd", "-1", "--db", db)
    assert negative.returncode == 2


def test_serve_rejects_a_malformed_option() -> None:
    result = _roost("serve", "--option", "no-equals-sign", "--port", "1")
    assert result.returncode == 2
    assert "expected KEY=VALUE" in result.stderr


def test_serve_rejects_an_unknown_option_naming_the_known_ones() -> None:
    result = _roost("serve", "--option", "webhok_limit=3", "--port", "1")
    assert result.returncode == 2
    assert "unknown feature setting(s) webhok_limit" in result.stderr
    assert "webhook_limit" in result.stderr


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """A refusal is a single `Error: ...` line on stderr and a non-zero exit, never a traceback."""
    assert result.returncode != 0, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


def test_users_create_refusals_are_one_line_errors(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'users.db'}"
    assert _roost("users", "create", "--username", "cli_carol", "--db", db).returncode == 0
    taken = _roost("users", "create", "--username", "cli_carol", "--db", db)
    assert _one_line_error(taken) == "Error: username cli_carol is taken"
    for name in ("bad name!", "this_username_is_way_too_long"):
        bad = _roost("users", "create", "--username", name, "--db", db)
        assert _one_line_error(bad) == "Error: username must match ^[A-Za-z0-9_]{1,15}$"


def test_tokens_issue_refuses_more_than_the_app_allows(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'levels.db'}"
    _roost("users", "create", "--username", "cli_dave", "--db", db)
    app = json.loads(_roost("apps", "create", "--name", "ro", "--permission", "read", "--db", db).stdout)
    issue = ["tokens", "issue", "--consumer-key", app["consumer_key"], "--username", "cli_dave", "--db", db]
    higher = _roost(*issue, "--access-level", "read-write")
    assert _one_line_error(higher) == "Error: access level read-write is above the app's permission (read)"
    bogus = _roost(*issue, "--kind", "oauth2", "--scopes", "tweet.read bogus.scope")
    assert _one_line_error(bogus) == "Error: unknown scope: bogus.scope"
    same = _roost(*issue, "--access-level", "read")
    assert same.returncode == 0 and json.loads(same.stdout)["access_level"] == "read"


def _postgres_server() -> str:
    """The PostgreSQL server the tests may use (user@host:port), or skip when none answers."""
    parts = urlsplit(os.environ.get(PG_ENV) or "postgresql://postgres@127.0.0.1:5432/postgres")
    host, port = parts.hostname or "127.0.0.1", parts.port or 5432
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        pytest.skip(f"no PostgreSQL server at {host}:{port}")
    return parts.netloc


def test_serve_on_a_missing_postgres_database_says_how_to_create_it() -> None:
    name = f"roost_absent_{uuid.uuid4().hex[:10]}"
    db = f"postgresql://{_postgres_server()}/{name}"
    result = _roost("serve", "--port", str(free_port()), "--db", db)
    line = _one_line_error(result)
    assert f'database "{name}" does not exist' in line
    assert "create it with: createdb " in line and line.endswith(f" {name}")


def test_serve_without_a_reachable_database_is_one_line(tmp_path: Path) -> None:
    refused = _roost("serve", "--port", str(free_port()), "--db", f"postgresql://u@127.0.0.1:{free_port()}/x")
    assert "connection refused" in _one_line_error(refused)
    blocked = tmp_path / "file"
    blocked.write_text("")
    sqlite = _roost("serve", "--port", str(free_port()), "--db", f"sqlite:///{blocked}/sub/roost.db")
    assert _one_line_error(sqlite).startswith(
        f"Error: cannot open the SQLite database {blocked}/sub/roost.db"
    )
    other = _roost("users", "create", "--username", "x", "--db", "mysql://u:pw@db/x")
    assert _one_line_error(other) == (
        "Error: unsupported database URL mysql://u:***@db/x: use sqlite:///PATH or postgresql://USER@HOST/NAME"
    )


def test_serve_rejects_a_limits_file_that_is_not_a_json_object(tmp_path: Path) -> None:
    limits = tmp_path / "limits.json"
    for content in ("{nope", "[1]"):
        limits.write_text(content)
        result = _roost("serve", "--limits", str(limits), "--port", "1")
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert "Invalid value for --limits" in result.stderr


def test_serve_oauth_timestamp_window_is_what_the_server_checks(tmp_path: Path) -> None:
    import httpx

    from roost.auth.oauth1 import sign_request

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = ["serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'window.db'}"]
    server = subprocess.Popen([*ROOST, *command, "--oauth-timestamp-window", "10"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/_roost/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "roost serve did not start"
            time.sleep(0.05)
        creds = httpx.get(base + "/_roost/credentials").json()
        keys = (creds["consumer_key"], creds["consumer_secret"])

        def me(age_s: int) -> httpx.Response:
            signed = sign_request(
                "GET",
                base + "/2/users/me",
                *keys,
                token=creds["access_token"],
                token_secret=creds["access_token_secret"],
                timestamp=int(time.time()) - age_s,
            )
            return httpx.get(base + "/2/users/me", headers={"Authorization": signed})

        assert me(0).status_code == 200
        stale = me(60)  # inside the default 300 s, outside the 10 s asked for
        assert stale.status_code == 401
        assert stale.json() == {"errors": [{"code": 135, "message": "Timestamp out of bounds."}]}
    finally:
        server.terminate()
        server.wait(timeout=30)
