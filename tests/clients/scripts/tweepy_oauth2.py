"""tweepy's OAuth2UserHandler, run as a plain program under `roost run`'s redirect.

argv[1] is a JSON object: client_id, client_secret (null for a public client), redirect_uri, scope,
username. Prints JSON with what each step gave.
"""

from __future__ import annotations

import json
import os
import sys

# The redirect URI is a loopback http URL; oauthlib refuses http unless told otherwise.
os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"

import requests
import tweepy

TOKEN_URL = "https://api.twitter.com/2/oauth2/token"


def main() -> None:
    params = json.loads(sys.argv[1])
    handler = tweepy.OAuth2UserHandler(
        client_id=params["client_id"],
        redirect_uri=params["redirect_uri"],
        scope=params["scope"],
        client_secret=params["client_secret"],
    )
    url = handler.get_authorization_url()
    approval = requests.get(
        url, headers={"X-Roost-Approve": params["username"]}, allow_redirects=False, timeout=30
    )
    location = approval.headers["location"]
    token = handler.fetch_token(location)
    me = tweepy.Client(token["access_token"]).get_me(user_auth=False)
    extra = {} if handler.auth is not None else {"client_id": params["client_id"]}
    renewed = handler.refresh_token(TOKEN_URL, auth=handler.auth, **extra)
    me_again = tweepy.Client(renewed["access_token"]).get_me(user_auth=False)
    print(
        json.dumps(
            {
                "authorize_url": url,
                "status": approval.status_code,
                "location": location,
                "token": token,
                "me": {"id": str(me.data.id), "username": me.data.username},
                "renewed": renewed,
                "me_again": me_again.data.username,
            }
        )
    )


if __name__ == "__main__":
    main()
