"""The pytest plugin (`roost.testing`, entry point `pytest11: roost`), as a user's project meets it.

Each test writes a small project to a temporary directory and runs pytest on it in a subprocess,
with nothing but the installed entry point to find the plugin: fixtures, the redirect of the public
hosts for tweepy, requests, httpx, aiohttp and urllib, its undoing, and a server per xdist worker.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

# The user's project: reset, clock, redirect through each HTTP library, and the state after a test.
EXAMPLE_TESTS = """
import asyncio
import json
import os
import sys
import urllib.request

import aiohttp
import httpx
import pytest
import requests
import tweepy

REPORT = os.environ["EXAMPLE_REPORT"]
created = {}


def oauth2_user(roost):
    return {"Authorization": "Bearer " + roost.credentials["oauth2_user_token"]}


def test_roost_gives_a_seeded_server_and_its_credentials(roost):
    assert roost.url.startswith("http://127.0.0.1:")
    assert roost.credentials["username"] == "roost_dev"
    answer = httpx.get(roost.url + "/2/users/me", headers=oauth2_user(roost))
    assert answer.status_code == 200, answer.text
    assert answer.json()["data"]["username"] == "roost_dev"
    with open(REPORT, "a") as report:
        report.write(json.dumps({"db_url": roost.settings.db_url}) + "\\n")


def test_advance_moves_the_server_clock(roost_server):
    before = roost_server.control("GET", "/_roost/clock")["now"]
    after = roost_server.advance(3 * 86400)["now"]
    assert after[:10] > before[:10]


def test_tweepy_reaches_roost_through_the_public_host(roost, roost_redirect):
    assert roost_redirect is roost
    creds = roost.credentials
    client = tweepy.Client(
        consumer_key=creds["consumer_key"],
        consumer_secret=creds["consumer_secret"],
        access_token=creds["access_token"],
        access_token_secret=creds["access_token_secret"],
    )
    me = client.get_me()  # OAuth 1.0a, signed over https://api.twitter.com/2/users/me
    assert me.data.username == "roost_dev"
    posted = client.create_tweet(text="made in a test")
    created["id"] = posted.data["id"]
    bearer = tweepy.Client(bearer_token=creds["bearer_token"])
    assert bearer.get_tweet(created["id"]).data.text == "made in a test"


def test_reset_before_each_test_removes_what_the_last_one_made(roost):
    answer = httpx.get(
        roost.url + "/2/tweets/" + created["id"],
        headers={"Authorization": "Bearer " + roost.credentials["bearer_token"]},
    )
    assert "data" not in answer.json()


@pytest.mark.usefixtures("roost_redirect")
def test_each_http_library_is_redirected(roost_server):
    headers = oauth2_user(roost_server)
    answer = requests.get("https://api.x.com/2/users/me", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.url == "https://api.x.com/2/users/me"
    assert answer.json()["data"]["username"] == "roost_dev"

    assert httpx.get("https://api.twitter.com/2/users/me", headers=headers).status_code == 200

    request = urllib.request.Request("https://api.x.com/2/users/me", headers=headers)
    with urllib.request.urlopen(request) as opened:
        assert opened.url == "https://api.x.com/2/users/me"
        assert json.load(opened)["data"]["username"] == "roost_dev"

    async def both_async():
        async with httpx.AsyncClient() as client:
            first = await client.get("https://api.x.com/2/users/me", headers=headers)
        async with aiohttp.ClientSession() as session:
            async with session.get("https://api.twitter.com/2/users/me", headers=headers) as second:
                return first.status_code, second.status, str(second.url)

    assert asyncio.run(both_async()) == (200, 200, "https://api.twitter.com/2/users/me")


def test_the_redirect_is_undone_after_its_test(roost_server):
    assert not hasattr(requests.adapters.HTTPAdapter.send, "__roost_redirect__")
    assert not hasattr(httpx.HTTPTransport.handle_request, "__roost_redirect__")
    assert not hasattr(aiohttp.ClientSession._request, "__roost_redirect__")
    assert not hasattr(urllib.request.AbstractHTTPHandler.do_open, "__roost_redirect__")
    assert not any(type(finder).__name__ == "PostImportFinder" for finder in sys.meta_path)
"""

# Reports what the session left running, once its fixtures are torn down.
EXAMPLE_CONFTEST = """
import json
import os
import threading


def pytest_sessionfinish(session):
    left = [thread.name for thread in threading.enumerate() if thread.name.startswith("roost-")]
    with open(os.environ["EXAMPLE_REPORT"], "a") as report:
        report.write(json.dumps({"threads_left": left}) + "\\n")
"""

# Two tests for two xdist workers: each notes which server it saw.
XDIST_TESTS = """
import json
import os

import requests


def note(roost_server):
    with open(os.environ["EXAMPLE_REPORT"], "a") as report:
        report.write(json.dumps({"worker": os.environ["PYTEST_XDIST_WORKER"], "url": roost_server.url,
                                 "db_url": roost_server.settings.db_url}) + "\\n")


def test_one(roost, roost_redirect):
    headers = {"Authorization": "Bearer " + roost.credentials["oauth2_user_token"]}
    assert requests.get("https://api.x.com/2/users/me", headers=headers).status_code == 200
    note(roost)


def test_two(roost, roost_redirect):
    headers = {"Authorization": "Bearer " + roost.credentials["oauth2_user_token"]}
    assert requests.get("https://api.twitter.com/2/users/me", headers=headers).status_code == 200
    note(roost)
"""


def run_example(project: Path, tests: str, *args: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    """Run pytest on a project holding `tests`, as its own user would; returns the run and its report."""
    project.mkdir(parents=True, exist_ok=True)
    (project / "pytest.ini").write_text("[pytest]\n")  # the project's own root: no config from above
    (project / "conftest.py").write_text(textwrap.dedent(EXAMPLE_CONFTEST))
    (project / "test_example.py").write_text(textwrap.dedent(tests))
    report = project / "report.jsonl"
    env = {
        name: value
        for name, value in os.environ.items()
        # Nothing of this run's pytest, xdist worker or redirect may leak into the user's run.
        if not name.startswith(("PYTEST_", "ROOST_")) and not name.lower().endswith("_proxy")
    }
    env["EXAMPLE_REPORT"] = str(report)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = report.read_text().splitlines() if report.exists() else []
    return run, [json.loads(line) for line in lines]


def test_a_project_uses_the_fixtures_found_through_the_entry_point(tmp_path: Path) -> None:
    run, report = run_example(tmp_path / "project", EXAMPLE_TESTS)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "6 passed" in run.stdout
    [database, finished] = report
    assert finished == {"threads_left": []}
    # The temporary SQLite database went with the server.
    assert not Path(database["db_url"].removeprefix("sqlite:///")).parent.exists()


def test_each_xdist_worker_has_its_own_server(tmp_path: Path) -> None:
    run, report = run_example(tmp_path / "project", XDIST_TESTS, "-p", "xdist", "-n", "2")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout
    seen = [line for line in report if "worker" in line]
    assert sorted(line["worker"] for line in seen) == ["gw0", "gw1"]
    assert len({line["url"] for line in seen}) == 2
    assert len({line["db_url"] for line in seen}) == 2
    # Each worker's session and the controller's.
    assert [line for line in report if "threads_left" in line] == [{"threads_left": []}] * 3
