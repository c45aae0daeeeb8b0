"""What `roost run` checks and adds before it starts the command: that roost answers at the target,
and, with `--credentials`, the demo credentials as environment variables."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

import click

HEALTH_TIMEOUT_S = 2.0

# roost's credential field → the variables it is exported as: ROOST_* always, plus the names the
# clients' own tools read (twarc2's CLI: CONSUMER_KEY, …, BEARER_TOKEN; xurl: CLIENT_ID, CLIENT_SECRET).
CREDENTIAL_VARIABLES: dict[str, tuple[str, ...]] = {
    "consumer_key": ("ROOST_CONSUMER_KEY", "CONSUMER_KEY"),
    "consumer_secret": ("ROOST_CONSUMER_SECRET", "CONSUMER_SECRET"),
    "access_token": ("ROOST_ACCESS_TOKEN", "ACCESS_TOKEN"),
    "access_token_secret": ("ROOST_ACCESS_TOKEN_SECRET", "ACCESS_TOKEN_SECRET"),
    "bearer_token": ("ROOST_BEARER_TOKEN", "BEARER_TOKEN"),
    "oauth2_user_token": ("ROOST_OAUTH2_USER_TOKEN",),
    "client_id": ("ROOST_CLIENT_ID", "CLIENT_ID"),
    "client_secret": ("ROOST_CLIENT_SECRET", "CLIENT_SECRET"),
    "user_id": ("ROOST_USER_ID",),
    "username": ("ROOST_USERNAME",),
}


def prepare_run(target: str, credentials: bool) -> dict[str, str]:
    """Check that roost answers at `target` (else a one-line error, and the command never starts);
    return the variables to add to the command's environment."""
    base = target.rstrip("/")
    status = _get_status(base + "/_roost/health")
    if status is None:
        raise click.ClickException(f"nothing answers at {target} — start it with roost serve")
    if status not in (200, 401):  # 401: a roost with --admin-token, which is answering all the same
        raise click.ClickException(f"{target} answers, but not as roost (GET /_roost/health: {status})")
    if not credentials:
        return {}
    values = _get_json(base + "/_roost/credentials")
    env: dict[str, str] = {}
    for field, names in CREDENTIAL_VARIABLES.items():
        if isinstance(values.get(field), str):
            env.update(dict.fromkeys(names, values[field]))
    return env


def _opener() -> urllib.request.OpenerDirector:
    # Straight to the target: a proxy set in the environment (maybe `roost proxy`) is not on the way.
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _request(url: str) -> urllib.request.Request:
    admin_token = os.environ.get("ROOST_ADMIN_TOKEN")
    return urllib.request.Request(url, headers={"X-Roost-Admin-Token": admin_token} if admin_token else {})


def _get_status(url: str) -> int | None:
    try:
        with _opener().open(_request(url), timeout=HEALTH_TIMEOUT_S) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except (OSError, ValueError):  # refused, unreachable, timed out, or not an http(s) URL
        return None


def _get_json(url: str) -> dict[str, Any]:
    try:
        with _opener().open(_request(url), timeout=10) as response:
            body = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        hint = " (set ROOST_ADMIN_TOKEN to the server's --admin-token)" if exc.code == 401 else ""
        raise click.ClickException(f"GET {url} answered {exc.code}{hint}") from None
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"GET {url} failed: {exc}") from None
    if not isinstance(body, dict) or not body:
        raise click.ClickException(f"{url} holds no credentials (a server started with --no-demo?)")
    return body
