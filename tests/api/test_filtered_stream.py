"""`GET /2/tweets/search/stream`: lines for matching posts (`\\r\\n`-terminated JSON with
`matching_rules`), fields and expansions, keep-alives, the connection limit, rule changes while
connected, backfill, bearer-only (facts §3.3)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from tests.api.helpers import PROBLEMS, User, create_ok, new_user, unique_text
from tests.api.test_lists import make_list
from tests.support.client import Api
from tests.support.server import LiveServer

RULES = "/2/tweets/search/stream/rules"
STREAM = "/2/tweets/search/stream"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="filtered_stream", rate_limits=False, extra={"stream_keepalive_s": "0.5"})
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture(autouse=True)
def clean(api: Api) -> Iterator[None]:
    yield
    api.post(RULES, params={"delete_all": "true"}, json={}, conform=False)
    api.http.post("/_roost/settings", json={"stream_connection_limit": None})


@pytest.fixture()
def author(api: Api) -> User:
    return new_user(api)


def add_rules(api: Api, *rules: dict[str, str]) -> list[dict[str, Any]]:
    response = api.post(RULES, json={"add": list(rules)}, conform=False)
    assert response.status_code == 201, response.text
    created: list[dict[str, Any]] = response.json()["data"]
    return created


class Lines:
    """Raw lines of a streaming response, each with its `\\r\\n`."""

    def __init__(self, response: httpx.Response) -> None:
        self._chunks = response.iter_bytes()
        self._buffer = b""

    def next_raw(self) -> bytes:
        while b"\r\n" not in self._buffer:
            self._buffer += next(self._chunks)
        line, _, self._buffer = self._buffer.partition(b"\r\n")
        return line + b"\r\n"

    def next_post(self, timeout: float = 8.0) -> dict[str, Any]:
        """The next non-blank line, parsed (keep-alives skipped)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            raw = self.next_raw()
            if raw.strip():
                parsed: dict[str, Any] = json.loads(raw)
                return parsed
        raise AssertionError("no post line before the deadline")


def open_stream(client: httpx.Client, api: Api, **params: str) -> Any:
    return client.stream("GET", STREAM, params=params, headers=api.bearer())


def test_matching_post_is_one_line_with_matching_rules(api: Api, server: LiveServer, author: User) -> None:
    word = unique_text("w").split()[1]
    rules = add_rules(api, {"value": word, "tag": "by word"}, {"value": f"{word} -nomatch"})
    with httpx.Client(base_url=server.base_url, timeout=10) as client, open_stream(client, api) as response:
        assert response.status_code == 200
        assert "x-rate-limit-limit" in response.headers
        lines = Lines(response)
        create_ok(api, author, text=f"nothing to see {unique_text()}")  # matches no rule
        post = create_ok(api, author, text=f"hello {word}")
        raw = lines.next_raw()
        while not raw.strip():
            raw = lines.next_raw()
        assert raw.endswith(b"\r\n") and b"\n" not in raw[:-2]
        line = json.loads(raw)
        assert line["data"] == {
            "id": post["id"],
            "text": f"hello {word}",
            "edit_history_tweet_ids": [post["id"]],
        }
        assert "includes" not in line
        # Sent once, with every rule it matched (tag absent for an untagged rule), ids as strings.
        assert line["matching_rules"] == [
            {"id": rules[0]["id"], "tag": "by word"},
            {"id": rules[1]["id"]},
        ]


def test_fields_and_expansions_apply(api: Api, server: LiveServer, author: User) -> None:
    word = unique_text("f").split()[1]
    rule = add_rules(api, {"value": word, "tag": "fields"})[0]
    params = {
        "tweet.fields": "author_id,created_at,lang",
        "expansions": "author_id",
        "user.fields": "username,created_at",
    }
    with (
        httpx.Client(base_url=server.base_url, timeout=10) as client,
        open_stream(client, api, **params) as response,
    ):
        assert response.status_code == 200
        lines = Lines(response)
        post = create_ok(api, author, text=f"fields {word}")
        line = lines.next_post()
        assert line["data"]["id"] == post["id"]
        assert line["data"]["author_id"] == author["id"]
        assert line["data"]["created_at"].endswith("Z")
        users = line["includes"]["users"]
        assert users[0]["id"] == author["id"] and users[0]["username"] == author["username"]
        assert "created_at" in users[0]
        assert line["matching_rules"] == [{"id": rule["id"], "tag": "fields"}]


def test_keep_alives_while_idle(api: Api, server: LiveServer) -> None:
    # Keep-alives every 0.5 s here (the platform's 20 s would outlast the 10 s read deadline).
    with httpx.Client(base_url=server.base_url, timeout=10) as client, open_stream(client, api) as response:
        lines = Lines(response)
        try:
            assert lines.next_raw() == b"\r\n"
            assert lines.next_raw() == b"\r\n"
        except httpx.ReadTimeout:
            pytest.fail("no keep-alive line within the 10 s read deadline")


def test_rule_changes_apply_without_reconnecting(api: Api, server: LiveServer, author: User) -> None:
    first_word, second_word = unique_text("a").split()[1], unique_text("b").split()[1]
    first = add_rules(api, {"value": first_word})[0]
    with httpx.Client(base_url=server.base_url, timeout=10) as client, open_stream(client, api) as response:
        lines = Lines(response)
        create_ok(api, author, text=f"early {second_word}")  # no rule for it yet
        second = add_rules(api, {"value": second_word, "tag": "late"})[0]
        post = create_ok(api, author, text=f"now {second_word}")
        line = lines.next_post()
        assert line["data"]["id"] == post["id"]
        assert line["matching_rules"] == [{"id": second["id"], "tag": "late"}]
        deleted = api.post(RULES, json={"delete": {"ids": [first["id"]]}})
        assert deleted.json()["meta"]["summary"]["deleted"] == 1
        create_ok(api, author, text=f"gone {first_word}")  # its rule was deleted
        last = create_ok(api, author, text=f"again {second_word}")
        assert lines.next_post()["data"]["id"] == last["id"]


TOO_MANY = {
    "title": "ConnectionException",
    "detail": "This stream is currently at the maximum allowed connection limit.",
    "connection_issue": "TooManyConnections",
    "type": PROBLEMS + "streaming-connection",
}


def refused_as_too_many(client: httpx.Client, headers: dict[str, str]) -> None:
    """One connection more is refused (opened as a stream: a wrongly accepted one must not hang the test)."""
    with client.stream("GET", STREAM, headers=headers) as extra:
        assert extra.status_code == 429
        assert json.loads(extra.read()) == TOO_MANY


def test_connection_limit_by_package(api: Api, server: LiveServer, credentials: dict[str, Any]) -> None:
    self_serve = {"Authorization": f"Bearer {credentials['pay_per_use']['bearer_token']}"}
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        # Enterprise: two redundant connections, not three.
        with open_stream(client, api) as first, open_stream(client, api) as second:
            assert first.status_code == second.status_code == 200
            held = Lines(first), Lines(second)  # held: a dropped iterator closes the response
            for lines in held:
                lines.next_raw()
            refused_as_too_many(client, api.bearer())
        # Pay-per-use: one.
        with client.stream("GET", STREAM, headers=self_serve) as only:
            assert only.status_code == 200
            held_only = Lines(only)
            held_only.next_raw()
            refused_as_too_many(client, self_serve)
        # The setting, once made, holds for every app: one enterprise connection. A closed connection
        # frees its slot once the server has seen it go, so the one kept is opened when a slot is free.
        api.http.post("/_roost/settings", json={"stream_connection_limit": "1"})
        one = wait_for(lambda: _held_open(client, api))
        assert one is not None
        try:
            held_one = Lines(one)
            held_one.next_raw()
            refused_as_too_many(client, api.bearer())
        finally:
            one.close()


def test_backfill_is_enterprise_only(server: LiveServer, credentials: dict[str, Any]) -> None:
    self_serve = {"Authorization": f"Bearer {credentials['pay_per_use']['bearer_token']}"}
    refused = httpx.get(
        server.base_url + STREAM, params={"backfill_minutes": "2"}, headers=self_serve, timeout=10
    )
    assert refused.status_code == 403
    body = refused.json()
    assert (body["title"], body["reason"], body["type"]) == (
        "Client Forbidden",
        "client-not-enrolled",
        PROBLEMS + "client-forbidden",
    )


def test_backfill_minutes(api: Api, server: LiveServer, author: User) -> None:
    word = unique_text("k").split()[1]
    add_rules(api, {"value": word})
    post = create_ok(api, author, text=f"before {word}")
    with (
        httpx.Client(base_url=server.base_url, timeout=10) as client,
        open_stream(client, api, backfill_minutes="2") as response,
    ):
        assert Lines(response).next_post()["data"]["id"] == post["id"]


def test_edited_post_is_streamed(api: Api, server: LiveServer) -> None:
    author = new_user(api, premium=True)
    word = unique_text("e").split()[1]
    add_rules(api, {"value": word})
    original = create_ok(api, author, text="first version")
    with httpx.Client(base_url=server.base_url, timeout=10) as client, open_stream(client, api) as response:
        lines = Lines(response)
        edited = create_ok(
            api, author, text=f"second version {word}", edit_options={"previous_post_id": original["id"]}
        )
        line = lines.next_post()
        assert line["data"]["id"] == edited["id"]
        assert line["data"]["edit_history_tweet_ids"] == [original["id"], edited["id"]]


def test_bad_requests(api: Api) -> None:
    assert api.get(STREAM, params={"backfill_minutes": "6"}).status_code == 400
    assert api.get(STREAM, params={"tweet.fields": "nope"}).status_code == 400
    reversed_window = api.get(
        STREAM, params={"start_time": "2026-01-02T00:00:00Z", "end_time": "2026-01-01T00:00:00Z"}
    )
    assert reversed_window.status_code == 400
    user_token = api.get(STREAM, auth="oauth2")
    assert user_token.status_code == 403
    assert user_token.json()["type"] == PROBLEMS + "unsupported-authentication"
    assert api.get(STREAM, auth="none").status_code == 401


def wait_for(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def _held_open(client: httpx.Client, api: Api) -> httpx.Response | None:
    """A filtered-stream connection left open for the caller to close, or None when refused."""
    response = client.send(client.build_request("GET", STREAM, headers=api.bearer()), stream=True)
    if response.status_code == 200:
        return response
    response.read()
    response.close()
    return None


def _opens(client: httpx.Client, api: Api) -> bool:
    with open_stream(client, api) as response:
        return response.status_code == 200


def test_list_is_a_search_operator_the_stream_refuses(api: Api, author: User) -> None:
    # The platform's stream rules have no `list:` (search only, platform-facts 3.2).
    owner = new_user(api)
    list_id = make_list(api, owner, [author])
    response = api.post(RULES, json={"add": [{"value": f"list:{list_id}"}]}, conform=False)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["meta"]["summary"] == {"created": 0, "not_created": 1, "valid": 0, "invalid": 1}
    assert body["errors"][0]["details"][0] == "Reference to invalid operator 'list' (at position 1)."
