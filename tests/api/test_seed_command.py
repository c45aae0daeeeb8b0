"""`roost seed`: the same seed gives the same rows, a running server (with its demo data) serves what
was seeded, and bad arguments are one line of error. Small sizes; SQLite, or PostgreSQL with
ROOST_TEST_DATABASE_URL."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from tests.support.server import LiveServer, fresh_database_url

from roost.storage import schema
from roost.storage.db import open_database

TABLES = {
    "users": ("id",),
    "follows": ("follower_id", "followee_id"),
    "posts": ("id",),
    "post_mentions": ("post_id", "user_id"),
}
SMALL = ["--users", "40", "--posts", "300", "--follows", "4"]


def _seed(*arguments: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ROOST_DATA_DIR": os.environ.get("ROOST_DATA_DIR", "/nonexistent-roost-dir")}
    return subprocess.run(
        [sys.executable, "-m", "roost", "seed", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def _rows(url: str) -> dict[str, list[dict[str, Any]]]:
    async def read() -> dict[str, list[dict[str, Any]]]:
        db = await open_database(url)
        try:
            out = {}
            for name, order in TABLES.items():
                table = schema.metadata.tables[name]
                statement = select(table).order_by(*(table.c[column] for column in order))
                out[name] = [dict(row) for row in await db.fetch_all(statement)]
            return out
        finally:
            await db.close()

    return asyncio.run(read())


def test_the_same_seed_gives_the_same_rows() -> None:
    urls = [fresh_database_url("seed") for _ in range(3)]
    for url, seed in zip(urls, ("7", "7", "8"), strict=True):
        done = _seed(*SMALL, "--seed", seed, "--db", url)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("seeded 40 users,"), done.stdout
    first, second, other = (_rows(url) for url in urls)
    assert len(first["users"]) == 40 and len(first["posts"]) == 300
    assert 40 * 2 <= len(first["follows"]) <= 40 * 6  # about 4 each
    assert first == second
    assert first["posts"] != other["posts"] and first["follows"] != other["follows"]
    # The follower counts are the follow rows' counts.
    followers: dict[int, int] = {}
    for edge in first["follows"]:
        followers[edge["followee_id"]] = followers.get(edge["followee_id"], 0) + 1
    assert {user["id"]: user["followers_count"] for user in first["users"]} == {
        user["id"]: followers.get(user["id"], 0) for user in first["users"]
    }


def test_a_running_server_with_its_demo_data_serves_the_seeded_data() -> None:
    live = LiveServer(tag="seed_serve", rate_limits=False).start()
    try:
        credentials = httpx.get(live.base_url + "/_roost/credentials", timeout=30).json()
        bearer = {"Authorization": f"Bearer {credentials['bearer_token']}"}
        done = _seed(*SMALL, "--seed", "3", "--db", live.settings.db_url)
        assert done.returncode == 0, done.stderr
        rows = _rows(live.settings.db_url)
        seeded = {user["id"] for user in rows["users"]}
        popular = max(rows["users"], key=lambda user: user["followers_count"])
        with httpx.Client(base_url=live.base_url, headers=bearer, timeout=30) as http:
            user = http.get(
                f"/2/users/by/username/{popular['username']}", params={"user.fields": "public_metrics"}
            )
            assert user.status_code == 200, user.text
            metrics = user.json()["data"]["public_metrics"]
            assert metrics["followers_count"] == popular["followers_count"] > 0
            followers = http.get(f"/2/users/{popular['id']}/followers", params={"max_results": 1000})
            listed = {int(item["id"]) for item in followers.json()["data"]}
            assert listed <= seeded and len(listed) == popular["followers_count"]
            post = next(row for row in rows["posts"] if row["in_reply_to_post_id"] is not None)
            answer = http.get(f"/2/tweets/{post['id']}", params={"tweet.fields": "referenced_tweets"})
            assert answer.status_code == 200, answer.text
            assert answer.json()["data"]["referenced_tweets"][0]["type"] == "replied_to"
            # The demo data is still there.
            demo = http.get(f"/2/users/by/username/{credentials['username']}")
            assert demo.json()["data"]["id"] == credentials["user_id"]
        again = _seed(*SMALL, "--seed", "4", "--db", live.settings.db_url)
        assert again.returncode == 1
        assert again.stderr.strip().count("\n") == 0 and "seeded already" in again.stderr
    finally:
        live.stop()


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--users", "0"], "--users"),
        (["--posts", "-3"], "--posts"),
        (["--follows", "many"], "--follows"),
        (["--seed", "x"], "--seed"),
        (["--colour", "blue"], "--colour"),
        (["--db", "mysql://localhost/x"], "unsupported database URL"),
    ],
)
def test_bad_arguments_are_one_line_of_error(arguments: list[str], says: str) -> None:
    done = _seed(*arguments)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and says in lines[0], done.stderr
    assert done.stdout == ""


def test_help_shows_an_example() -> None:
    done = _seed("--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())  # click wraps the option help
    assert "roost seed --users 10000 --posts 100000" in text
    for example in ("e.g. --users 10000", "e.g. --posts 100000", "e.g. --follows 50", "e.g. --seed 42"):
        assert example in text
