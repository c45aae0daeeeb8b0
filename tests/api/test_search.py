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
from tests.api.test_lists import make_list
from tests.support.client import Api
from tests.support.server import LiveServer

RECENT = "/2/tweets/search/recent"
ALL = "/2/tweets/search/all"
COUNTS_RECENT = "/2/tweets/counts/recent"


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


def test_words_that_start_like_a_number_in_scientific_notation(api: Api, author: User) -> None:
    # PostgreSQL's parser reads "3e8a…" as two lexemes; a search for the word finds it on both stores.
    w = "3e8" + word()
    post = create_ok(api, author, text=f"scientific {w} here")
    assert ids(search(api, w)) == [post["id"]]
    assert ids(search(api, f'"scientific {w}"')) == [post["id"]]
    assert ids(search(api, f'"{w} scientific"')) == []


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
    assert query_error(api, "x" * 4097).startswith(prefix + "Query length of 4097 characters exceeds")
    assert query_error(api, 'entity:"Cat" cat', ALL) == prefix + (
        "Reference to invalid operator 'entity'. Operator is not available in current product or "
        "product packaging."
    )


def test_the_longest_query_follows_the_package(api: Api, credentials: dict[str, Any]) -> None:
    """Pay-per-use: 512 characters on recent search, 1,024 on the archive; enterprise: 4,096 on both."""
    as_self_serve = {"Authorization": f"Bearer {credentials['pay_per_use']['bearer_token']}"}
    for path, longest in ((RECENT, 512), (ALL, 1024), (COUNTS_RECENT, 512)):
        too_long = api.get(path, auth="none", headers=as_self_serve, params={"query": "x" * (longest + 1)})
        assert too_long.status_code == 400, path
        assert too_long.json()["errors"][0]["message"] == (
            "There were errors processing your request: Query length of "
            f"{longest + 1} characters exceeds the maximum of {longest} characters"
        )
        assert (
            api.get(path, auth="none", headers=as_self_serve, params={"query": "x" * longest}).status_code
            == 200
        )
        assert api.get(path, params={"query": "x" * 4096}).status_code == 200  # the enterprise demo app


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


def test_proximity_keeps_the_terms_within_the_slop(api: Api, author: User) -> None:
    w = word()
    near = create_ok(api, author, text=f"{w} alpha one two beta")  # in order, 2 tokens between
    far = create_ok(api, author, text=f"{w} alpha one two three four beta")  # 4 between
    reversed_ = create_ok(api, author, text=f"{w} beta one alpha")  # reversed, 1 between
    assert ids(search(api, f'"alpha beta"~2 {w}')) == [near["id"]]
    # Reversed terms need two more (Lucene slop): 1 token between needs ~3.
    assert ids(search(api, f'"alpha beta"~3 {w}')) == [reversed_["id"], near["id"]]
    assert ids(search(api, f'"alpha beta"~4 {w}')) == [reversed_["id"], far["id"], near["id"]]
    assert ids(search(api, f'"alpha beta"~1 {w}')) == []
    # Inside OR and negation, and with a huge slop (every term present).
    assert ids(search(api, f'{w} ("alpha beta"~1 OR four)')) == [far["id"]]
    assert ids(search(api, f'{w} -"alpha beta"~3')) == [far["id"]]
    assert ids(search(api, f'"alpha beta"~999999999999 {w}')) == [reversed_["id"], far["id"], near["id"]]
    # Counts compile the same way.
    response = api.get("/2/tweets/counts/recent", params={"query": f'"alpha beta"~3 {w}'})
    assert response.status_code == 200, response.text
    assert response.json()["meta"]["total_tweet_count"] == 2


def _relevancy_pages(api: Api, query: str, **params: Any) -> list[list[str]]:
    pages: list[list[str]] = []
    token = None
    while True:
        extra = {"next_token": token} if token else {}
        body = search(api, query, sort_order="relevancy", **params, **extra)
        pages.append(ids(body))
        if body.get("data"):
            page = [int(i) for i in ids(body)]
            assert body["meta"]["newest_id"] == str(max(page))
            assert body["meta"]["oldest_id"] == str(min(page))
        token = body["meta"].get("next_token")
        if token is None:
            return pages


def test_relevancy_orders_by_score_then_newest(api: Api, author: User) -> None:
    w = word()
    # Same length, so only the number of occurrences of w decides; older posts score higher.
    once = create_ok(api, author, text=f"{w} aa bb cc dd")
    thrice = create_ok(api, author, text=f"{w} {w} {w} aa bb")
    twice = create_ok(api, author, text=f"{w} {w} aa bb cc")
    tie = create_ok(api, author, text=f"{w} {w} aa bb dd")
    assert ids(search(api, w)) == [tie["id"], twice["id"], thrice["id"], once["id"]]
    body = search(api, w, sort_order="relevancy")
    assert ids(body) == [thrice["id"], tie["id"], twice["id"], once["id"]]
    # Structured operators beside the text keep the text's ranking.
    assert ids(search(api, f"{w} from:{author['username']}", sort_order="relevancy")) == ids(body)
    # No text term: no relevance, recency order.
    other = new_user(api)
    posts = [create_ok(api, other, text=f"plain {word()}")["id"] for _ in range(3)]
    query = f"from:{other['username']}"
    assert ids(search(api, query, sort_order="relevancy")) == list(reversed(posts))
    assert ids(search(api, f"{query} -{w}", sort_order="relevancy")) == list(reversed(posts))


def test_relevancy_pages_neither_repeat_nor_skip(api: Api, author: User) -> None:
    w = word()
    created: list[tuple[int, int]] = []
    for i in range(25):
        n = i % 4 + 1
        text = " ".join([w] * n + ["pad"] * (5 - n))
        created.append((n, int(create_ok(api, author, text=text)["id"])))
    expected = [str(i) for _, i in sorted(created, key=lambda c: (-c[0], -c[1]))]
    pages = _relevancy_pages(api, w, max_results=10)
    assert [len(p) for p in pages] == [10, 10, 5]
    assert [i for p in pages for i in p] == expected
    # A token reused returns the same page; a recency token is not a relevancy token.
    first = search(api, w, sort_order="relevancy", max_results=10)
    token = first["meta"]["next_token"]
    assert ids(search(api, w, sort_order="relevancy", max_results=10, next_token=token)) == pages[1]
    assert ids(search(api, w, sort_order="relevancy", max_results=10, pagination_token=token)) == pages[1]
    recency_token = search(api, w, max_results=10)["meta"]["next_token"]
    response = api.get(RECENT, params={"query": w, "sort_order": "relevancy", "next_token": recency_token})
    assert response.status_code == 400
    assert "is not a valid token" in response.json()["errors"][0]["message"]


def test_list_operator_matches_the_posts_of_a_public_lists_members(api: Api, author: User) -> None:
    w = word()
    owner, outsider = new_user(api), new_user(api)
    public = make_list(api, owner, [author])
    private = make_list(api, owner, [author], private=True)
    member_post = create_ok(api, author, text=f"{w} from a member")
    other_post = create_ok(api, outsider, text=f"{w} from elsewhere")
    assert ids(search(api, f"list:{public} {w}")) == [member_post["id"]]
    assert ids(search(api, f"{w} -list:{public}")) == [other_post["id"]]
    assert ids(search(api, f"list:{public}")) == [member_post["id"]]
    # A private list is its owner's alone: it matches nothing.
    assert ids(search(api, f"list:{private} {w}")) == []
