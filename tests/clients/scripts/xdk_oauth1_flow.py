"""xdk's OAuth 1.0a three-legged flow, run as a child by tests/clients/test_xdk_oauth1_flow.py.

xdk hard-codes https://api.x.com for the request-token and access-token steps, so this program runs
under roost's redirect (`redirect_env`). Approving the app, the one browser step, is a GET of the
authorization URL sent to the roost target with the public Host and the `X-Roost-Approve` test header.

Usage: python xdk_oauth1_flow.py PARAMS_JSON    Prints one JSON object.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import requests
from xdk import Client
from xdk.oauth1_auth import OAuth1


def approve(authorization_url: str, username: str) -> str:
    """The callback URL the approval redirects to (the 302 Location)."""
    parts = urlsplit(authorization_url)
    response = httpx.get(
        os.environ["ROOST_TARGET"] + parts.path + ("?" + parts.query if parts.query else ""),
        headers={"Host": parts.netloc, "X-Roost-Approve": username},
        follow_redirects=False,
    )
    assert response.status_code == 302, (response.status_code, response.text[:500])
    return response.headers["location"]


def status_of_get_me(client: Client) -> int:
    try:
        client.users.get_me()
    except requests.HTTPError as exc:
        return exc.response.status_code
    return 200


def main() -> None:
    params: dict[str, Any] = json.loads(sys.argv[1])
    key, secret, callback = params["consumer_key"], params["consumer_secret"], params["callback"]
    flow = OAuth1(key, secret, callback=callback)
    request_token = flow.get_request_token()
    url = flow.get_authorization_url(login_with_x=params["login_with_x"])
    location = approve(url, params["username"])
    query = {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}
    access = flow.get_access_token(query["oauth_verifier"])

    # xdk bug 2: the flow object would sign with the request-token secret; use a fresh one.
    auth = OAuth1(
        key,
        secret,
        callback=callback,
        access_token=access.access_token,
        access_token_secret=access.access_token_secret,
    )
    client = Client(auth=auth)  # default base URL https://api.x.com, through the redirect
    me = client.users.get_me(user_fields=["created_at", "public_metrics"])
    result = {
        "request_token": request_token.oauth_token,
        "authorization_url": url,
        "location": location,
        "callback_token": query.get("oauth_token"),
        "access_token": access.access_token,
        "me": me.model_dump(exclude_none=True)["data"],
        # The flow object itself (bug 2) signs with the wrong secret: the platform answers 401.
        "stale_object_status": status_of_get_me(Client(auth=flow)),
    }
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
