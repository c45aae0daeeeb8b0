"""GET /2/users/{id}/tweets and /2/users/{id}/mentions: pages, tokens, bounds, exclusions, validation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.api.helpers import (
    create_ok,
    delete_as,
    import_objects,
    import_user,
    invalid_request,
    new_user,
    next_import_id,
)
from tests.support.client import Api
from tests.support.server import LiveServer

HOUR = "2021-01-01T{:02d}:00:00.000Z"


def _page(api: Api, user_id: str, kind: str = "tweets", **params: Any) -> dict[str, Any]:
    response = api.get(f"/2/users/{user_id}/{kind}", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _ids(body: dict[str, Any]) -> list[str]:
    return [post["id"] for post in body.get("data", [])]


@pytest.fixture(scope="module")
def history(server: LiveServer, credentials: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """An imported author with six posts an hour apart (ids ascending): plain, reply, retweet, ..."""
    api = Api(server.base_url, credentials)
    author = import_user(api)
    base = int(next_import_id())
    for _ in range(10):
        next_import_id()
    target = str(base)
    kinds = [None, "replied_to", "retweeted", None, "replied_to", None]
    posts = [
        {"id": target, "author_id": author["id"], "text": "target", "created_at": "2020-01-01T00:00:00Z"}
    ]
    for hour, kind in enumerate(kinds):
        post: dict[str, Any] = {
            "id": str(base + hour + 1),
            "author_id": author["id"],
            "text": f"hour {hour}",
            "created_at": HOUR.format(hour),
        }
        if kind is not None:
            post["referenced_tweets"] = [{"type": kind, "id": target}]
        posts.append(post)
    import_objects(api, {"tweets": posts})
    ids = [str(base + hour + 1) for hour in range(len(kinds))]
    yield {"author": author, "ids": ids, "kinds": kinds, "target": target}
    api.close()


def test_paging_through_the_demo_timeline(api: Api, credentials: dict[str, Any]) -> None:
    user_id = credentials["user_id"]
    expected = _ids(_page(api, user_id, max_results=100))
    seen: list[str] = []
    pages: list[dict[str, Any]] = []
    token: str | None = None
    while True:
        params: dict[str, Any] = {"max_results": 5}
        if token is not None:
            params["pagination_token"] = token
        body = _page(api, user_id, **params)
        pages.append(body)
        assert body["meta"]["result_count"] == len(body["data"]) <= 5
        assert body["meta"]["newest_id"] == body["data"][0]["id"]
        assert body["meta"]["oldest_id"] == body["data"][-1]["id"]
        assert ("previous_token" in body["meta"]) == (token is not None)
        seen.extend(_ids(body))
        token = body["meta"].get("next_token")
        if token is None:
            break
    assert len(seen) == len(set(seen)) > 10
    assert seen == sorted(seen, key=int, reverse=True)
    assert seen[: len(expected)] == expected[: len(seen)]
    assert len(pages) == -(-len(seen) // 5)
    back = _page(api, user_id, max_results=5, pagination_token=pages[1]["meta"]["previous_token"])
    assert _ids(back) == _ids(pages[0])
    assert back["meta"]["next_token"]
    assert _ids(_page(api, user_id, max_results=5, pagination_token=back["meta"]["next_token"])) == _ids(
        pages[1]
    )


def test_default_page_size_is_ten(api: Api, credentials: dict[str, Any]) -> None:
    body = _page(api, credentials["user_id"])
    assert body["meta"]["result_count"] == 10 == len(body["data"])
    assert set(body["data"][0]) == {"id", "text", "edit_history_tweet_ids"}


def test_id_bounds(api: Api, history: dict[str, Any]) -> None:
    ids, author = history["ids"], history["author"]["id"]
    assert _ids(_page(api, author, since_id=ids[3])) == ids[:3:-1]
    assert _ids(_page(api, author, until_id=ids[2])) == [ids[1], ids[0], history["target"]]
    assert _ids(_page(api, author, since_id=ids[0], until_id=ids[4])) == [ids[3], ids[2], ids[1]]


def test_time_bounds(api: Api, history: dict[str, Any]) -> None:
    ids, author = history["ids"], history["author"]["id"]
    body = _page(api, author, start_time="2021-01-01T02:00:00Z", end_time="2021-01-01T04:00:00Z")
    assert _ids(body) == [ids[3], ids[2]]
    assert _ids(_page(api, author, start_time="2021-01-01T05:00:00Z")) == [ids[5]]
    assert _ids(_page(api, author, end_time="2021-01-01T00:00:00Z")) == [history["target"]]
    empty = _page(api, author, start_time="2030-01-01T00:00:00Z")
    assert empty == {"meta": {"result_count": 0}}


def test_id_bounds_take_precedence_over_time_bounds(api: Api, history: dict[str, Any]) -> None:
    ids, author = history["ids"], history["author"]["id"]
    late, early = "2030-01-01T00:00:00Z", "2011-01-01T00:00:00Z"
    assert _ids(_page(api, author, since_id=ids[3], start_time=late)) == ids[:3:-1]
    assert _ids(_page(api, author, until_id=ids[2], end_time=early)) == [ids[1], ids[0], history["target"]]
    # Each id bound replaces only the time bound on its own side.
    body = _page(api, author, since_id=ids[0], end_time="2021-01-01T03:00:00Z")
    assert _ids(body) == [ids[2], ids[1]]


@pytest.mark.parametrize("name", ["start_time", "end_time"])
def test_times_before_the_timeline_epoch_are_refused(api: Api, history: dict[str, Any], name: str) -> None:
    response = api.get(f"/2/users/{history['author']['id']}/tweets", params={name: "2009-01-01T00:00:00Z"})
    assert response.status_code == 400
    message = f"Invalid '{name}':'2009-01-01T00:00Z'. '{name}' must be on or after 2010-11-06T00:00Z"
    assert response.json() == invalid_request(
        {"parameters": {name: ["2009-01-01T00:00:00Z"]}, "message": message}
    )


def test_exclude_replies_and_retweets(api: Api, history: dict[str, Any]) -> None:
    ids, kinds, author = history["ids"], history["kinds"], history["author"]["id"]
    since = {"since_id": str(int(ids[0]) - 1)}

    def without(*excluded: str | None) -> list[str]:
        return [i for i, k in zip(ids, kinds, strict=True) if k not in excluded][::-1]

    assert _ids(_page(api, author, **since)) == without()
    assert _ids(_page(api, author, exclude="replies", **since)) == without("replied_to")
    assert _ids(_page(api, author, exclude="retweets", **since)) == without("retweeted")
    assert _ids(_page(api, author, exclude="replies,retweets", **since)) == without("replied_to", "retweeted")
    bad = api.get(f"/2/users/{author}/tweets", params={"exclude": "likes"})
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["message"] == (
        "The `exclude` query parameter value [likes] is not one of [replies,retweets]"
    )


def test_expansions_on_a_timeline(api: Api, history: dict[str, Any]) -> None:
    body = _page(api, history["author"]["id"], expansions="author_id,referenced_tweets.id", max_results=5)
    assert [u["id"] for u in body["includes"]["users"]] == [history["author"]["id"]]
    assert [t["id"] for t in body["includes"]["tweets"]] == [history["target"]]


@pytest.mark.parametrize("value", ["4", "101", "0"])
def test_max_results_bounds(api: Api, credentials: dict[str, Any], value: str) -> None:
    for kind in ("tweets", "mentions"):
        response = api.get(f"/2/users/{credentials['user_id']}/{kind}", params={"max_results": value})
        assert response.status_code == 400
        assert response.json() == invalid_request(
            {
                "parameters": {"max_results": [value]},
                "message": f"The `max_results` query parameter value [{value}] is not between 5 and 100",
            }
        )


@pytest.mark.parametrize("token", ["zzzz", "not-a-token", "0", "1" * 60])
def test_bad_pagination_token(api: Api, credentials: dict[str, Any], token: str) -> None:
    response = api.get(f"/2/users/{credentials['user_id']}/tweets", params={"pagination_token": token})
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {
            "parameters": {"pagination_token": [token]},
            "message": f"The `pagination_token` query parameter value [{token}] is not a valid token",
        }
    )


def test_token_of_another_list_is_refused(api: Api, credentials: dict[str, Any]) -> None:
    user_id = credentials["user_id"]
    token = _page(api, user_id, max_results=5)["meta"]["next_token"]
    response = api.get(f"/2/users/{user_id}/mentions", params={"pagination_token": token})
    assert response.status_code == 400
    assert "is not a valid token" in response.json()["errors"][0]["message"]


def test_mentions_timeline(api: Api, make_user: Any) -> None:
    mentioned, author = make_user(), make_user()
    assert _page(api, mentioned["id"], "mentions") == {"meta": {"result_count": 0}}
    first = create_ok(api, author, text=f"hello @{mentioned['username']} one")
    create_ok(api, author, text="no mention here")
    second = create_ok(api, mentioned, text=f"@{mentioned['username'].upper()} talking to myself")
    body = _page(api, mentioned["id"], "mentions", expansions="author_id")
    assert _ids(body) == [second["id"], first["id"]]
    assert {u["id"] for u in body["includes"]["users"]} == {mentioned["id"], author["id"]}
    assert body["meta"] == {"result_count": 2, "newest_id": second["id"], "oldest_id": first["id"]}
    assert delete_as(api, author, first["id"]).status_code == 200
    assert _ids(_page(api, mentioned["id"], "mentions")) == [second["id"]]


def test_empty_timeline_has_no_data_key(api: Api, server: LiveServer, credentials: dict[str, Any]) -> None:
    user = new_user(api)
    for kind in ("tweets", "mentions"):
        assert _page(api, user["id"], kind) == {"meta": {"result_count": 0}}


def test_timeline_with_user_auth(api: Api, credentials: dict[str, Any]) -> None:
    for auth in ("oauth1", "oauth2"):
        response = api.get(f"/2/users/{credentials['user_id']}/tweets", auth=auth, params={"max_results": 5})
        assert response.status_code == 200
        assert response.json()["meta"]["result_count"] == 5
