"""Error paths of every operation: parameter validation, bodies, routing, authentication; never a 500."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from tests.api.helpers import PROBLEMS, bearer, create, invalid_request, lookup, new_user, unique_text
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.core import pagination

UNAUTHORIZED = {"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"}
TWEET_PARAMS = "expansions,tweet.fields,media.fields,poll.fields,place.fields,user.fields,post.fields"
JSON = {"content-type": "application/json"}


def test_unknown_parameter_lists_the_allowed_ones(api: Api) -> None:
    cases = {
        "/2/tweets/1": f"id,{TWEET_PARAMS}",
        "/2/tweets": f"ids,{TWEET_PARAMS}",
        "/2/users/1": "id,expansions,tweet.fields,user.fields,post.fields",
        "/2/users/me": "expansions,tweet.fields,user.fields,post.fields",
        "/2/users/1/tweets": "id,since_id,until_id,max_results,pagination_token,start_time,end_time,exclude,"
        + TWEET_PARAMS,
    }
    for path, allowed in cases.items():
        response = api.get(path, params={"dummy": "x"}, auth="oauth2")
        assert response.status_code == 400
        assert response.json()["errors"][0] == {
            "parameters": {"dummy": ["x"]},
            "message": f"The query parameter [dummy] is not one of [{allowed}]",
        }


def test_duplicate_parameter(api: Api) -> None:
    response = api.get("/2/tweets?ids=1&ids=2")
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {
            "parameters": {"ids": ["1", "2"]},
            "message": "Duplicate parameters are not allowed: the `ids` query parameter",
        }
    )


@pytest.mark.parametrize("value", ["1,abc", "abc", "1,,2", "1,", "12345678901234567890", "-1"])
def test_ids_with_a_bad_item(api: Api, value: str) -> None:
    response = api.get("/2/tweets", params={"ids": value})
    assert response.status_code == 400
    bad = next(item for item in value.split(",") if not (item.isdigit() and len(item) <= 19))
    assert response.json() == invalid_request(
        {
            "parameters": {"ids": [value]},
            "message": f"The `ids` query parameter value [{bad}] does not match ^[0-9]{{1,19}}$",
        }
    )


@pytest.mark.parametrize("count", [101, 10_000])
def test_too_many_ids(api: Api, count: int) -> None:
    value = ",".join(str(i) for i in range(1, count + 1))
    for path in ("/2/tweets", "/2/users"):
        response = api.get(f"{path}?ids={value}")
        assert response.status_code == 400
        assert response.json() == invalid_request(
            {
                "parameters": {"ids": [value]},
                "message": f"The number of values in the `ids` query parameter list [{count}] "
                "is not between 1 and 100",
            }
        )


def _raw_get(api: Api, target: str) -> tuple[int, dict[str, str], bytes]:
    """A GET sent over a plain socket (httpx refuses request targets over 65,536 characters)."""
    host, port = urlsplit(api.base_url).hostname, urlsplit(api.base_url).port
    assert host is not None and port is not None
    request = f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
    request += "".join(f"{name}: {value}\r\n" for name, value in api.bearer().items()) + "\r\n"
    received = b""
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(request.encode())
        while chunk := sock.recv(65536):
            received += chunk
    head, body = received.split(b"\r\n\r\n", 1)
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), headers, body


def test_ten_thousand_real_ids_get_the_platforms_error(api: Api) -> None:
    """10,000 nineteen-digit ids make a 200,000-character URL: still the platform's 400, not the
    HTTP server's plain-text refusal of a long request target."""
    value = ",".join(str(1_796_693_139_256_385_536 + n) for n in range(10_000))
    status, headers, body = _raw_get(api, f"/2/tweets?ids={value}&tweet.fields=created_at")
    assert status == 400
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body) == invalid_request(
        {
            "parameters": {"ids": [value]},
            "message": "The number of values in the `ids` query parameter list [10000] "
            "is not between 1 and 100",
        }
    )
    # A long query of valid values is answered as any other (id 20 does not exist: a partial error).
    fields = ",".join(["created_at"] * 9_000)
    status, _, body = _raw_get(api, f"/2/tweets?ids=20&tweet.fields={fields}")
    assert status == 200 and json.loads(body)["errors"][0]["resource_id"] == "20", body[:300]


def test_missing_or_empty_required_parameter(api: Api) -> None:
    expected = {"message": "The `ids` query parameter can not be empty"}
    assert api.get("/2/tweets").json() == invalid_request({"parameters": {"ids": []}, **expected})
    assert api.get("/2/tweets?ids=").json() == invalid_request({"parameters": {"ids": [""]}, **expected})
    usernames = api.get("/2/users/by").json()
    assert usernames["errors"] == [
        {"parameters": {"usernames": []}, "message": "The `usernames` query parameter can not be empty"}
    ]


def test_ids_beyond_64_bits(api: Api) -> None:
    huge = "9999999999999999999"
    for path, params in (
        ("/2/tweets/" + huge, {}),
        ("/2/tweets", {"ids": f"1,{huge}"}),
        ("/2/users/" + huge, {}),
        (f"/2/users/{huge}/tweets", {}),
        ("/2/users/1/mentions", {"since_id": huge}),
    ):
        response = api.get(path, params=params)
        assert response.status_code == 400, path
        assert response.json()["errors"][0]["message"].endswith(f"value [{huge}] is not valid")
    deleted = api.delete(f"/2/tweets/{huge}", auth="oauth2")
    assert deleted.status_code == 400
    quoted = api.post("/2/tweets", auth="oauth2", json={"text": unique_text(), "quote_tweet_id": huge})
    assert quoted.json()["errors"] == [
        {
            "parameters": {"quote_tweet_id": [huge]},
            "message": f"The `quote_tweet_id` field value [{huge}] is not valid",
        }
    ]


def test_bad_fields_value_lists_fields_alphabetically(api: Api) -> None:
    response = api.get("/2/tweets/1", params={"tweet.fields": "created_at,foo,bar"})
    assert response.status_code == 400
    # Both vocabularies' names (platform-facts 5.1), alphabetically.
    allowed = (
        "article,article_title,attachments,author_id,card_uri,community_id,context_annotations,conversation_id,"
        "created_at,display_text_range,edit_controls,edit_history_tweet_ids,entities,geo,id,in_reply_to_user_id,"
        "lang,matched_media_notes,media_metadata,non_public_metrics,note_post,note_request_suggestions,note_tweet,"
        "organic_metrics,paid_partnership,possibly_sensitive,promoted_metrics,public_metrics,referenced_tweets,"
        "reply_settings,scopes,source,suggested_source_links,suggested_source_links_with_counts,text,withheld"
    )
    assert response.json() == invalid_request(
        {
            "parameters": {"tweet.fields": ["created_at,foo,bar"]},
            "message": f"The `tweet.fields` query parameter value [foo] is not one of [{allowed}]",
        }
    )
    users = api.get("/2/users/1", params={"user.fields": "nope"}).json()["errors"][0]["message"]
    listed = users.split("[", 2)[2].rstrip("]").split(",")
    assert listed == sorted(listed) and "connection_status" in listed


def test_bad_expansions_value(api: Api) -> None:
    response = api.get("/2/tweets/1", params={"expansions": "author_id,nope"})
    assert response.status_code == 400
    item = response.json()["errors"][0]
    assert item["parameters"] == {"expansions": ["author_id,nope"]}
    assert item["message"].startswith(
        "The `expansions` query parameter value [nope] is not one of "
        "[attachments.poll_ids,attachments.media_keys,author_id,"
    )
    users = api.get("/2/users/1", params={"expansions": "author_id"}).json()["errors"][0]["message"]
    assert users == (
        "The `expansions` query parameter value [author_id] is not one of "
        "[pinned_tweet_id,most_recent_tweet_id,affiliation.user_id]"  # tweet names asked, tweet names told
    )


def test_several_bad_parameters_one_item_each(api: Api) -> None:
    params = {"ids": "x", "tweet.fields": "foo", "user.fields": "bar", "expansions": "baz", "zzz": "1"}
    response = api.get("/2/tweets", params=params)
    assert response.status_code == 400
    items = response.json()["errors"]
    assert sorted(name for item in items for name in item["parameters"]) == sorted(params)
    assert all(item["parameters"][name] == [params[name]] for item in items for name in item["parameters"])


@pytest.mark.parametrize(
    ("content", "headers", "message"),
    [
        (b"{bad", JSON, "Request body is not valid JSON."),
        (b'{"text": "\xff\xfe"}', JSON, "Request body is not valid JSON."),
        (b'{"text": "\\ud800"}', JSON, "Request body is not valid JSON."),
        (b"", JSON, "Request body must not be empty."),
        (
            b'{"text": "hi"}',
            {"content-type": "text/plain"},
            "Requests with bodies must have content-type of application/json.",
        ),
        (
            b"text=hi",
            {"content-type": "application/x-www-form-urlencoded"},
            "Requests with bodies must have content-type of application/json.",
        ),
        (
            b'{"text": "hi", "bogus": 1}',
            JSON,
            "$.bogus: is not defined in the schema and the schema does not allow additional properties",
        ),
        (b'{"text": 5}', JSON, "$.text: integer found, string expected"),
        (b'{"text": "x", "reply": []}', JSON, "$.reply: array found, object expected"),
        (b'{"text": "x", "nullcast": "yes"}', JSON, "$.nullcast: string found, boolean expected"),
        (b'{"text": "x", "geo": {"place_id": 5}}', JSON, "$.geo.place_id: integer found, string expected"),
        (b"[1, 2]", JSON, "$: a JSON object is expected"),
        (b"{}", JSON, "$.text: text or media is required"),
    ],
    ids=[
        "malformed",
        "utf8",
        "surrogate",
        "empty",
        "text-plain",
        "form",
        "unknown-field",
        "text-int",
        "reply-array",
        "flag-string",
        "place-int",
        "array",
        "no-text",
    ],
)
def test_bad_bodies(api: Api, content: bytes, headers: dict[str, str], message: str) -> None:
    response = api.post("/2/tweets", auth="oauth2", content=content, headers=headers)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json() == invalid_request({"parameters": {}, "message": message})


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("quote_tweet_id", 5, "5"),
        ("quote_tweet_id", "²", "²"),
        ("community_id", {"nested": True}, '{"nested":true}'),
        ("community_id", ["1"], '["1"]'),
        ("edit_options", {"previous_post_id": None}, "null"),
    ],
)
def test_body_ids_echo_json(api: Api, make_user: Any, field: str, value: Any, shown: str) -> None:
    """Non-string ids are echoed as JSON, never as Python reprs."""
    response = create(api, make_user(premium=True), {"text": unique_text(), field: value})
    if field == "edit_options":
        field = "edit_options.previous_post_id"
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "parameters": {field: [shown]},
            "message": f"The `{field}` field value [{shown}] does not match ^[0-9]{{1,19}}$",
        }
    ]


def test_oversized_body(api: Api) -> None:
    content = b'{"text": "' + b"a" * (1 << 20) + b'"}'
    response = api.post("/2/tweets", auth="oauth2", content=content, headers=JSON)
    assert response.status_code == 413
    assert response.json() == {
        "title": "Payload Too Large",
        "detail": "Payload Too Large",
        "type": "about:blank",
        "status": 413,
    }


def test_invalid_utf8_in_the_query_string(api: Api) -> None:
    response = api.get("/2/tweets?ids=1%FF")
    assert response.status_code == 400
    assert (
        response.json()["errors"][0]["message"]
        == "The `ids` query parameter value [1\ufffd] does not match ^[0-9]{1,19}$"
    )
    name = api.get("/2/tweets/1?%FF%FE=1")
    assert name.status_code == 400
    assert name.json()["errors"][0]["message"].startswith(
        "The query parameter [\ufffd\ufffd] is not one of [id,"
    )
    path = api.get("/2/users/by/username/%C3%28")
    assert path.status_code == 400


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/2/nothing"),
        ("GET", "/2/tweets/1/nope"),
        ("PUT", "/2/tweets/1"),
        ("GET", "/3/tweets"),
        ("POST", "/2/users/me"),
    ],
)
def test_unknown_route(api: Api, method: str, path: str) -> None:
    for auth in ("app", "none"):
        response = api.request(method, path, auth=auth)
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("application/json")
        assert response.json() == {"errors": [{"message": "Sorry, that page does not exist", "code": 34}]}


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer nope", "Bearer", "Basic Zm9vOmJhcg==", "OAuth garbage", "Token abc"],
)
def test_unauthorized(api: Api, authorization: str | None) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    for method, path in (("GET", "/2/tweets/1"), ("GET", "/2/users/me"), ("POST", "/2/tweets")):
        response = api.request(
            method, path, auth="none", headers=headers, json={"text": "x"} if method == "POST" else None
        )
        assert response.status_code == 401, (authorization, path)
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json() == UNAUTHORIZED


def test_bad_oauth1_signature(api: Api) -> None:
    headers = api.oauth1("GET", "/2/users/me", consumer_secret="x")
    response = api.get("/2/users/me", auth="none", headers=headers)
    assert response.status_code == 401
    assert response.json() == UNAUTHORIZED
    wrong_secret = api.oauth1("GET", "/2/users/me", secret="not-the-secret")
    assert api.get("/2/users/me", auth="none", headers=wrong_secret).json() == UNAUTHORIZED
    signed_other_path = api.oauth1("GET", "/2/users/1")
    assert api.get("/2/users/me", auth="none", headers=signed_other_path).json() == UNAUTHORIZED


def test_unknown_oauth1_token(api: Api) -> None:
    headers = api.oauth1("GET", "/2/users/me", token="1-unknown", secret="x")
    response = api.get("/2/users/me", auth="none", headers=headers)
    assert response.status_code == 401
    assert response.json() == {"errors": [{"code": 89, "message": "Invalid or expired token."}]}


@pytest.mark.parametrize("skew", [-3600, 3600])
def test_stale_oauth1_timestamp(api: Api, skew: int) -> None:
    headers = api.oauth1("GET", "/2/users/me", timestamp=int(time.time()) + skew)
    response = api.get("/2/users/me", auth="none", headers=headers)
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {"errors": [{"code": 135, "message": "Timestamp out of bounds."}]}


def test_replayed_oauth1_nonce(api: Api) -> None:
    headers = api.oauth1("GET", "/2/users/me")
    first = api.get("/2/users/me", auth="none", headers=headers)
    assert first.status_code == 200
    again = api.get("/2/users/me", auth="none", headers=headers)
    assert again.status_code == 401
    assert again.json() == {"errors": [{"code": 32, "message": "Could not authenticate you."}]}


def test_crafted_pagination_tokens(api: Api, credentials: dict[str, Any]) -> None:
    path = f"/2/users/{credentials['user_id']}/tweets"
    for token in (
        pagination.encode(1 << 70, pagination.PREVIOUS, "tweets"),
        pagination.encode(1 << 70, pagination.NEXT, "tweets"),
        pagination.encode(5, pagination.NEXT, "other"),
    ):
        response = api.get(path, params={"pagination_token": token})
        assert response.status_code == 400
        assert response.json()["errors"][0]["message"] == (
            f"The `pagination_token` query parameter value [{token}] is not a valid token"
        )


# Each odd request with its status for the app-only bearer and for a user token: invalid parameters are
# 400; a well-formed id that matches nothing is a 200 carrying a not-found error (a single-object lookup
# too, as on the platform); deleting needs user context (403 for the app), then 404 for no such post.
ODD_REQUESTS: list[tuple[str, str, int, int]] = [
    ("GET", "/2/tweets?ids=1%00", 400, 400),
    ("GET", "/2/tweets/1?tweet.fields=", 400, 400),
    ("GET", "/2/tweets/1?expansions=,", 400, 400),
    ("GET", "/2/tweets/1?tweet.fields=%00", 400, 400),
    ("GET", "/2/tweets/0", 200, 200),
    ("GET", "/2/tweets/0000000000000000000", 200, 200),
    ("GET", "/2/users/1/tweets?max_results=%C2%B2", 400, 400),
    ("GET", "/2/users/1/tweets?max_results=-5", 400, 400),
    ("GET", "/2/users/1/tweets?max_results=99999999999999999999999", 400, 400),
    ("GET", "/2/users/1/tweets?until_id=0", 200, 200),
    ("GET", "/2/users/1/tweets?start_time=9999-12-31T23:59:59Z", 200, 200),
    ("GET", "/2/users/1/tweets?start_time=0001-01-01T00:00:00Z", 400, 400),
    ("GET", "/2/users/1/tweets?end_time=2020-02-30T00:00:00Z", 400, 400),
    ("GET", "/2/users/1/tweets?exclude=", 400, 400),
    ("GET", "/2/users/1/mentions?pagination_token=" + "z" * 41, 400, 400),
    ("GET", "/2/users/by?usernames=" + "a," * 100 + "a", 400, 400),
    ("GET", "/2/users/by/username/" + "a" * 300, 400, 400),
    ("GET", "/2/media?media_keys=99999999999999999999999_1", 200, 200),
    ("GET", "/2/media/3_99999999999999999999999999", 200, 200),
    ("DELETE", "/2/tweets/0", 403, 404),
    ("GET", "/2/users?ids=%F0%9F%98%80", 400, 400),
]


@pytest.mark.parametrize(("method", "path", "as_app", "as_user"), ODD_REQUESTS)
def test_never_a_server_error(api: Api, method: str, path: str, as_app: int, as_user: int) -> None:
    for auth, status in (("app", as_app), ("oauth2", as_user)):
        response = api.request(method, path, auth=auth)
        assert response.status_code == status, (auth, response.text)
        assert isinstance(response.json(), dict)
        if status == 400:
            assert response.json()["type"] == PROBLEMS + "invalid-request", (auth, response.text)


@pytest.mark.parametrize(
    "body",
    [
        {"text": "x", "media": {"media_ids": [{"a": 1}]}},
        {"text": "x", "media": {"media_ids": "12"}},
        {"text": "x", "media": {"media_ids": ["1"] * 5}},
        {"text": "x", "poll": {"options": [1, 2], "duration_minutes": 10}},
        {"text": "x", "poll": {"options": ["a", "b"], "duration_minutes": "10"}},
        {"text": "x", "poll": {}},
        {"text": "x", "reply": {}},
        {"text": "x", "edit_options": {}},
        {"text": "x", "reply_settings": {"a": 1}},
        {"text": "x", "quote_tweet_id": "0"},
        {"text": "x", "geo": "here"},
    ],
)
def test_odd_bodies_are_invalid_requests(api: Api, make_user: Any, body: dict[str, Any]) -> None:
    response = api.post("/2/tweets", auth="none", headers=bearer(make_user()), json=body)
    assert response.status_code == 400, response.text
    assert response.json()["type"] == PROBLEMS + "invalid-request"


def test_nul_in_post_text_is_dropped(api: Api, make_user: Any) -> None:
    # docs/decisions.md: NUL characters are dropped before storage (PostgreSQL text cannot hold them).
    text = unique_text()
    response = api.post(
        "/2/tweets", auth="none", headers=bearer(make_user()), json={"text": "a\u0000b" + text}
    )
    assert response.status_code == 201, response.text
    assert response.json()["data"]["text"] == "ab" + text
    assert lookup(api, response.json()["data"]["id"])["data"]["text"] == "ab" + text


def test_a_body_cut_short_by_a_disconnect_is_not_carried_out() -> None:
    """A client that declares more body than it sends and then hangs up has not made a request: the
    part that arrived (valid JSON here) must not create a post."""
    live = LiveServer(tag="cut-short", rate_limits=False, log_requests=True).start()
    requests = live.requests
    assert requests is not None
    api = Api(live.base_url, httpx.get(live.base_url + "/_roost/credentials", timeout=30).json())
    try:
        user = new_user(api)
        text = unique_text("cut short")
        body = json.dumps({"text": text}).encode()
        host, port = urlsplit(api.base_url).hostname, urlsplit(api.base_url).port
        assert host is not None and port is not None
        head = (
            f"POST /2/tweets HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {user['oauth2']}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body) + 500}\r\n\r\n"
        ).encode()
        with socket.create_connection((host, port), timeout=5) as sock:
            sock.sendall(head + body)
            client = sock.getsockname()
            # The app has the request and is waiting for the rest of its body...
            assert _wait_until(lambda: client in requests.started), "the request never reached the app"
        # ... and has dealt with it once it saw the client leave.
        assert _wait_until(lambda: client in requests.finished), "the app never finished the request"
        # Had the cut-off request been carried out, the same text would now be refused as a duplicate.
        again = create(api, user, text=text)
        assert again.status_code == 201, again.text
        timeline = api.get(f"/2/users/{user['id']}/tweets", params={"max_results": 100}).json()
        assert [post["text"] for post in timeline["data"]] == [text]
    finally:
        api.close()
        live.stop()


def _wait_until(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_path_parameter_repeated_in_the_query(api: Api) -> None:
    """The platform takes `/2/tweets/:id?id=...` as one parameter with two values (live capture)."""
    values = ["1387820661742112771", "dummy"]
    response = api.get("/2/tweets/1387820661742112771?id=dummy")
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {"parameters": {"id": values}, "message": "The `id` query parameter value [dummy] is not valid"},
        {
            "parameters": {"id": values},
            "message": "Duplicate parameters are not allowed: the `id` query parameter",
        },
    )
    response = api.get("/2/users/12?id=13")
    assert response.json() == invalid_request(
        {
            "parameters": {"id": ["12", "13"]},
            "message": "Duplicate parameters are not allowed: the `id` query parameter",
        }
    )
