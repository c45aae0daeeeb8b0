"""Search and counts with real clients: tweepy (`search_recent_tweets`, `search_all_tweets` through
`Paginator`, `get_recent_tweets_count`) and twarc 2 (`search_recent`, `counts_recent`) as programs
under the `roost run` redirect, and xdk in-process through its `base_url`."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from tests.api.helpers import import_objects, import_user, next_import_id
from tests.clients.helpers import run_redirected_script
from tests.support.client import Api
from tests.support.server import LiveServer
from xdk import Client

pytestmark = pytest.mark.clients

COUNT = 23


@pytest.fixture(scope="module")
def posted(server: LiveServer, credentials: dict[str, Any]) -> tuple[str, list[str]]:
    """23 imported posts with one unique word, an hour to a day old (outside the 30 s search lag)."""
    api = Api(server.base_url, credentials)
    now = datetime.fromisoformat(
        httpx.get(server.base_url + "/_roost/clock").json()["now"].replace("Z", "+00:00")
    )
    user = import_user(api)
    word = "s" + uuid.uuid4().hex[:10]
    posts = []
    for index in range(COUNT):
        created = now - timedelta(hours=24 - index)
        posts.append(
            {
                "id": next_import_id(),
                "author_id": user["id"],
                "text": f"client search {word} {index}",
                "created_at": created.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        )
    import_objects(api, {"tweets": posts})
    api.close()
    return word, [p["id"] for p in reversed(posts)]


def test_tweepy_and_twarc(
    server: LiveServer, credentials: dict[str, Any], posted: tuple[str, list[str]]
) -> None:
    word, newest_first = posted
    result = run_redirected_script(server.base_url, "search_probe.py", credentials["bearer_token"], word)
    expected = [newest_first[0:10], newest_first[10:20], newest_first[20:]]
    assert result["tweepy_recent"] == [[int(i) for i in page] for page in expected]
    assert [meta["result_count"] for meta in result["tweepy_recent_meta"]] == [10, 10, 3]
    assert result["tweepy_all"] == result["tweepy_recent"]
    assert result["tweepy_counts"]["total"] == COUNT
    assert result["twarc_recent"] == expected
    assert sum(result["twarc_counts"]) == COUNT


def _get(item: Any, name: str) -> Any:
    """xdk gives pydantic models, or plain dicts for nested items it does not model."""
    return item[name] if isinstance(item, dict) else getattr(item, name)


def test_xdk_search_pages_and_counts(
    server: LiveServer, credentials: dict[str, Any], posted: tuple[str, list[str]]
) -> None:
    word, newest_first = posted
    client = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    try:
        seen: list[str] = []
        pages = 0
        for page in client.posts.search_recent(query=word, max_results=10):
            pages += 1
            seen += [_get(post, "id") for post in page.data or []]
        assert pages == 3 and seen == newest_first
        total = 0
        # xdk's models hold the post names, which a request asks for by naming `post_count`.
        counted = client.posts.get_counts_recent(
            query=word, granularity="day", search_count_fields="start,end,post_count"
        )
        for page in counted:
            total += sum(_get(item, "post_count") for item in page.data or [])
            assert _get(page.meta, "total_post_count") == COUNT
        assert total == COUNT
    finally:
        client.session.close()
