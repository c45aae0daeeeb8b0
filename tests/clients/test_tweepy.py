"""tweepy 4.17 `Client` against roost, through the shipped `roost run` redirect.

Each scenario is a plain tweepy program (tests/clients/scripts/tweepy_probe.py) that talks to its
hard-coded https://api.twitter.com; the child runs under `redirect_env(server.base_url)` and with
`-W error::RuntimeWarning`, so a post without `edit_history_tweet_ids` fails the call. The program prints
what tweepy built (model classes and attributes) or the exception each call raised.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

import pytest
from tests.clients.helpers import Seed, raw_get, run_redirected_script
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients

SCRIPT = "tweepy_probe.py"
UNSUPPORTED_AUTH = (
    "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported "
    "authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context]."
)
TOO_LONG = (
    "Your Tweet text is too long. For more information on how X determines text length see "
    "https://github.com/twitter/twitter-text."
)
LOOKUP_PARAMS = {
    "tweet.fields": "attachments,author_id,conversation_id,created_at,edit_controls,entities,"
    "in_reply_to_user_id,lang,public_metrics,referenced_tweets,reply_settings",
    "expansions": "author_id,attachments.media_keys,referenced_tweets.id",
    "user.fields": "created_at,description,protected,public_metrics,verified",
    "media.fields": "type,url,width,height,preview_image_url,alt_text",
}


Reads = tuple[str, dict[str, Any]]  # (auth mode, what each call of the read scenario gave)


def as_datetime(value: str) -> str:
    """The isoformat tweepy's parse_datetime gives for a wire timestamp."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in result, json.dumps(result["error"], indent=1)
    return result


def error(result: dict[str, Any]) -> dict[str, Any]:
    assert "error" in result, f"expected an exception, tweepy returned {json.dumps(result)[:1500]}"
    return result["error"]


@pytest.fixture(scope="module", params=["bearer", "oauth1"])
def reads(
    request: pytest.FixtureRequest, server: LiveServer, credentials: dict[str, Any], seed: Seed
) -> Reads:
    """One run of the read scenario per auth mode; tests assert on the calls' recorded outcomes."""
    params = {
        "auth": request.param,
        **{key: credentials[key] for key in ("bearer_token", "consumer_key", "consumer_secret")},
        "access_token": credentials["access_token"],
        "access_token_secret": credentials["access_token_secret"],
        "tweet_id": seed.rich_post["id"],
        "tweet_ids": [seed.rich_post["id"], seed.referenced_id],
        "username": seed.username,
        "user_ids": [seed.user_id, seed.referenced_author_id],
        "user_id": seed.user_id,
    }
    return request.param, run_redirected_script(server.base_url, SCRIPT, "reads", json.dumps(params))


def check_tweet(described: dict[str, Any], raw: dict[str, Any]) -> None:
    """A tweepy Tweet built from `raw` (a wire post in the tweet vocabulary) carries its values."""
    assert described["class"] == "Tweet"
    assert described["id"] == int(raw["id"])
    assert described["text"] == raw["text"]
    assert described["edit_history_tweet_ids"] == [int(i) for i in raw["edit_history_tweet_ids"]]
    assert described["author_id"] == int(raw["author_id"])
    assert described["created_at"] == as_datetime(raw["created_at"])
    assert described["public_metrics"] == raw["public_metrics"]
    assert set(described["public_metrics"]) >= {"retweet_count", "reply_count", "like_count", "quote_count"}
    assert described["referenced_tweets"] == [
        {"class": "ReferencedTweet", "type": ref["type"], "id": int(ref["id"])}
        for ref in raw.get("referenced_tweets", [])
    ]
    assert described["attachments"] == raw.get("attachments")
    assert described["edit_controls"]["edits_remaining"] == raw["edit_controls"]["edits_remaining"]
    assert described["edit_controls"]["editable_until"] == as_datetime(raw["edit_controls"]["editable_until"])


def test_get_tweet_builds_tweet_and_includes(
    reads: Reads, server: LiveServer, credentials: dict[str, Any], seed: Seed
) -> None:
    _, results = reads
    got = ok(results["get_tweet"])
    raw = raw_get(
        server.base_url, credentials["bearer_token"], f"/2/tweets/{seed.rich_post['id']}", LOOKUP_PARAMS
    )
    check_tweet(got["data"], raw["data"])
    assert got["data"]["attachments"]["media_keys"] == seed.rich_post["attachments"]["media_keys"]
    assert got["data"]["referenced_tweets"][0]["id"] == int(seed.referenced_id)

    includes = got["includes"]
    assert sorted(includes) == ["media", "tweets", "users"]
    author = includes["users"][0]
    assert author["class"] == "User"
    assert (author["id"], author["username"]) == (int(seed.user_id), seed.username)
    assert author["created_at"] == as_datetime(raw["includes"]["users"][0]["created_at"])
    assert author["public_metrics"] == raw["includes"]["users"][0]["public_metrics"]
    media = includes["media"][0]
    assert media["class"] == "Media"
    assert media["media_key"] == seed.rich_post["attachments"]["media_keys"][0]
    assert media["type"] == raw["includes"]["media"][0]["type"]  # the seed decides which of the three
    assert media["type"] in {"photo", "video", "animated_gif"}
    assert (media["width"], media["height"]) == (
        raw["includes"]["media"][0]["width"],
        raw["includes"]["media"][0]["height"],
    )
    assert [tweet["class"] for tweet in includes["tweets"]] == ["Tweet"]
    assert includes["tweets"][0]["id"] == int(seed.referenced_id)
    assert includes["tweets"][0]["author_id"] == int(seed.referenced_author_id)
    assert got["errors"] == []


def test_get_tweets_keeps_request_order_and_expands_both_authors(
    reads: Reads, server: LiveServer, credentials: dict[str, Any], seed: Seed
) -> None:
    _, results = reads
    got = ok(results["get_tweets"])
    raw = raw_get(
        server.base_url,
        credentials["bearer_token"],
        "/2/tweets",
        {**LOOKUP_PARAMS, "ids": f"{seed.rich_post['id']},{seed.referenced_id}"},
    )
    assert [tweet["id"] for tweet in got["data"]] == [int(seed.rich_post["id"]), int(seed.referenced_id)]
    for described, wire in zip(got["data"], raw["data"], strict=True):
        check_tweet(described, wire)
    users = got["includes"]["users"]
    assert {user["class"] for user in users} == {"User"}
    assert {user["id"] for user in users} == {int(seed.user_id), int(seed.referenced_author_id)}
    assert {user["username"] for user in users} == {user["username"] for user in raw["includes"]["users"]}
    assert [media["class"] for media in got["includes"]["media"]] == ["Media"]


def test_get_user_and_get_users(
    reads: Reads, server: LiveServer, credentials: dict[str, Any], seed: Seed
) -> None:
    _, results = reads
    user = ok(results["get_user"])["data"]
    raw = raw_get(
        server.base_url,
        credentials["bearer_token"],
        f"/2/users/by/username/{seed.username}",
        {"user.fields": LOOKUP_PARAMS["user.fields"]},
    )["data"]
    assert user["class"] == "User"
    assert (user["id"], user["username"], user["name"]) == (int(seed.user_id), seed.username, raw["name"])
    assert user["created_at"] == as_datetime(raw["created_at"])
    assert user["description"] == raw["description"]
    assert user["protected"] is False
    # tweepy sends the tweet vocabulary, so the counter is tweet_count.
    assert user["public_metrics"]["tweet_count"] == raw["public_metrics"]["tweet_count"] > 0

    users = ok(results["get_users"])["data"]
    assert [(u["class"], u["id"]) for u in users] == [
        ("User", int(seed.user_id)),
        ("User", int(seed.referenced_author_id)),
    ]


def test_get_me_needs_user_context(reads: Reads, seed: Seed) -> None:
    mode, results = reads
    if mode == "oauth1":
        me = ok(results["get_me"])["data"]
        assert (me["class"], me["id"], me["username"]) == ("User", int(seed.user_id), seed.username)
    else:
        failure = error(results["get_me"])
        assert failure["exception"] == "tweepy.errors.Forbidden"
        assert failure["status"] == 403
        assert failure["api_messages"] == [UNSUPPORTED_AUTH]


def test_get_users_tweets_first_page(reads: Reads, seed: Seed) -> None:
    _, results = reads
    page = ok(results["get_users_tweets"])
    assert [tweet["id"] for tweet in page["data"]] == [int(i) for i in seed.timeline_ids[:5]]
    assert all(tweet["created_at"] is not None for tweet in page["data"])
    assert all(tweet["edit_history_tweet_ids"] == [tweet["id"]] for tweet in page["data"])
    meta = page["meta"]
    assert meta["result_count"] == 5
    assert (meta["newest_id"], meta["oldest_id"]) == (seed.timeline_ids[0], seed.timeline_ids[4])
    assert meta["next_token"]


def test_paginator_flatten_walks_pages_in_order(reads: Reads, seed: Seed) -> None:
    _, results = reads
    ids = results["paginator"]
    assert isinstance(ids, list), ids  # else the recorded exception
    assert len(ids) == 23
    assert len(set(ids)) == 23
    assert ids == sorted(ids, reverse=True)
    assert ids == [int(i) for i in seed.timeline_ids[:23]]


def test_get_users_mentions(reads: Reads, seed: Seed) -> None:
    _, results = reads
    page = ok(results["get_users_mentions"])
    assert seed.mention_ids, "the demo user is mentioned in the seed"
    assert [tweet["id"] for tweet in page["data"]] == [int(i) for i in seed.mention_ids]
    assert all(f"@{seed.username}".lower() in tweet["text"].lower() for tweet in page["data"])
    assert {user["class"] for user in page["includes"]["users"]} == {"User"}
    assert page["meta"]["result_count"] == len(seed.mention_ids)


def test_expansion_puts_the_expanded_id_in_data(reads: Reads) -> None:
    # Platform: GET /2/tweets/:id?expansions=author_id → data has author_id linking to includes.users
    # (docs.x.com/x-api/fundamentals/expansions). tweepy programs map includes by tweet.author_id.
    _, results = reads
    page = ok(results["get_users_mentions"])
    authors = {user["id"] for user in page["includes"]["users"]}
    assert all(tweet["author_id"] in authors for tweet in page["data"])


def test_write_cycle_create_reply_quote_edit_delete(
    server: LiveServer, credentials: dict[str, Any], make_user: Any
) -> None:
    user = make_user(premium=True)  # editing needs a subscription
    stamp = uuid.uuid4().hex[:10]
    params = {
        "consumer_key": credentials["consumer_key"],
        "consumer_secret": credentials["consumer_secret"],
        "access_token": user["token"],
        "access_token_secret": user["secret"],
        "stamp": stamp,
    }
    results = run_redirected_script(server.base_url, SCRIPT, "writes", json.dumps(params))

    created = ok(results["create"])["data"]["raw"]
    original = created["id"]
    assert created["text"] == f"tweepy says hello {stamp}"
    assert original.isdigit() and created["edit_history_tweet_ids"] == [original]

    reply = ok(results["get_reply"])["data"]
    assert reply["text"] == f"tweepy reply {stamp}"
    assert reply["referenced_tweets"] == [
        {"class": "ReferencedTweet", "type": "replied_to", "id": int(original)}
    ]
    assert reply["in_reply_to_user_id"] == int(user["id"])
    assert reply["conversation_id"] == int(original)
    assert reply["author_id"] == int(user["id"])
    assert [t["id"] for t in ok(results["get_reply"])["includes"]["tweets"]] == [int(original)]

    quote = ok(results["get_quote"])["data"]
    assert quote["referenced_tweets"] == [{"class": "ReferencedTweet", "type": "quoted", "id": int(original)}]
    assert quote["conversation_id"] == quote["id"]

    edit = ok(results["edit"])["raw"]["data"]
    edited = edit["id"]
    assert edited != original
    assert edit["text"] == f"tweepy says hello, edited {stamp}"
    assert edit["edit_history_tweet_ids"] == [original, edited]
    latest = ok(results["get_edited"])["data"]
    assert latest["edit_history_tweet_ids"] == [int(original), int(edited)]
    assert latest["edit_controls"]["edits_remaining"] == 4
    assert latest["author_id"] == int(user["id"])
    # The superseded version still resolves by id, with the whole history.
    assert ok(results["get_original"])["data"]["edit_history_tweet_ids"] == [int(original), int(edited)]

    assert ok(results["delete"])["data"]["raw"] == {"deleted": True}
    gone = ok(results["get_deleted"])
    assert gone["data"] is None
    assert gone["errors"][0]["detail"] == f"Could not find tweet with id: [{edited}]."
    assert gone["errors"][0]["type"].endswith("/resource-not-found")
    again = error(results["delete_again"])
    assert (again["exception"], again["status"]) == ("tweepy.errors.NotFound", 404)


def test_errors_map_to_tweepy_exceptions(
    server: LiveServer, credentials: dict[str, Any], make_user: Any, seed: Seed
) -> None:
    user = make_user()  # no subscription: 280 weighted characters at most
    params = {
        "bearer_token": credentials["bearer_token"],
        "consumer_key": credentials["consumer_key"],
        "consumer_secret": credentials["consumer_secret"],
        "access_token": user["token"],
        "access_token_secret": user["secret"],
        "tweet_id": seed.rich_post["id"],
    }
    results = run_redirected_script(server.base_url, SCRIPT, "errors", json.dumps(params))

    unauthorized = error(results["bad_bearer"])
    assert (unauthorized["exception"], unauthorized["status"]) == ("tweepy.errors.Unauthorized", 401)
    assert unauthorized["message"] == "401 Unauthorized\nUnauthorized"

    app_only = error(results["bearer_create"])
    assert (app_only["exception"], app_only["status"]) == ("tweepy.errors.Forbidden", 403)
    assert app_only["message"] == f"403 Forbidden\n{UNSUPPORTED_AUTH}"

    invalid = error(results["invalid_id"])
    assert (invalid["exception"], invalid["status"]) == ("tweepy.errors.BadRequest", 400)
    assert invalid["api_messages"] == ["The `id` query parameter value [abc] does not match ^[0-9]{1,19}$"]

    too_long = error(results["too_long"])
    assert (too_long["exception"], too_long["status"]) == ("tweepy.errors.Forbidden", 403)
    assert too_long["message"] == f"403 Forbidden\n{TOO_LONG}"
