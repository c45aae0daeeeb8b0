"""GET /2/tweets/counts/recent and /all: buckets aligned to the granularity with partial edges and
zero buckets, totals, counts/all paging by 30 days, window errors, auth (facts §4)."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from tests.api.helpers import PROBLEMS, bearer, import_objects, import_user, new_user, next_import_id
from tests.support.client import Api
from tests.support.server import LiveServer

RECENT = "/2/tweets/counts/recent"
ALL = "/2/tweets/counts/all"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="counts", rate_limits=False, extra={"search_default_end_lag_s": "0"})
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


def now(server: LiveServer) -> datetime:
    text = httpx.get(server.base_url + "/_roost/clock").json()["now"]
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def z(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def zms(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def counts(api: Api, path: str = RECENT, **params: Any) -> dict[str, Any]:
    response = api.get(path, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def posts_at(api: Api, word: str, *moments: datetime) -> None:
    user = import_user(api)
    import_objects(
        api,
        {
            "tweets": [
                {"id": next_import_id(), "author_id": user["id"], "text": f"{word} {i}", "created_at": z(m)}
                for i, m in enumerate(moments)
            ]
        },
    )


def test_hour_buckets_with_partial_edges_and_zeros(api: Api, server: LiveServer) -> None:
    word = "c" + uuid.uuid4().hex[:10]
    base = (now(server) - timedelta(days=2)).replace(minute=0, second=0, microsecond=0)
    posts_at(
        api,
        word,
        base + timedelta(minutes=5),
        base + timedelta(minutes=50),
        base + timedelta(hours=2, minutes=1),
    )
    start, end = base - timedelta(minutes=20, seconds=7), base + timedelta(hours=2, minutes=30)
    body = counts(api, query=word, start_time=z(start), end_time=z(end))
    data = body["data"]
    assert [item["start"] for item in data] == [
        zms(start),
        zms(base),
        zms(base + timedelta(hours=1)),
        zms(base + timedelta(hours=2)),
    ]
    assert [item["end"] for item in data] == [
        zms(base),
        zms(base + timedelta(hours=1)),
        zms(base + timedelta(hours=2)),
        zms(end),
    ]
    assert [item["tweet_count"] for item in data] == [0, 2, 0, 1]
    assert body["meta"]["total_tweet_count"] == 3
    assert "next_token" not in body["meta"]


def test_default_window_and_granularities(api: Api, server: LiveServer) -> None:
    word = "c" + uuid.uuid4().hex[:10]
    moment = now(server) - timedelta(days=3, hours=1)
    posts_at(api, word, moment, moment + timedelta(seconds=30))
    hourly = counts(api, query=word)
    # The default window is the last 7 days to the millisecond: 168 hours, cut at the hour boundaries
    # inside it into 169 buckets (partial at both ends), or 168 if it starts on the hour exactly.
    first = datetime.fromisoformat(hourly["data"][0]["start"].replace("Z", "+00:00"))
    last = datetime.fromisoformat(hourly["data"][-1]["end"].replace("Z", "+00:00"))
    assert last - first == timedelta(days=7)
    on_the_hour = first == first.replace(minute=0, second=0, microsecond=0)
    assert len(hourly["data"]) == (168 if on_the_hour else 169)
    assert hourly["meta"]["total_tweet_count"] == 2
    daily = counts(api, query=word, granularity="day")
    assert len(daily["data"]) == 8
    assert daily["data"][1]["start"].endswith("T00:00:00.000Z")
    assert sum(b["tweet_count"] for b in daily["data"]) == 2
    start = moment.replace(second=0, microsecond=0)
    minutes = counts(
        api, query=word, granularity="minute", start_time=z(start), end_time=z(start + timedelta(minutes=3))
    )
    # The second post is 30 s after the first: in the same minute only if the first is in its first half.
    same_minute = moment.second < 30
    assert [b["tweet_count"] for b in minutes["data"]] == ([2, 0, 0] if same_minute else [1, 1, 0])
    # Tweet names only: the post names are for requests that ask for them (below).
    assert all(set(b) == {"start", "end", "tweet_count"} for b in minutes["data"])
    assert set(minutes["meta"]) == {"total_tweet_count"}


def test_post_names_when_search_count_fields_names_post_count(api: Api, server: LiveServer) -> None:
    word = "c" + uuid.uuid4().hex[:10]
    moment = now(server) - timedelta(hours=5)
    posts_at(api, word, moment, moment + timedelta(seconds=30))
    for fields in ("post_count", "start,end,post_count"):
        body = counts(api, query=word, granularity="day", **{"search_count.fields": fields})
        assert all(set(b) == {"start", "end", "post_count"} for b in body["data"])
        assert sum(b["post_count"] for b in body["data"]) == 2
        assert body["meta"] == {"total_post_count": 2}
    named = counts(api, query=word, granularity="day", **{"search_count.fields": "tweet_count"})
    assert all(set(b) == {"start", "end", "tweet_count"} for b in named["data"])
    assert named["meta"] == {"total_tweet_count": 2}


def test_counts_all_pages_by_thirty_days(api: Api, server: LiveServer) -> None:
    word = "c" + uuid.uuid4().hex[:10]
    end = (now(server) - timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    start = end - timedelta(days=75)
    posts_at(api, word, end - timedelta(days=10), end - timedelta(days=40), end - timedelta(days=70))
    seen: list[dict[str, Any]] = []
    token = None
    pages = 0
    while True:
        params: dict[str, Any] = {
            "query": word,
            "granularity": "day",
            "start_time": z(start),
            "end_time": z(end),
        }
        if token:
            params["next_token"] = token
        body = counts(api, ALL, **params)
        pages += 1
        assert body["meta"]["total_tweet_count"] == sum(b["tweet_count"] for b in body["data"]) == 1
        seen = body["data"] + seen
        token = body["meta"].get("next_token")
        if token is None:
            break
    assert pages == 3
    assert seen[0]["start"] == zms(start) and seen[-1]["end"] == zms(end)
    assert len(seen) == 75
    assert all(a["end"] == b["start"] for a, b in itertools.pairwise(seen))


def test_errors_and_auth(api: Api, server: LiveServer) -> None:
    response = api.get(RECENT, params={"query": "cat", "granularity": "week"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == (
        "The `granularity` query parameter value [week] is not one of [minute,hour,day]"
    )
    response = api.get(RECENT, params={"query": "cat", "end_time": z(now(server))})
    assert "must be a minimum of 10 seconds prior" in response.json()["errors"][0]["message"]
    response = api.get(RECENT, params={"query": "a"})
    assert response.json()["errors"][0]["message"].startswith("There were errors processing your request: ")
    user = new_user(api)
    assert api.get(RECENT, params={"query": "cat"}, auth="none", headers=bearer(user)).status_code == 200
    response = api.get(RECENT, params={"query": "cat"}, auth="oauth1")
    assert response.status_code == 403
    assert response.json()["type"] == PROBLEMS + "unsupported-authentication"
    assert api.get(ALL, params={"query": "cat"}, auth="none", headers=bearer(user)).status_code == 403
