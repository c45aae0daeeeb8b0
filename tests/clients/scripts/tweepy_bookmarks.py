"""tweepy 4.17 `Client` bookmarks, run as a plain program under `roost run`'s redirect.

argv[1] is a JSON object: token (an OAuth 2.0 user token), tweet_ids (two posts to bookmark).
tweepy asks `GET /2/users/me` for the user id before each bookmark call. Prints JSON with what each
call gave (ids, flags) or the exception it raised.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import tweepy


def attempt(results: dict[str, Any], name: str, call: Callable[[], Any]) -> None:
    try:
        results[name] = call()
    except Exception as exc:  # recorded for the test to assert on
        results[name] = {"error": type(exc).__name__, "message": str(exc)}


def main() -> None:
    params = json.loads(sys.argv[1])
    client = tweepy.Client(params["token"])
    first, second = params["tweet_ids"]
    results: dict[str, Any] = {}
    attempt(results, "bookmark_first", lambda: client.bookmark(first).data)
    attempt(results, "bookmark_second", lambda: client.bookmark(second).data)
    attempt(
        results,
        "get_bookmarks",
        lambda: (
            lambda response: {
                "ids": [str(tweet.id) for tweet in response.data],
                "bookmark_counts": [tweet.public_metrics["bookmark_count"] for tweet in response.data],
                "meta": response.meta,
            }
        )(client.get_bookmarks(max_results=10, tweet_fields=["public_metrics"])),
    )
    attempt(
        results,
        "paginated",
        lambda: [
            str(tweet.id) for tweet in tweepy.Paginator(client.get_bookmarks, max_results=1).flatten(limit=5)
        ],
    )
    attempt(results, "remove_first", lambda: client.remove_bookmark(first).data)
    attempt(results, "after_remove", lambda: [str(tweet.id) for tweet in client.get_bookmarks().data])
    app = tweepy.Client(params["bearer_token"])
    attempt(results, "app_only", lambda: app.get_bookmarks().data)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
