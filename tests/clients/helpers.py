"""Shared helpers for the real-client tests: child programs under `roost run`'s redirect, seed lookups."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from roost.redirect import redirect_env

SCRIPTS = Path(__file__).resolve().parent / "scripts"
CHILD_TIMEOUT = 120


def run_redirected_script(target: str, script: str, *args: str, warnings_as_errors: bool = True) -> Any:
    """Run `scripts/<script>` with this interpreter under the product redirect; return its JSON output.

    The child talks to the platform's public hosts; `redirect_env` (what `roost run` uses) sends the
    traffic to `target` with the original Host header and `X-Forwarded-Proto: https`.
    """
    command = [sys.executable]
    if warnings_as_errors:
        command += ["-W", "error::RuntimeWarning"]
    command += [str(SCRIPTS / script), *args]
    done = subprocess.run(
        command,
        env=redirect_env(target, os.environ),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"{script} exited {done.returncode}\nstderr:\n{done.stderr[-4000:]}"
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(
            f"{script} printed no JSON: {done.stdout[-2000:]!r}\n{done.stderr[-2000:]}"
        ) from exc


@dataclass(frozen=True)
class Seed:
    """Posts and users of the demo dataset the client tests read (never modified by them)."""

    user_id: str
    username: str
    rich_post: dict[str, Any]  # a demo-user post with media and a referenced post
    referenced_id: str
    referenced_author_id: str
    timeline_ids: list[str]  # the demo user's newest posts, newest first
    mention_ids: list[str]  # the demo user's newest mentions, newest first


def load_seed(base_url: str, credentials: dict[str, Any]) -> Seed:
    """Look the seed up through the raw API (tweet vocabulary) with the demo bearer token."""
    headers = {"Authorization": f"Bearer {credentials['bearer_token']}"}
    user_id = credentials["user_id"]
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as http:
        timeline = http.get(
            f"/2/users/{user_id}/tweets",
            params={"max_results": 100, "tweet.fields": "attachments,referenced_tweets,author_id"},
        )
        assert timeline.status_code == 200, timeline.text
        posts = timeline.json()["data"]
        rich: dict[str, Any] | None = None
        referenced: dict[str, Any] = {}
        for post in posts:
            if not (post.get("attachments", {}).get("media_keys") and post.get("referenced_tweets")):
                continue
            # The referenced post must be visible (its author may be protected).
            lookup = http.get(
                f"/2/tweets/{post['referenced_tweets'][0]['id']}", params={"tweet.fields": "author_id"}
            )
            assert lookup.status_code == 200, lookup.text
            if "data" in lookup.json():
                rich, referenced = post, lookup.json()["data"]
                break
        assert rich is not None, (
            "the demo dataset has no post of the demo user with media and a visible reference"
        )
        mentions = http.get(f"/2/users/{user_id}/mentions", params={"max_results": 100})
        assert mentions.status_code == 200, mentions.text
    return Seed(
        user_id=user_id,
        username=credentials["username"],
        rich_post=rich,
        referenced_id=referenced["id"],
        referenced_author_id=referenced["author_id"],
        timeline_ids=[post["id"] for post in posts],
        mention_ids=[post["id"] for post in mentions.json().get("data", [])],
    )


def raw_get(base_url: str, token: str, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A bearer-token GET straight to roost, for the values a client's parsed objects must agree with."""
    response = httpx.get(
        base_url + path, params=params, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert response.status_code == 200, response.text
    return response.json()
