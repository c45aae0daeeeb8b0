"""A plain requests-oauthlib program, run as a child process by tests/clients/test_requests_oauthlib.py.

It signs its calls for the platform's public hosts (https://api.twitter.com and https://api.x.com); the
test runs it under roost's redirect, so the signatures are computed over the public URLs.

Usage: python oauthlib_probe.py PARAMS_JSON    Prints one JSON object with each call's status and body.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import requests
from requests_oauthlib import OAuth1Session

# Public host → a word for the post text (a host name in the text would be shortened to a t.co link).
HOSTS = {"https://api.twitter.com": "twitter", "https://api.x.com": "x"}


def outcome(response: requests.Response) -> dict[str, Any]:
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    return {"status": response.status_code, "body": body, "url": response.url}


def main() -> None:
    params = json.loads(sys.argv[1])
    results: dict[str, Any] = {}
    for host, label in HOSTS.items():
        session = OAuth1Session(
            params["consumer_key"],
            client_secret=params["consumer_secret"],
            resource_owner_key=params["access_token"],
            resource_owner_secret=params["access_token_secret"],
        )
        me = session.get(f"{host}/2/users/me", params={"user.fields": "created_at,description"})
        created = session.post(f"{host}/2/tweets", json={"text": f"{params['text']} via {label}"})
        entry = {"me": outcome(me), "create": outcome(created)}
        if created.status_code == 201:
            entry["delete"] = outcome(session.delete(f"{host}/2/tweets/{created.json()['data']['id']}"))
        forged = OAuth1Session(
            params["consumer_key"],
            client_secret="not-the-consumer-secret",
            resource_owner_key=params["access_token"],
            resource_owner_secret=params["access_token_secret"],
        )
        entry["forged_me"] = outcome(forged.get(f"{host}/2/users/me"))
        results[host] = entry
    print(json.dumps(results))


if __name__ == "__main__":
    main()
