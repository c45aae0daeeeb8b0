"""Post analytics: the caller's own posts' likes, unlikes, reposts, replies, quotes and bookmarks as
they happened, and the impressions and engagements the control plane adds, per bucket."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from tests.api.helpers import PROBLEMS, User, bearer, create_ok, new_user
from tests.conformance.oracle import assert_conforms
from tests.support.client import Api

PATH = "/2/tweets/analytics"


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def window() -> dict[str, str]:
    now = datetime.now(UTC)
    return {"start_time": stamp(now - timedelta(hours=2)), "end_time": stamp(now + timedelta(hours=2))}


def analytics(api: Api, user: User, ids: list[str], **params: str) -> httpx.Response:
    query = {"ids": ",".join(ids), **window(), **params}
    return api.get(PATH, auth="none", headers=bearer(user), params=query, conform=False)


def checked(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    # 2.159 nests the list in a second `data`; roost answers 2.167's flat list.
    assert_conforms("GET", PATH, 200, body, "post")
    return body


def test_metrics_follow_what_happened_and_what_the_control_plane_adds(api: Api) -> None:
    author, fan = new_user(api), new_user(api)
    post = create_ok(api, author)
    assert (
        api.post(
            f"/2/users/{fan['id']}/likes", auth="none", headers=bearer(fan), json={"tweet_id": post["id"]}
        ).status_code
        == 200
    )
    create_ok(api, fan, reply={"in_reply_to_tweet_id": post["id"]})
    create_ok(api, fan, quote_tweet_id=post["id"])
    added = api.http.post(
        f"/_roost/tweets/{post['id']}/metrics", json={"impressions": 120, "url_clicks": 3, "engagements": 2}
    )
    assert added.status_code == 201, added.text

    fields = "id,impressions,likes,replies,quote_tweets,url_clicks,engagements"
    body = checked(analytics(api, author, [post["id"]], **{"analytics.fields": fields}))
    [item] = body["data"]
    assert {key: value for key, value in item.items() if key != "timestamped_metrics"} == {
        "id": post["id"],
        "impressions": 120,
        "likes": 1,
        "replies": 1,
        "quote_tweets": 1,
        "url_clicks": 3,
        "engagements": 1 + 1 + 1 + 3 + 2,
    }
    [bucket] = item["timestamped_metrics"]
    assert bucket["metrics"]["impressions"] == 120
    assert set(bucket["metrics"]) == {
        "impressions",
        "likes",
        "replies",
        "quote_tweets",
        "url_clicks",
        "engagements",
    }
    # The impressions also show in the post's public metrics.
    shown = api.get(f"/2/tweets/{post['id']}", params={"tweet.fields": "public_metrics"}).json()
    assert shown["data"]["public_metrics"]["impression_count"] == 120

    # An unlike is counted as such; the like stays counted where it happened.
    api.delete(f"/2/users/{fan['id']}/likes/{post['id']}", auth="none", headers=bearer(fan))
    again = checked(analytics(api, author, [post["id"]], **{"analytics.fields": "likes,unlikes"}))["data"][0]
    assert (again["likes"], again["unlikes"]) == (1, 1)


def test_hourly_buckets_cover_the_window(api: Api) -> None:
    author = new_user(api)
    post = create_ok(api, author)
    api.http.post(f"/_roost/tweets/{post['id']}/metrics", json={"impressions": 7})
    body = checked(analytics(api, author, [post["id"]], granularity="hourly"))
    buckets = body["data"][0]["timestamped_metrics"]
    assert len(buckets) in (4, 5)  # two hours either side, aligned to the hour
    assert sum(bucket["metrics"]["impressions"] for bucket in buckets) == 7
    assert all(bucket["timestamp"].endswith(":00:00Z") for bucket in buckets)
    assert len(buckets[0]["metrics"]) == 20


def test_only_the_author_sees_a_posts_analytics(api: Api) -> None:
    author, other = new_user(api), new_user(api)
    post = create_ok(api, author)
    body = checked(analytics(api, other, [post["id"], "1"]))
    assert body == {
        "errors": [
            {
                "value": post["id"],
                "detail": f"Sorry, you are not authorized to see the tweet with ids: [{post['id']}].",
                "title": "Authorization Error",
                "resource_type": "tweet",
                "parameter": "ids",
                "resource_id": post["id"],
                "section": "data",
                "type": PROBLEMS + "not-authorized-for-resource",
            },
            {
                "value": "1",
                "detail": "Could not find tweet with ids: [1].",
                "title": "Not Found Error",
                "resource_type": "tweet",
                "parameter": "ids",
                "resource_id": "1",
                "type": PROBLEMS + "resource-not-found",
            },
        ]
    }


def test_parameters_and_control_plane_input_are_checked(api: Api) -> None:
    author = new_user(api)
    post = create_ok(api, author)
    missing = api.get(PATH, auth="none", headers=bearer(author), params={"ids": post["id"]})
    assert missing.status_code == 400
    backwards = analytics(
        api, author, [post["id"]], start_time="2026-01-02T00:00:00Z", end_time="2026-01-01T00:00:00Z"
    )
    assert backwards.status_code == 400
    assert analytics(api, author, [post["id"]], granularity="monthly").status_code == 400
    assert api.get(PATH, params={"ids": post["id"], **window()}).status_code == 403
    refused = api.http.post(f"/_roost/tweets/{post['id']}/metrics", json={"likes": 3})
    assert refused.status_code == 400
    assert api.http.post(f"/_roost/tweets/{post['id']}/metrics", json={"impressions": -1}).status_code == 400


def test_too_many_buckets_are_refused(api: Api) -> None:
    author = new_user(api)
    post = create_ok(api, author)
    query = {
        "start_time": "2000-01-01T00:00:00Z",
        "end_time": "2026-01-01T00:00:00Z",
        "granularity": "hourly",
    }
    response = analytics(api, author, [post["id"]], **query)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameters": {"granularity": ["hourly"]}, "message": "At most 2000 buckets per request"}
    ]
    assert analytics(api, author, [post["id"]], **{**query, "granularity": "total"}).status_code == 200
