"""Plain client programs for the sign-in flows, run as children by tests/clients/test_oauth1_clients.py.

Each talks to the platform's public hosts; the test runs it under roost's redirect. The one step a person
would do in a browser (approving the app) is a GET of the authorization URL sent straight to the roost
target with the `X-Roost-Approve` test header, keeping the public Host, path and query.

Usage: python oauth1_flow_probe.py SCENARIO PARAMS_JSON    Prints one JSON object.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx


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


def tweepy_user(params: dict[str, Any]) -> dict[str, Any]:
    import tweepy

    handler = tweepy.OAuth1UserHandler(
        params["consumer_key"], params["consumer_secret"], callback=params["callback"]
    )
    url = handler.get_authorization_url(signin_with_twitter=params.get("signin", False))
    location = approve(url, params["username"])
    verifier = parse_qs(urlsplit(location).query)["oauth_verifier"][0]
    token, secret = handler.get_access_token(verifier)
    client = tweepy.Client(
        consumer_key=params["consumer_key"],
        consumer_secret=params["consumer_secret"],
        access_token=token,
        access_token_secret=secret,
    )
    me = client.get_me(user_auth=True)
    return {"authorization_url": url, "location": location, "token": token, "me": me.data.data}


def tweepy_app(params: dict[str, Any]) -> dict[str, Any]:
    import tweepy

    handler = tweepy.OAuth2AppHandler(params["consumer_key"], params["consumer_secret"])
    again = tweepy.OAuth2AppHandler(params["consumer_key"], params["consumer_secret"])
    client = tweepy.Client(bearer_token=handler._bearer_token)
    user = client.get_user(id=params["user_id"])
    return {"bearer": handler._bearer_token, "again": again._bearer_token, "user": user.data.data}


def oauthlib(params: dict[str, Any]) -> dict[str, Any]:
    from requests_oauthlib import OAuth1Session

    host = params["host"]
    session = OAuth1Session(
        params["consumer_key"], client_secret=params["consumer_secret"], callback_uri=params["callback"]
    )
    request = session.fetch_request_token(f"{host}/oauth/request_token")
    url = session.authorization_url(f"{host}/oauth/authorize")
    location = approve(url, params["username"])
    session.parse_authorization_response(location)
    access = session.fetch_access_token(f"{host}/oauth/access_token")
    me = session.get(f"{host}/2/users/me")
    return {"request": sorted(request), "access": access, "me": {"status": me.status_code, "body": me.json()}}


def main() -> None:
    scenario, params = sys.argv[1], json.loads(sys.argv[2])
    result = {"tweepy_user": tweepy_user, "tweepy_app": tweepy_app, "oauthlib": oauthlib}[scenario](params)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
