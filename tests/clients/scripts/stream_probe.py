"""twarc 2 against the filtered stream, as a plain program talking to api.twitter.com (run under
`roost run`'s redirect by tests/clients/test_stream_clients.py): add a rule, list rules, read the
stream until the post made once connected arrives, delete the rule. Prints what twarc returned."""

from __future__ import annotations

import json
import sys
import threading

import requests
from twarc.client2 import Twarc2


def main(bearer: str, user_token: str, word: str) -> None:
    out: dict[str, object] = {}
    twarc = Twarc2(bearer_token=bearer)
    added = twarc.add_stream_rules([{"value": word, "tag": "twarc rule"}])
    out["added"] = added["data"]
    out["rules"] = [rule["value"] for rule in twarc.get_stream_rules().get("data", [])]
    stop = threading.Event()

    def post() -> None:
        requests.post(
            "https://api.twitter.com/2/tweets",
            json={"text": f"twarc sees {word}"},
            headers={"Authorization": f"Bearer {user_token}"},
            timeout=10,
        )

    threading.Timer(0.5, post).start()
    threading.Timer(30, stop.set).start()  # never hang the suite
    for item in twarc.stream(event=stop, expansions="author_id", user_fields="username"):
        if item.get("data"):
            out["tweet"] = {"id": item["data"]["id"], "text": item["data"]["text"]}
            out["matching_rules"] = item["matching_rules"]
            out["users"] = [user["username"] for user in item.get("includes", {}).get("users", [])]
            stop.set()
            break
    deleted = twarc.delete_stream_rule_ids([rule["id"] for rule in added["data"]])
    out["deleted"] = deleted["meta"]["summary"]
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
