"""`POST /_roost/import` keeps the data sane: entities from the text, no ids from the future, likes and
follows with consistent counters, idempotent re-imports, and export → reset → import adding nothing.
A server of this module's own (it resets)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from tests.support.server import LiveServer

from roost.core.ids import PLATFORM_EPOCH_MS


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    server = LiveServer(tag="import", rate_limits=False).start()
    with httpx.Client(base_url=server.base_url, timeout=60) as client:
        yield client
    server.stop()


@pytest.fixture(scope="module")
def bearer(http: httpx.Client) -> dict[str, str]:
    return {"Authorization": f"Bearer {http.get('/_roost/credentials').json()['bearer_token']}"}


_serial = [0]


def _id(seconds_ago: float = 60) -> str:
    """A snowflake made `seconds_ago` before now (unique within the module)."""
    _serial[0] += 1
    millis = int(time.time() * 1000 - seconds_ago * 1000) - PLATFORM_EPOCH_MS
    return str((millis << 22) | (7 << 12) | _serial[0])


def _import(http: httpx.Client, payload: dict[str, Any]) -> dict[str, int]:
    response = http.post("/_roost/import", json=payload)
    assert response.status_code == 200, response.text
    imported: dict[str, int] = response.json()["imported"]
    return imported


def _user(name: str, **fields: Any) -> dict[str, Any]:
    return {"id": _id(3600), "username": name, "name": name, **fields}


def test_entities_come_from_the_text_when_the_post_has_none(
    http: httpx.Client, bearer: dict[str, str]
) -> None:
    author, friend = _user("imp_author"), _user("imp_friend")
    post = {"id": _id(), "author_id": author["id"], "text": "fresh #imptag for @imp_friend $IMPX"}
    assert _import(http, {"users": [author, friend], "tweets": [post]})["tweets"] == 1
    read = http.get(f"/2/tweets/{post['id']}", params={"tweet.fields": "entities"}, headers=bearer).json()
    entities = read["data"]["entities"]
    assert [h["tag"] for h in entities["hashtags"]] == ["imptag"]
    assert [(m["username"], m["id"]) for m in entities["mentions"]] == [("imp_friend", friend["id"])]
    assert [c["tag"] for c in entities["cashtags"]] == ["IMPX"]
    found = http.get(f"/2/tweets/search/recent?query={quote('#imptag')}", headers=bearer).json()
    assert [p["id"] for p in found["data"]] == [post["id"]]
    mentioned = http.get(f"/2/users/{friend['id']}/mentions", headers=bearer).json()
    assert [p["id"] for p in mentioned["data"]] == [post["id"]]


def test_ids_from_the_future_are_refused_and_nothing_is_added(http: httpx.Client) -> None:
    author = _user("imp_future")
    future = {"id": _id(-86_400), "author_id": author["id"], "text": "from tomorrow"}
    refused = http.post("/_roost/import", json={"users": [author], "tweets": [future]})
    assert refused.status_code == 400
    assert "clock" in refused.text
    assert http.get("/2/users/by/username/imp_future", headers=_bearer(http)).json().get("data") is None
    # Once the clock has passed it, the same payload is welcome.
    http.post("/_roost/clock", json={"advance_seconds": 2 * 86_400})
    try:
        assert _import(http, {"users": [author], "tweets": [future]}) == {"users": 1, "tweets": 1, "media": 0}
    finally:
        http.post("/_roost/clock", json={"advance_seconds": -2 * 86_400})


def _user_token(http: httpx.Client) -> dict[str, str]:
    return {"Authorization": f"Bearer {http.get('/_roost/credentials').json()['oauth2_user_token']}"}


def _bearer(http: httpx.Client) -> dict[str, str]:
    return {"Authorization": f"Bearer {http.get('/_roost/credentials').json()['bearer_token']}"}


def test_likes_and_follows_import_with_consistent_counts(http: httpx.Client, bearer: dict[str, str]) -> None:
    fan, idol = _user("imp_fan"), _user("imp_idol")
    post = {"id": _id(), "author_id": idol["id"], "text": "like me"}
    payload = {
        "users": [fan, idol],
        "tweets": [post],
        "likes": [{"user_id": fan["id"], "tweet_id": post["id"]}],
        "follows": [{"source_user_id": fan["id"], "target_user_id": idol["id"]}],
    }
    counts = _import(http, payload)
    assert (counts["likes"], counts["follows"]) == (1, 1)
    read = http.get(f"/2/tweets/{post['id']}", params={"tweet.fields": "public_metrics"}, headers=bearer)
    assert read.json()["data"]["public_metrics"]["like_count"] == 1
    liking = http.get(f"/2/tweets/{post['id']}/liking_users", headers=_user_token(http)).json()
    assert [u["id"] for u in liking["data"]] == [fan["id"]]
    followers = http.get(f"/2/users/{idol['id']}/followers", headers=bearer).json()
    assert [u["id"] for u in followers["data"]] == [fan["id"]]
    metrics = http.get(f"/2/users/{idol['id']}", params={"user.fields": "public_metrics"}, headers=bearer)
    assert metrics.json()["data"]["public_metrics"]["followers_count"] == 1
    # The same payload again adds nothing and counts nothing twice.
    again = _import(http, payload)
    assert all(value == 0 for value in again.values()), again
    read = http.get(f"/2/tweets/{post['id']}", params={"tweet.fields": "public_metrics"}, headers=bearer)
    assert read.json()["data"]["public_metrics"]["like_count"] == 1


def test_a_captured_posts_stated_metrics_are_kept(http: httpx.Client, bearer: dict[str, str]) -> None:
    fan, star = _user("imp_fan2"), _user("imp_star")
    post = {"id": _id(), "author_id": star["id"], "text": "famous", "public_metrics": {"like_count": 500}}
    _import(
        http,
        {"users": [fan, star], "tweets": [post], "likes": [{"user_id": fan["id"], "tweet_id": post["id"]}]},
    )
    read = http.get(f"/2/tweets/{post['id']}", params={"tweet.fields": "public_metrics"}, headers=bearer)
    assert read.json()["data"]["public_metrics"]["like_count"] == 500


def test_export_reset_import_adds_nothing(http: httpx.Client) -> None:
    http.post("/_roost/reset")
    exported = http.get("/_roost/export").json()
    assert exported["likes"] is not None and exported["follows"]
    http.post("/_roost/reset")
    counts = _import(http, exported)
    assert counts["tweets"] == 0 and counts["users"] == 0 and counts["follows"] == 0, counts
    assert counts["bookmarks"] == 0, counts
    assert len(http.get("/_roost/export").json()["tweets"]) == len(exported["tweets"])
    again = _import(http, exported)
    assert all(value == 0 for value in again.values()), again
