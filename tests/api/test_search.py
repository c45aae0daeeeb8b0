"""GET /2/tweets/search/recent and /all: matching through the full-text index (accent- and
case-folded), operators, paging with next_token / pagination_token, windows and their errors, the
repost rule, visibility, auth (facts §4, docs/search.md)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.api.helpers import (
    PROBLEMS,
    User,
    bearer,
    create_ok,
    delete_as,
    import_objects,
    import_user,
    new_user,
    next_import_id,
)
from tests.support.client import Api
from tests.support.server import LiveServer

RECENT = "/2/tweets/search/recent"
ALL = "/2/tweets/search/all"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    # No indexing lag by default here, so a post is searchable as soon as it is created.
    live = LiveServer(tag="search", rate_limits=False, extra={"search_default_end_lag_s": "0"})
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture()
def author(api: Api) -> User:
    return new_user(api)


def word() -> str:
    return "w" + uuid.uuid4().hex[:10]


def search(api: Api, query: str, path: str = RECENT, **params: Any) -> dict[str, Any]:
    time.sleep(0.002)  # the window's end is exclusive, at millisecond precision
    response = api.get(path, params={"query": query, **params})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def ids(body: dict[str, Any]) -> list[str]:
    return [post["id"] for post in body.get("data", [])]


def query_error(api: Api, query: str, path: str = RECENT) -> str:
    response = api.get(path, params={"query": query})
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == PROBLEMS + "invalid-request"
    assert body["errors"][0]["parameters"] == {"query": [query]}
    message: str = body["errors"][0]["message"]
    return message


def test_keywords_fold_accents_and_case_newest_first(api: Api, author: User) -> None:
    w = word()
    first = create_ok(api, author, text=f"Café crème {w}")
    second = create_ok(api, author, text=f"cafe CREME {w} again")
    tea = create_ok(api, author, text=f"tea {w}")
    for query in (f"cafe {w}", f"CAFÉ {w}", f"crème {w}", f'"cafe creme" {w}'):
        body = search(api, query)
        assert ids(body) == [second["id"], first["id"]], query
        assert body["meta"] == {
            "newest_id": second["id"],
            "oldest_id": first["id"],
            "result_count": 2,
        }
    assert ids(search(api, f'"creme cafe" {w}')) == []
    assert ids(search(api, f"{w} -tea")) == [second["id"], first["id"]]
    assert ids(search(api, f"{w} (tea OR again)")) == [tea["id"], second["id"]]


def test_no_match_has_only_meta(api: Api) -> None:
    assert search(api, word()) == {"meta": {"result_count": 0}}


def test_entities_and_user_operators(api: Api, author: User) -> None:
    w = word()
    other = new_user(api)
    tagged = create_ok(api, author, text=f"#Señal {w} $ACME")
    mention = create_ok(api, author, text=f"hi @{other['username']} {w}")
    reply = create_ok(api, other, text=f"reply {w}", reply={"in_reply_to_tweet_id": tagged["id"]})
    link = create_ok(api, other, text=f"see https://example.com/x {w}")
    assert ids(search(api, f"#senal {w}")) == [tagged["id"]]
    assert ids(search(api, "#SEÑAL")) == [tagged["id"]]
    assert ids(search(api, f"$acme {w}")) == [tagged["id"]]
    assert ids(search(api, f"@{other['username'].upper()} {w}")) == [mention["id"]]
    assert ids(search(api, f"from:{author['username']} {w}")) == [mention["id"], tagged["id"]]
    assert ids(search(api, f"from:{other['id']} {w}")) == [link["id"], reply["id"]]
    assert ids(search(api, f"to:{author['username']}")) == [reply["id"]]
    assert ids(search(api, f"{w} is:reply")) == [reply["id"]]
    assert ids(search(api, f"{w} -is:reply has:hashtags")) == [tagged["id"]]
    assert ids(search(api, f"{w} has:links")) == [link["id"]]
    assert ids(search(api, f"url:example.com {w}")) == [link["id"]]
    assert ids(search(api, f"conversation_id:{tagged['id']} {w}")) == [reply["id"], tagged["id"]]
    # The URL is not keyword text (docs/query-matching.md).
    assert ids(search(api, f"{w} example")) == []


def test_paging_with_both_token_names(api: Api, author: User) -> None:
    w = word()
    created = [create_ok(api, author, text=f"page {w} {i}")["id"] for i in range(25)]
    newest_first = list(reversed(created))
    seen: list[str] = []
    token = None
    pages = 0
    name = "next_token"
    while True:
        params: dict[str, Any] = {"max_results": 10}
        if token:
            params[name] = token
            name = "pagination_token" if name == "next_token" else "next_token"
        body = search(api, w, **params)
        pages += 1
        seen += ids(body)
        assert "previous_token" not in body["meta"]
        token = body["meta"].get("next_token")
        if token is None:
            break
    assert pages == 3 and seen == newest_first
    # A token reused returns the same page.
    first = search(api, w, max_results=10)
    again = search(api, w, max_results=10, next_token=first["meta"]["next_token"])
    assert ids(again) == newest_first[10:20]
    assert ids(search(api, w, max_results=10, next_token=first["meta"]["next_token"])) == ids(again)
    # since_id / until_id are exclusive.
    body = search(api, w, since_id=created[20], until_id=created[24])
    assert ids(body) == list(reversed(created[21:24]))


def test_bad_tokens_and_parameters(api: Api) -> None:
    w = word()
    response = api.get(RECENT, params={"query": w, "next_token": "zzzz"})
    assert response.status_code == 400
    assert "is not a valid token" in response.json()["errors"][0]["message"]
    response = api.get(RECENT, params={"query": w, "max_results": 5})
    assert response.json()["errors"][0]["message"] == (
        "The `max_results` query parameter value [5] is not between 10 and 100"
    )
    assert api.get(ALL, params={"query": w, "max_results": 500}).status_code == 200
    response = api.get(RECENT, params={"query": w, "max_results": 101})
    assert response.status_code == 400
    response = api.get(RECENT, params={"query": w, "sort_order": "random"})
    assert response.status_code == 400
    response = api.get(RECENT, params={})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == "The `query` query parameter can not be empty"
    assert api.get(RECENT, params={"query": w, "sort_order": "relevancy"}).status_code == 200


def test_invalid_queries_have_the_platform_texts(api: Api) -> None:
    prefix = "There were errors processing your request: "
    assert query_error(api, "a") == prefix + (
        "Rules must contain at least one positive, non-stopword clause (at position 1)"
    )
    assert query_error(api, "cat <") == prefix + "no viable alternative at character '<' (at position 5)"
    assert query_error(api, "-cat") == prefix + (
        "Rules must contain a non-negation term (at position 1), "
        "Rules must contain at least one positive, non-stopword clause (at position 1)"
    )
    assert query_error(api, "has:polls cat") == prefix + "Reference to invalid operator 'has:polls'."
    assert query_error(api, "x" * 513).startswith(prefix + "Query length of 513 characters exceeds")
    assert api.get(ALL, params={"query": "x" * 600}).status_code == 200  # 1024 on the archive
    assert query_error(api, 'entity:"Cat" cat', ALL) == prefix + (
        "Reference to invalid operator 'entity'. Operator is not available in current product or "
        "product packaging."
    )


def test_time_window_errors(api: Api, server: LiveServer) -> None:
    now = httpx.get(server.base_url + "/_roost/clock").json()["now"]
    response = api.get(RECENT, params={"query": word(), "end_time": now[:19] + "Z"})
    assert response.status_code == 400
    item = response.json()["errors"][0]
    assert item["parameters"] == {"end_time": [now[:19] + "Z"]}
    assert item["message"] == (
        f"Invalid 'end_time':'{now[:16]}Z'. 'end_time' must be a minimum of 10 seconds prior to the "
        "request time."
    )
    response = api.get(RECENT, params={"query": word(), "start_time": "2020-01-01T00:00:00Z"})
    message = response.json()["errors"][0]["message"]
    assert message.startswith("Invalid 'start_time':'2020-01-01T00:00Z'. 'start_time' must be on or after ")
    response = api.get(ALL, params={"query": word(), "start_time": "2006-01-01T00:00:00Z"})
    assert response.json()["errors"][0]["message"] == (
        "Invalid 'start_time':'2006-01-01T00:00Z'. 'start_time' must be on or after 2006-03-21T00:00Z"
    )
    assert api.get(ALL, params={"query": word(), "start_time": "2006-03-21T00:00:00Z"}).status_code == 200


def test_archive_and_time_bounds(api: Api) -> None:
    user = import_user(api)
    w = word()
    older = {
        "id": next_import_id(),
        "author_id": user["id"],
        "text": f"older {w}",
        "created_at": "2010-06-01T12:00:00Z",
    }
    old = {
        "id": next_import_id(),
        "author_id": user["id"],
        "text": f"old {w}",
        "created_at": "2015-06-01T12:00:00Z",
    }
    import_objects(api, {"tweets": [older, old]})
    assert ids(search(api, w)) == []  # outside the 7 days
    assert ids(search(api, w, ALL)) == []  # the archive defaults to 30 days
    assert ids(search(api, w, ALL, start_time="2006-03-21T00:00:00Z")) == [old["id"], older["id"]]
    # start inclusive, end exclusive
    body = search(api, w, ALL, start_time="2010-06-01T12:00:00Z", end_time="2015-06-01T12:00:00Z")
    assert ids(body) == [older["id"]]
    assert ids(search(api, w, ALL, since_id=str(int(older["id"]) - 1))) == [old["id"], older["id"]]


def test_reposts_are_left_out_of_keyword_search(api: Api, author: User) -> None:
    user = import_user(api)
    w = word()
    original = create_ok(api, author, text=f"original {w}")
    repost = {
        "id": next_import_id(),
        "author_id": user["id"],
        "text": f"RT @{author['username']}: original {w}",
        "referenced_tweets": [{"type": "retweeted", "id": original["id"]}],
    }
    import_objects(api, {"tweets": [repost]})
    assert ids(search(api, w)) == [original["id"]]
    assert ids(search(api, f"{w} is:retweet")) == []
    # Not a keyword search: the repost is found.
    found = ids(search(api, f"retweets_of:{author['username']}", ALL, start_time="2006-03-21T00:00:00Z"))
    assert found == [repost["id"]]
    assert ids(search(api, f"from:{user['id']}", ALL, start_time="2006-03-21T00:00:00Z")) == [repost["id"]]


def test_deleted_protected_and_edited_posts(api: Api) -> None:
    author = new_user(api, premium=True)  # editing needs a subscription
    w = word()
    gone = create_ok(api, author, text=f"gone {w}")
    assert delete_as(api, author, gone["id"]).status_code == 200
    hidden = new_user(api, protected=True)
    create_ok(api, hidden, text=f"secret {w}")
    kept = create_ok(api, author, text=f"kept {w}")
    assert ids(search(api, w)) == [kept["id"]]
    edited = create_ok(api, author, text=f"edited {w} now", edit_options={"previous_post_id": kept["id"]})
    assert ids(search(api, w)) == [edited["id"]]


def test_fields_and_expansions(api: Api, author: User) -> None:
    w = word()
    post = create_ok(api, author, text=f"fields {w}")
    body = search(api, w, **{"tweet.fields": "author_id,created_at", "expansions": "author_id"})
    assert body["data"][0]["id"] == post["id"] and body["data"][0]["author_id"] == author["id"]
    assert body["includes"]["users"][0]["username"] == author["username"]
    body = search(api, w, **{"post.fields": "author_id", "expansions": "author_id"})
    assert body["data"][0]["author_id"] == author["id"]


def test_auth_kinds(api: Api, author: User) -> None:
    w = word()
    create_ok(api, author, text=f"auth {w}")
    time.sleep(0.002)
    response = api.get(RECENT, params={"query": w}, auth="none", headers=bearer(author))
    assert response.status_code == 200 and response.json()["meta"]["result_count"] == 1
    response = api.get(RECENT, params={"query": w}, auth="oauth1")
    assert response.status_code == 200
    response = api.get(ALL, params={"query": w}, auth="none", headers=bearer(author))
    assert response.status_code == 403
    assert response.json()["type"] == PROBLEMS + "unsupported-authentication"
    assert "x-rate-limit-limit" in api.get(RECENT, params={"query": w}).headers


def test_default_end_lags_thirty_seconds(api: Api, author: User) -> None:
    w = word()
    create_ok(api, author, text=f"lag {w}")
    api.http.post("/_roost/settings", json={"search_default_end_lag_s": "30"})
    try:
        assert ids(search(api, w)) == []
    finally:
        api.http.post("/_roost/settings", json={"search_default_end_lag_s": "0"})
    assert len(ids(search(api, w))) == 1
