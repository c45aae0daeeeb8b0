"""Reposts and quote posts over v2: the repost post, counters, undo, the reads, visibility, search,
streams and the events (account activity, activity events, compliance)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from tests.api.helpers import (
    PROBLEMS,
    User,
    bearer,
    create_ok,
    invalid_request,
    lookup,
    new_user,
    not_found_item,
    unique_text,
    user_view,
)
from tests.api.streams.stream_support import finite, now_iso, window
from tests.api.webhooks.helpers import wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

from roost.core import jsonio
from roost.events.selectors import partition_of

NOT_PERMITTED = {
    "detail": "You are not permitted to perform this action.",
    "type": "about:blank",
    "title": "Forbidden",
    "status": 403,
}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    # Searches see posts at once; a few webhooks for the event tests.
    extra = {"search_default_end_lag_s": "0", "webhook_limit": "10", "stream_keepalive_s": "0.5"}
    live = LiveServer(tag="reposts", rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture()
def receiver(credentials: dict[str, Any]) -> Iterator[Receiver]:
    live = Receiver(credentials["consumer_secret"])
    yield live
    live.close()


def repost(api: Api, user: User, post_id: str, as_user: User | None = None) -> httpx.Response:
    return api.post(
        f"/2/users/{user['id']}/retweets",
        auth="none",
        headers=bearer(as_user or user),
        json={"tweet_id": post_id},
    )


def repost_ok(api: Api, user: User, post_id: str) -> str:
    response = repost(api, user, post_id)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"]["retweeted"] is True
    rest_id: str = body["data"]["rest_id"]
    return rest_id


def unrepost(api: Api, user: User, post_id: str) -> httpx.Response:
    return api.delete(f"/2/users/{user['id']}/retweets/{post_id}", auth="none", headers=bearer(user))


def get(api: Api, path: str, user: User | None = None, **params: str) -> dict[str, Any]:
    if user is None:
        response = api.get(path, params=params)
    else:
        response = api.get(path, auth="none", headers=bearer(user), params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def ids(body: dict[str, Any]) -> list[str]:
    return [item["id"] for item in body.get("data", [])]


def metrics(api: Api, post_id: str) -> dict[str, int]:
    found: dict[str, int] = lookup(api, post_id, **{"tweet.fields": "public_metrics"})["data"][
        "public_metrics"
    ]
    return found


def logged(server: LiveServer, object_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    services = server.app.server.stores  # type: ignore[union-attr]
    rows = server.run(services.events.after(0, 1_000_000))
    return [
        (row["kind"], str(row["user_id"]), jsonio.loads(row["payload"]))
        for row in rows
        if str(row["object_id"]) == object_id
    ]


# ---- create and undo ----------------------------------------------------------------------------


def test_repost_is_a_post_counted_on_its_source_and_undone(api: Api, server: LiveServer) -> None:
    author, fan = new_user(api), new_user(api)
    source = create_ok(api, author, text="worth sharing")
    repost_id = repost_ok(api, fan, source["id"])

    shown = lookup(api, repost_id, **{"tweet.fields": "author_id,referenced_tweets,entities"})["data"]
    assert shown["text"] == f"RT @{author['username']}: worth sharing"
    assert shown["author_id"] == fan["id"]
    assert shown["referenced_tweets"] == [{"type": "retweeted", "id": source["id"]}]
    assert shown["entities"]["mentions"] == [
        {"start": 3, "end": 4 + len(author["username"]), "username": author["username"], "id": author["id"]}
    ]
    assert metrics(api, source["id"])["retweet_count"] == 1
    view = user_view(api, fan["id"])
    assert view["public_metrics"]["tweet_count"] == 1
    assert view["most_recent_tweet_id"] == repost_id

    # Reposting again answers the same repost: no second post, no second event.
    assert repost(api, fan, source["id"]).json() == {"data": {"retweeted": True, "rest_id": repost_id}}
    assert metrics(api, source["id"])["retweet_count"] == 1

    response = unrepost(api, fan, source["id"])
    assert response.status_code == 200
    assert response.json() == {"data": {"retweeted": False}}
    assert unrepost(api, fan, source["id"]).json() == {"data": {"retweeted": False}}
    assert metrics(api, source["id"])["retweet_count"] == 0
    assert user_view(api, fan["id"])["public_metrics"]["tweet_count"] == 0
    gone = lookup(api, repost_id)
    assert gone["errors"] == [not_found_item("tweet", "id", repost_id)]

    payload = {"post_id": repost_id, "author_id": fan["id"], "reposted_post_id": source["id"]}
    assert logged(server, repost_id) == [
        ("post.create", fan["id"], payload),
        ("post.delete", fan["id"], payload),
    ]

    # Undone, it can be made again: a new repost post.
    again = repost_ok(api, fan, source["id"])
    assert again != repost_id
    assert metrics(api, source["id"])["retweet_count"] == 1


def test_deleting_the_source_deletes_its_reposts(api: Api, server: LiveServer) -> None:
    author, fan = new_user(api), new_user(api)
    source = create_ok(api, author)
    repost_id = repost_ok(api, fan, source["id"])
    response = api.delete(f"/2/tweets/{source['id']}", auth="none", headers=bearer(author))
    assert response.status_code == 200, response.text
    assert lookup(api, repost_id)["errors"] == [not_found_item("tweet", "id", repost_id)]
    assert user_view(api, fan["id"])["public_metrics"]["tweet_count"] == 0
    assert [kind for kind, _, _ in logged(server, repost_id)] == ["post.create", "post.delete"]
    assert unrepost(api, fan, source["id"]).json() == {"data": {"retweeted": False}}


def test_repost_text_is_cut_as_the_platform_cuts_it(api: Api) -> None:
    author, fan = new_user(api), new_user(api)
    text = "long " + "word " * 50 + unique_text()
    source = create_ok(api, author, text=text)
    shown = lookup(api, repost_ok(api, fan, source["id"]))["data"]
    full = f"RT @{author['username']}: {text}"
    assert len(shown["text"]) == 140
    assert shown["text"] == full[:139] + "…"


def test_reposting_a_repost_reposts_its_source(api: Api) -> None:
    author, first, second = new_user(api), new_user(api), new_user(api)
    source = create_ok(api, author)
    first_repost = repost_ok(api, first, source["id"])
    second_repost = repost_ok(api, second, first_repost)
    shown = lookup(api, second_repost, **{"tweet.fields": "referenced_tweets"})["data"]
    assert shown["referenced_tweets"] == [{"type": "retweeted", "id": source["id"]}]
    assert metrics(api, source["id"])["retweet_count"] == 2
    assert metrics(api, first_repost)["retweet_count"] == 0


def test_repost_errors(api: Api, server: LiveServer) -> None:
    author, fan = new_user(api), new_user(api)
    source = create_ok(api, author)
    response = repost(api, author, source["id"], as_user=fan)
    assert response.status_code == 403
    assert response.json() == NOT_PERMITTED
    response = api.delete(
        f"/2/users/{author['id']}/retweets/{source['id']}", auth="none", headers=bearer(fan)
    )
    assert response.status_code == 403

    response = repost(api, fan, "1")
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {"parameters": {"tweet_id": ["1"]}, "message": "Could not find tweet with tweet_id: [1]."}
    )
    response = api.post(f"/2/users/{fan['id']}/retweets", auth="none", headers=bearer(fan), json={})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameters": {}, "message": "$.tweet_id: is missing but it is required"}
    ]

    # Posts of a protected account cannot be reposted: not by a stranger, not by a follower.
    private = new_user(api, protected=True)
    secret = create_ok(api, private)
    follower = new_user(api)
    followed = api.http.post(
        "/_roost/follows", json={"follower_id": follower["id"], "followee_id": private["id"]}
    )
    assert followed.status_code == 201, followed.text
    for who in (fan, follower):
        response = repost(api, who, secret["id"])
        assert response.status_code == 403
        assert response.json() == {
            "detail": "Retweet is not permissible for this status.",
            "type": "about:blank",
            "title": "Forbidden",
            "status": 403,
        }
    assert logged(server, secret["id"]) == [
        ("post.create", private["id"], {"post_id": secret["id"], "author_id": private["id"]})
    ]

    # An app-only token cannot repost.
    response = api.post(f"/2/users/{fan['id']}/retweets", json={"tweet_id": source["id"]})
    assert response.status_code == 403
    assert response.json()["type"] == PROBLEMS + "unsupported-authentication"


# ---- reads --------------------------------------------------------------------------------------


def test_reposted_by_and_reposts_newest_first(api: Api) -> None:
    author = new_user(api)
    source = create_ok(api, author)
    fans = [new_user(api) for _ in range(3)]
    reposts = [repost_ok(api, fan, source["id"]) for fan in fans]

    body = get(api, f"/2/tweets/{source['id']}/retweeted_by")
    assert ids(body) == [fan["id"] for fan in reversed(fans)]
    assert body["meta"] == {"result_count": 3}
    page = get(api, f"/2/tweets/{source['id']}/retweeted_by", max_results="2")
    assert ids(page) == [fans[2]["id"], fans[1]["id"]]
    rest = get(api, f"/2/tweets/{source['id']}/retweeted_by", pagination_token=page["meta"]["next_token"])
    assert ids(rest) == [fans[0]["id"]]

    body = get(
        api,
        f"/2/tweets/{source['id']}/retweets",
        **{"tweet.fields": "referenced_tweets", "expansions": "referenced_tweets.id"},
    )
    assert ids(body) == list(reversed(reposts))
    assert all(
        item["referenced_tweets"] == [{"type": "retweeted", "id": source["id"]}] for item in body["data"]
    )
    assert [tweet["id"] for tweet in body["includes"]["tweets"]] == [source["id"]]

    # reposts_of_me: the author's view of every repost of their posts (user context only).
    mine = get(api, "/2/users/reposts_of_me", author)
    assert ids(mine) == list(reversed(reposts))
    response = api.get("/2/users/reposts_of_me")
    assert response.status_code == 403

    # An undone repost leaves every list.
    assert unrepost(api, fans[1], source["id"]).status_code == 200
    assert ids(get(api, f"/2/tweets/{source['id']}/retweeted_by")) == [fans[2]["id"], fans[0]["id"]]
    assert ids(get(api, "/2/users/reposts_of_me", author)) == [reposts[2], reposts[0]]


def test_reads_of_unknown_and_hidden_posts(api: Api) -> None:
    for path in ("retweeted_by", "retweets", "quote_tweets"):
        body = get(api, f"/2/tweets/1/{path}")
        assert body == {"errors": [not_found_item("tweet", "id", "1")]}
    private = new_user(api, protected=True)
    secret = create_ok(api, private)
    body = get(api, f"/2/tweets/{secret['id']}/retweeted_by")
    assert [error["type"] for error in body["errors"]] == [PROBLEMS + "not-authorized-for-resource"]
    assert "data" not in body


def test_reposts_by_protected_accounts_are_seen_by_their_followers(api: Api) -> None:
    author, private, follower = new_user(api), new_user(api, protected=True), new_user(api)
    followed = api.http.post(
        "/_roost/follows", json={"follower_id": follower["id"], "followee_id": private["id"]}
    )
    assert followed.status_code == 201, followed.text
    source = create_ok(api, author)
    public_repost = repost_ok(api, new_user(api), source["id"])
    private_repost = repost_ok(api, private, source["id"])
    path = f"/2/tweets/{source['id']}/retweets"
    assert ids(get(api, path)) == [public_repost]  # app-only: no follower of anyone
    assert ids(get(api, path, author)) == [public_repost]
    assert ids(get(api, path, follower)) == [private_repost, public_repost]
    assert ids(get(api, path, private)) == [private_repost, public_repost]
    # The reposting user is listed either way: users are public.
    assert len(get(api, f"/2/tweets/{source['id']}/retweeted_by")["data"]) == 2


def test_quote_tweets(api: Api) -> None:
    author, quoter = new_user(api), new_user(api)
    source = create_ok(api, author)
    quotes = [create_ok(api, quoter, quote_tweet_id=source["id"])["id"] for _ in range(11)]
    parent = create_ok(api, author)
    reply_quote = create_ok(
        api, quoter, quote_tweet_id=source["id"], reply={"in_reply_to_tweet_id": parent["id"]}
    )
    repost_ok(api, quoter, source["id"])  # a repost is not a quote

    first = get(api, f"/2/tweets/{source['id']}/quote_tweets")
    assert ids(first) == [reply_quote["id"], *reversed(quotes[2:])]
    assert set(first["meta"]) == {"result_count", "next_token"}
    assert first["meta"]["result_count"] == 10
    second = get(api, f"/2/tweets/{source['id']}/quote_tweets", pagination_token=first["meta"]["next_token"])
    assert ids(second) == [quotes[1], quotes[0]]
    assert second["meta"] == {"result_count": 2}
    without = get(api, f"/2/tweets/{source['id']}/quote_tweets", exclude="replies", max_results="100")
    assert ids(without) == list(reversed(quotes))
    assert metrics(api, source["id"])["quote_count"] == 12

    response = api.get(f"/2/tweets/{source['id']}/quote_tweets", params={"max_results": "5"})
    assert response.status_code == 400


# ---- where reposts show ---------------------------------------------------------------------------


def test_reposts_in_timelines_and_search(api: Api) -> None:
    """Keyword searches leave reposts out: the platform's changelog entry of 2026-05-04 ("reposts no
    longer returned by keyword search", recorded in docs/search.md); structured queries still find them."""
    author, fan = new_user(api), new_user(api)
    word = unique_text("shared").split()[1]
    source = create_ok(api, author, text=f"original {word}")
    repost_id = repost_ok(api, fan, source["id"])

    assert ids(get(api, f"/2/users/{fan['id']}/tweets")) == [repost_id]
    assert ids(get(api, f"/2/users/{fan['id']}/tweets", exclude="retweets")) == []

    recent = "/2/tweets/search/recent"
    assert ids(get(api, recent, query=word)) == [source["id"]]
    assert ids(get(api, recent, query=f"retweets_of:{author['username']}")) == [repost_id]
    assert ids(get(api, recent, query=f"is:retweet from:{fan['username']}")) == [repost_id]
    assert ids(get(api, recent, query=f"retweets_of_tweet_id:{source['id']}")) == [repost_id]
    assert ids(get(api, recent, query=f"from:{fan['username']} -is:retweet")) == []


def test_undo_is_a_compliance_delete(api: Api, server: LiveServer) -> None:
    author, fan = new_user(api), new_user(api)
    source = create_ok(api, author)
    repost_id = repost_ok(api, fan, source["id"])
    start = now_iso(server)
    assert unrepost(api, fan, source["id"]).status_code == 200
    path = "/2/tweets/compliance/stream"
    lines = finite(server, api, path, partition=str(partition_of(int(repost_id), 4)), **window(server, start))
    deletes = [line["data"]["delete"]["tweet"] for line in lines if "delete" in line.get("data", {})]
    assert {"id": repost_id, "author_id": fan["id"]} in deletes


def test_reposts_on_the_firehose(api: Api, server: LiveServer) -> None:
    author, fan = new_user(api), new_user(api)
    source = create_ok(api, author)
    start = now_iso(server)
    repost_id = repost_ok(api, fan, source["id"])
    span = window(server, start)
    lines = finite(
        server,
        api,
        "/2/tweets/firehose/stream",
        partition=str(partition_of(int(repost_id), 20)),
        **{"tweet.fields": "referenced_tweets"},
        **span,
    )
    [line] = [line for line in lines if line.get("data", {}).get("id") == repost_id]
    assert line["data"]["referenced_tweets"] == [{"type": "retweeted", "id": source["id"]}]


def test_filtered_stream_operators_match_real_reposts(api: Api, server: LiveServer) -> None:
    author, fan = new_user(api), new_user(api)
    source = create_ok(api, author)
    rules = "/2/tweets/search/stream/rules"
    values = [
        f"retweets_of:{author['username']}",
        f"retweets_of_tweet_id:{source['id']}",
        f"is:retweet from:{fan['username']}",
        f"from:{fan['username']} -is:retweet",
    ]
    added = api.post(rules, json={"add": [{"value": value} for value in values]}, conform=False)
    assert added.status_code == 201, added.text
    rule_ids = {rule["value"]: rule["id"] for rule in added.json()["data"]}
    try:
        repost_id = repost_ok(api, fan, source["id"])
        with (
            httpx.Client(base_url=server.base_url, timeout=10) as client,
            client.stream(
                "GET", "/2/tweets/search/stream", params={"backfill_minutes": "2"}, headers=api.bearer()
            ) as response,
        ):
            assert response.status_code == 200
            buffer = b""
            for chunk in response.iter_bytes():
                buffer += chunk
                if b"\r\n" in buffer.lstrip(b"\r\n"):
                    break
            line = json.loads(next(part for part in buffer.split(b"\r\n") if part.strip()))
        assert line["data"]["id"] == repost_id
        matched = {rule["id"] for rule in line["matching_rules"]}
        assert matched == {rule_ids[value] for value in values[:3]}
    finally:
        api.post(rules, json={"delete": {"ids": list(rule_ids.values())}}, conform=False)


# ---- events -------------------------------------------------------------------------------------


def _hook(api: Api, receiver: Receiver) -> dict[str, Any]:
    response = api.post("/2/webhooks", json={"url": receiver.url()}, conform=False)
    assert response.status_code == 200, response.text
    hook: dict[str, Any] = response.json()["data"]
    return hook


def _envelopes(receiver: Receiver, hook: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(post["raw"]) for post in receiver.received(urlsplit(hook["url"]).path)]


def test_account_activity_of_a_repost_and_its_undo(api: Api, receiver: Receiver) -> None:
    hook = _hook(api, receiver)
    try:
        author, fan = new_user(api), new_user(api)
        for user in (author, fan):
            path = f"/2/account_activity/webhooks/{hook['id']}/subscriptions/all"
            response = api.post(path, auth="none", headers=bearer(user), json={})
            assert response.status_code == 200, response.text
        source = create_ok(api, author, text="to be reposted")
        repost_id = repost_ok(api, fan, source["id"])

        def created_for(user: User) -> list[dict[str, Any]]:
            return [
                status
                for envelope in _envelopes(receiver, hook)
                if envelope.get("for_user_id") == user["id"]
                for status in envelope.get("tweet_create_events", [])
                if status["id_str"] == repost_id
            ]

        for user in (fan, author):  # the reposter, and the author whose post was reposted
            [status] = wait_for(lambda user=user: created_for(user))
            assert status["text"] == f"RT @{author['username']}: to be reposted"
            assert status["user"]["id_str"] == fan["id"]
            assert status["retweeted_status"]["id_str"] == source["id"]
            assert status["retweeted_status"]["text"] == "to be reposted"
            assert status["retweeted_status"]["user"]["id_str"] == author["id"]

        assert unrepost(api, fan, source["id"]).status_code == 200

        def deleted() -> list[dict[str, Any]]:
            return [
                item
                for envelope in _envelopes(receiver, hook)
                if envelope.get("for_user_id") == fan["id"]
                for item in envelope.get("tweet_delete_events", [])
            ]

        [item] = wait_for(deleted)
        assert item["status"] == {"id": repost_id, "user_id": fan["id"]}
    finally:
        api.delete(f"/2/webhooks/{hook['id']}")


def test_activity_events_of_a_repost(api: Api, receiver: Receiver) -> None:
    hook = _hook(api, receiver)
    subs: list[str] = []
    try:
        author, fan = new_user(api), new_user(api)
        for event_type in ("post.create", "post.delete", "post.repost.create"):
            response = api.post(
                "/2/activity/subscriptions",
                json={"event_type": event_type, "filter": {"user_id": fan["id"]}, "webhook_id": hook["id"]},
                conform=False,
            )
            assert response.status_code == 200, response.text
            subs.append(response.json()["data"]["subscription"]["subscription_id"])
        source = create_ok(api, author)
        create_ok(api, fan)  # a post of the fan's own: post.create only, no post.repost.create
        repost_id = repost_ok(api, fan, source["id"])
        assert unrepost(api, fan, source["id"]).status_code == 200

        def events() -> list[tuple[str, dict[str, Any]]]:
            found = [(e["data"]["event_type"], e["data"]["payload"]) for e in _envelopes(receiver, hook)]
            return found if len(found) == 4 else []

        received = wait_for(events)
        assert sorted(kind for kind, _ in received) == [
            "post.create",
            "post.create",
            "post.delete",
            "post.repost.create",
        ]
        payloads = {kind: payload for kind, payload in received if payload.get("id") == repost_id}
        assert payloads["post.repost.create"] == payloads["post.create"]
        created = payloads["post.create"]
        assert created["id"] == repost_id and created["author_id"] == fan["id"]
        assert created["referenced_tweets"] == [{"type": "retweeted", "id": source["id"]}]
        assert created["text"].startswith(f"RT @{author['username']}: ")
        assert payloads["post.delete"] == {"id": repost_id, "author_id": fan["id"]}
    finally:
        if subs:
            api.delete("/2/activity/subscriptions", params={"ids": ",".join(subs)}, conform=False)
        api.delete(f"/2/webhooks/{hook['id']}")


# ---- demo data ----------------------------------------------------------------------------------


def test_demo_data_answers_every_read(api: Api, credentials: dict[str, Any]) -> None:
    owner = credentials["user_id"]
    mine = api.get("/2/users/reposts_of_me", auth="oauth1", params={"tweet.fields": "referenced_tweets"})
    assert mine.status_code == 200, mine.text
    reposts = mine.json()["data"]
    assert len(reposts) >= 1
    source = reposts[0]["referenced_tweets"][0]["id"]
    assert get(api, f"/2/tweets/{source}/retweeted_by")["meta"]["result_count"] >= 1
    assert get(api, f"/2/tweets/{source}/retweets")["meta"]["result_count"] >= 1

    path = f"/2/users/{owner}/timelines/reverse_chronological"
    home = api.get(path, auth="oauth1", params={"tweet.fields": "referenced_tweets", "max_results": "100"})
    assert home.status_code == 200, home.text
    kinds = {ref["type"] for item in home.json()["data"] for ref in item.get("referenced_tweets", [])}
    assert "retweeted" in kinds

    exported = api.http.get("/_roost/export").json()
    quoted = next(
        ref["id"]
        for post in exported["tweets"]
        for ref in post.get("referenced_tweets", [])
        if ref["type"] == "quoted"
    )
    assert get(api, f"/2/tweets/{quoted}/quote_tweets")["meta"]["result_count"] >= 1
    assert len(exported["hidden_replies"]) == 1
