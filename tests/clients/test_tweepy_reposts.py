"""tweepy 4.17 `Client` reposts, quotes, hidden replies and the home timeline against roost, through
the shipped redirect (the program is tests/clients/scripts/tweepy_reposts_probe.py)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in result, json.dumps(result["error"], indent=1)
    return result


def test_repost_quote_hide_and_home_timeline(
    server: LiveServer, credentials: dict[str, Any], make_user: Any
) -> None:
    author, fan = make_user(), make_user()
    keys = {key: credentials[key] for key in ("bearer_token", "consumer_key", "consumer_secret")}
    stamp = uuid.uuid4().hex[:10]
    params = {
        "stamp": stamp,
        "author": {
            **keys,
            "access_token": author["token"],
            "access_token_secret": author["secret"],
            "user_id": author["id"],
        },
        "fan": {**keys, "access_token": fan["token"], "access_token_secret": fan["secret"]},
    }
    results = run_redirected_script(server.base_url, "tweepy_reposts_probe.py", json.dumps(params))

    source = ok(results["create"])["data"]["raw"]["id"]
    retweeted = ok(results["retweet"])["data"]["raw"]
    assert retweeted["retweeted"] is True and retweeted["rest_id"].isdigit()
    retweeters = ok(results["retweeters"])
    assert [user["id"] for user in retweeters["data"]] == [int(fan["id"])]
    assert retweeters["meta"] == {"result_count": 1}

    quote = ok(results["quote"])["data"]["raw"]["id"]
    quotes = ok(results["quotes"])
    assert [tweet["id"] for tweet in quotes["data"]] == [int(quote)]
    assert quotes["data"][0]["referenced_tweets"] == [
        {"class": "ReferencedTweet", "type": "quoted", "id": int(source)}
    ]

    assert ok(results["hide"])["data"]["raw"] == {"hidden": True}
    assert ok(results["unhide"])["data"]["raw"] == {"hidden": False}
    refused = results["hide_as_fan"]["error"]
    assert (refused["exception"], refused["status"]) == ("tweepy.errors.Forbidden", 403)

    home = ok(results["home"])["data"]
    reply = ok(results["reply"])["data"]["raw"]["id"]
    repost = retweeted["rest_id"]
    assert [tweet["id"] for tweet in home] == [int(reply), int(quote), int(repost), int(source)]
    assert home[2]["referenced_tweets"] == [
        {"class": "ReferencedTweet", "type": "retweeted", "id": int(source)}
    ]
    assert home[3]["author_id"] == int(author["id"])
    assert [tweet["id"] for tweet in ok(results["home_no_replies"])["data"]] == [
        int(quote),
        int(repost),
        int(source),
    ]

    assert ok(results["unretweet"])["data"]["raw"] == {"retweeted": False}
    after = ok(results["retweeters_after"])
    assert after["data"] is None and after["meta"] == {"result_count": 0}
