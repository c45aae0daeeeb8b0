"""tweepy 4.17 `API` (v1.1) media upload and account reads, run as a plain program under `roost run`'s
redirect: it talks to upload.twitter.com and api.twitter.com as shipped.

argv[1] is a JSON object: consumer_key, consumer_secret, token, secret (OAuth 1.0a user context),
png, mp4, gif (paths of files to upload), screen_name (a user to look up). Prints JSON with what each
call gave or the exception it raised.
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


def media(value: Any) -> dict[str, Any]:
    out = {"media_id": value.media_id_string, "size": getattr(value, "size", None)}
    for name in ("image", "video", "processing_info", "media_key"):
        if hasattr(value, name):
            out[name] = getattr(value, name)
    return out


def main() -> None:
    params = json.loads(sys.argv[1])
    auth = tweepy.OAuth1UserHandler(
        params["consumer_key"], params["consumer_secret"], params["token"], params["secret"]
    )
    api = tweepy.API(auth)
    results: dict[str, Any] = {}
    attempt(
        results,
        "verify_credentials",
        lambda: (lambda user: {"id": user.id_str, "screen_name": user.screen_name})(api.verify_credentials()),
    )
    attempt(
        results,
        "get_user",
        lambda: (lambda user: {"id": user.id_str, "screen_name": user.screen_name})(
            api.get_user(screen_name=params["screen_name"])
        ),
    )
    attempt(results, "simple", lambda: media(api.media_upload(params["png"])))
    attempt(results, "chunked_png", lambda: media(api.media_upload(params["png"], chunked=True)))
    attempt(results, "video", lambda: media(api.media_upload(params["mp4"])))
    attempt(
        results,
        "gif_processed",
        lambda: media(api.media_upload(params["gif"], chunked=True, media_category="tweet_gif")),
    )
    simple_id = results["simple"].get("media_id") if isinstance(results["simple"], dict) else None
    attempt(results, "metadata", lambda: (api.create_media_metadata(simple_id, "alt from tweepy"), True)[1])
    if simple_id and "gif_processed" in results and "media_id" in results["gif_processed"]:
        status = api.get_media_upload_status(results["gif_processed"]["media_id"])
        results["status"] = media(status)
    client = tweepy.Client(
        consumer_key=params["consumer_key"],
        consumer_secret=params["consumer_secret"],
        access_token=params["token"],
        access_token_secret=params["secret"],
    )
    attempt(
        results,
        "post",
        lambda: client.create_tweet(text="with a picture", media_ids=[simple_id], user_auth=True).data,
    )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
