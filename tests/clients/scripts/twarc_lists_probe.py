"""twarc 2's list reads as a plain program talking to api.twitter.com (run under `roost run`'s
redirect by tests/clients/test_twarc_lists.py). Prints what each call returned.

Usage: python twarc_lists_probe.py PARAMS_JSON
"""

from __future__ import annotations

import json
import sys
from typing import Any

from twarc.client2 import Twarc2


def ids(pages: Any) -> list[list[str]]:
    return [[item["id"] for item in page.get("data", [])] for page in pages]


def main(params: dict[str, Any]) -> None:
    app = Twarc2(bearer_token=params["bearer_token"])
    user = Twarc2(
        consumer_key=params["consumer_key"],
        consumer_secret=params["consumer_secret"],
        access_token=params["access_token"],
        access_token_secret=params["access_token_secret"],
    )
    list_id, owner_id, member_id = params["list_id"], params["owner_id"], params["member_id"]
    out: dict[str, Any] = {
        "lookup": app.list_lookup(list_id, expansions=True),
        "members": ids(app.list_members(list_id, max_results=1)),
        "followers": ids(app.list_followers(list_id)),
        "tweets": ids(app.list_tweets(list_id, max_results=2)),
        "owned": ids(app.owned_lists(owner_id)),
        "memberships": ids(app.list_memberships(member_id)),
        "followed": ids(app.followed_lists(params["fan_id"])),
        "pinned": ids(user.pinned_lists(owner_id)),
    }
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
