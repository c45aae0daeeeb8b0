"""Search and counts through tweepy and twarc, as plain programs talking to api.twitter.com (run under
`roost run`'s redirect by tests/clients/test_search_clients.py). Prints what each client returned."""

from __future__ import annotations

import json
import sys

import tweepy
from twarc.client2 import Twarc2


def main(bearer: str, word: str) -> None:
    out: dict[str, object] = {}
    client = tweepy.Client(bearer_token=bearer)
    pages = list(tweepy.Paginator(client.search_recent_tweets, query=word, max_results=10))
    out["tweepy_recent"] = [[t.id for t in page.data or []] for page in pages]
    out["tweepy_recent_meta"] = [page.meta for page in pages]
    pages = list(
        tweepy.Paginator(
            client.search_all_tweets, query=word, max_results=10, start_time="2006-03-21T00:00:00Z"
        )
    )
    out["tweepy_all"] = [[t.id for t in page.data or []] for page in pages]
    counts = client.get_recent_tweets_count(word, granularity="day")
    out["tweepy_counts"] = {"total": counts.meta["total_tweet_count"], "buckets": len(counts.data)}
    twarc = Twarc2(bearer_token=bearer)
    out["twarc_recent"] = [
        [t["id"] for t in page.get("data", [])] for page in twarc.search_recent(word, max_results=10)
    ]
    out["twarc_counts"] = [
        page["meta"]["total_tweet_count"] for page in twarc.counts_recent(word, granularity="day")
    ]
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
