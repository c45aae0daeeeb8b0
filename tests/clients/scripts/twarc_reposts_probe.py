"""twarc 2's `retweeted_by` and `quotes` as a plain program talking to api.twitter.com (run under
`roost run`'s redirect by tests/clients/test_twarc_reposts.py). Prints the ids of each page."""

from __future__ import annotations

import json
import sys

from twarc.client2 import Twarc2


def main(bearer: str, tweet_id: str) -> None:
    twarc = Twarc2(bearer_token=bearer)
    out = {
        "retweeted_by": [
            [user["id"] for user in page.get("data", [])] for page in twarc.retweeted_by(tweet_id)
        ],
        "quotes": [[tweet["id"] for tweet in page.get("data", [])] for page in twarc.quotes(tweet_id)],
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
