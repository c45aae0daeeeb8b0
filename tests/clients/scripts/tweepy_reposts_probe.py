"""A plain tweepy program for reposts, quotes, hidden replies and the home timeline, run as a child
process by tests/clients/test_tweepy_reposts.py (under roost's redirect, like tweepy_probe.py).

Usage: python -W error::RuntimeWarning tweepy_reposts_probe.py PARAMS_JSON
Prints one JSON object: for each call, a description of what tweepy built or the exception.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tweepy_probe import attempt, make_client


def run(params: dict[str, Any]) -> dict[str, Any]:
    author = make_client({**params["author"], "auth": "oauth1"})
    fan = make_client({**params["fan"], "auth": "oauth1"})
    app = make_client({**params["author"], "auth": "bearer"})
    results: dict[str, Any] = {}
    stamp = params["stamp"]
    source = attempt(results, "create", lambda: author.create_tweet(text=f"tweepy source {stamp}"))
    if source is None:
        return results
    source_id = source.data["id"]
    attempt(results, "follow", lambda: fan.follow_user(params["author"]["user_id"]))
    attempt(results, "retweet", lambda: fan.retweet(source_id))
    attempt(results, "retweeters", lambda: app.get_retweeters(source_id))
    attempt(
        results, "quote", lambda: fan.create_tweet(text=f"tweepy quote {stamp}", quote_tweet_id=source_id)
    )
    attempt(results, "quotes", lambda: app.get_quote_tweets(source_id, tweet_fields=["referenced_tweets"]))
    reply = attempt(
        results,
        "reply",
        lambda: fan.create_tweet(text=f"tweepy reply {stamp}", in_reply_to_tweet_id=source_id),
    )
    if reply is not None:
        attempt(results, "hide", lambda: author.hide_reply(reply.data["id"]))
        attempt(results, "unhide", lambda: author.unhide_reply(reply.data["id"]))
        attempt(results, "hide_as_fan", lambda: fan.hide_reply(reply.data["id"]))
    attempt(
        results,
        "home",
        lambda: fan.get_home_timeline(tweet_fields=["referenced_tweets", "author_id"], max_results=10),
    )
    attempt(results, "home_no_replies", lambda: fan.get_home_timeline(exclude=["replies"]))
    attempt(results, "unretweet", lambda: fan.unretweet(source_id))
    attempt(results, "retweeters_after", lambda: app.get_retweeters(source_id))
    return results


def main() -> None:
    print(json.dumps(run(json.loads(sys.argv[1]))))


if __name__ == "__main__":
    main()
