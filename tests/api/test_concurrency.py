"""64 concurrent clients mixing lookups and creates by different users: no 5xx, every write visible."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import httpx
from tests.api.helpers import User, new_user, unique_text
from tests.support.client import Api

CLIENTS = 64
USERS = 16
POSTS_PER_CLIENT = 3


async def _client(api: Api, number: int, user: User, demo_post: str) -> list[tuple[str, str]]:
    """One client's session; returns (author id, post id) for every post it created."""
    created: list[tuple[str, str]] = []
    use_oauth1 = number % 2 == 1

    def auth(method: str, path: str) -> dict[str, str]:
        if use_oauth1:
            return api.oauth1(method, path, token=user["token"], secret=user["secret"])
        return {"Authorization": f"Bearer {user['oauth2']}"}

    async with httpx.AsyncClient(base_url=api.base_url, timeout=60) as http:
        for round_ in range(POSTS_PER_CLIENT):
            text = f"{unique_text(f'client {number} round {round_}')} #load"
            response = await http.post("/2/tweets", json={"text": text}, headers=auth("POST", "/2/tweets"))
            assert response.status_code == 201, response.text
            post_id = response.json()["data"]["id"]
            created.append((user["id"], post_id))
            mine = await http.get(f"/2/tweets/{post_id}", headers=auth("GET", f"/2/tweets/{post_id}"))
            assert mine.status_code == 200, mine.text
            assert mine.json()["data"]["text"] == text
            lookups = [
                http.get(f"/2/tweets?ids={demo_post},{post_id}", headers=api.bearer()),
                http.get(f"/2/users/{user['id']}/tweets?max_results=5", headers=api.bearer()),
                http.get("/2/users/me", headers=auth("GET", "/2/users/me")),
                http.get(f"/2/users/{user['id']}/mentions", headers=api.bearer()),
            ]
            for answer in await asyncio.gather(*lookups):
                assert answer.status_code == 200, answer.text
    return created


async def _run_all(api: Api, users: list[User], demo_post: str) -> list[list[tuple[str, str]]]:
    tasks = [_client(api, number, users[number % USERS], demo_post) for number in range(CLIENTS)]
    return list(await asyncio.gather(*tasks))


def test_concurrent_clients(api: Api, credentials: dict[str, Any]) -> None:
    users = [new_user(api) for _ in range(USERS)]
    demo_post = api.get(f"/2/users/{credentials['user_id']}/tweets").json()["data"][0]["id"]
    results = asyncio.run(_run_all(api, users, demo_post))
    created = [pair for result in results for pair in result]
    assert len(created) == CLIENTS * POSTS_PER_CLIENT
    ids = [post_id for _, post_id in created]
    assert len(set(ids)) == len(ids)
    for start in range(0, len(ids), 100):
        chunk = ids[start : start + 100]
        body = api.get("/2/tweets", params={"ids": ",".join(chunk), "tweet.fields": "author_id"}).json()
        assert "errors" not in body
        assert [post["id"] for post in body["data"]] == chunk
    authors = {post_id: author for author, post_id in created}
    counts = Counter(authors.values())
    for user in users:
        view = api.get(
            f"/2/users/{user['id']}", params={"user.fields": "public_metrics,most_recent_tweet_id"}
        )
        data = view.json()["data"]
        assert (
            data["public_metrics"]["tweet_count"] == counts[user["id"]] == CLIENTS // USERS * POSTS_PER_CLIENT
        )
        assert authors[data["most_recent_tweet_id"]] == user["id"]
        timeline = api.get(f"/2/users/{user['id']}/tweets", params={"max_results": 100}).json()
        assert sorted(post["id"] for post in timeline["data"]) == sorted(
            p for p, a in authors.items() if a == user["id"]
        )
