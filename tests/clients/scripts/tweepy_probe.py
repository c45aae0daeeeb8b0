"""A plain tweepy program, run as a child process by tests/clients/test_tweepy.py.

It uses tweepy exactly as a user would: the client talks to its hard-coded https://api.twitter.com
and nothing is patched here; the test starts it under roost's redirect (`redirect_env`) and with
`-W error::RuntimeWarning`, so a post without `edit_history_tweet_ids` is fatal for that call.

Usage: python -W error::RuntimeWarning tweepy_probe.py SCENARIO PARAMS_JSON
Prints one JSON object: for each call, either a description of what tweepy built or the exception.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import tweepy

TWEET_FIELDS = [
    "attachments",
    "author_id",
    "conversation_id",
    "created_at",
    "edit_controls",
    "entities",
    "in_reply_to_user_id",
    "lang",
    "public_metrics",
    "referenced_tweets",
    "reply_settings",
]
EXPANSIONS = ["author_id", "attachments.media_keys", "referenced_tweets.id"]
USER_FIELDS = ["created_at", "description", "protected", "public_metrics", "verified"]
MEDIA_FIELDS = ["type", "url", "width", "height", "preview_image_url", "alt_text"]


def iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def describe_tweet(tweet: Any) -> dict[str, Any]:
    return {
        "class": type(tweet).__name__,
        "id": tweet.id,
        "text": tweet.text,
        "edit_history_tweet_ids": tweet.edit_history_tweet_ids,
        "author_id": tweet.author_id,
        "conversation_id": tweet.conversation_id,
        "in_reply_to_user_id": tweet.in_reply_to_user_id,
        "created_at": iso(tweet.created_at),
        "attachments": tweet.attachments,
        "referenced_tweets": [
            {"class": type(ref).__name__, "type": ref.type, "id": ref.id}
            for ref in (tweet.referenced_tweets or [])
        ],
        "public_metrics": tweet.public_metrics,
        "edit_controls": None
        if tweet.edit_controls is None
        else {
            "edits_remaining": tweet.edit_controls["edits_remaining"],
            "editable_until": iso(tweet.edit_controls["editable_until"]),
        },
        "lang": tweet.lang,
        "reply_settings": tweet.reply_settings,
        "data_keys": sorted(tweet.data),
    }


def describe_user(user: Any) -> dict[str, Any]:
    return {
        "class": type(user).__name__,
        "id": user.id,
        "name": user.name,
        "username": user.username,
        "created_at": iso(user.created_at),
        "description": user.description,
        "protected": user.protected,
        "public_metrics": user.public_metrics,
        "verified": user.verified,
    }


def describe_media(media: Any) -> dict[str, Any]:
    return {
        "class": type(media).__name__,
        "media_key": media.media_key,
        "type": media.type,
        "url": media.url,
        "width": media.width,
        "height": media.height,
        "preview_image_url": media.preview_image_url,
        "alt_text": media.alt_text,
    }


def describe(value: Any) -> Any:
    if isinstance(value, tweepy.Tweet):
        return describe_tweet(value)
    if isinstance(value, tweepy.User):
        return describe_user(value)
    if isinstance(value, tweepy.Media):
        return describe_media(value)
    if isinstance(value, list):
        return [describe(item) for item in value]
    if isinstance(value, dict):
        return {"class": "dict", "raw": value}
    return value


def describe_response(response: Any) -> dict[str, Any]:
    return {
        "class": type(response).__name__,
        "data": describe(response.data),
        "includes": {key: describe(items) for key, items in response.includes.items()},
        "errors": response.errors,
        "meta": response.meta,
    }


def describe_error(exc: BaseException) -> dict[str, Any]:
    response = getattr(exc, "response", None)
    return {
        "exception": f"{type(exc).__module__}.{type(exc).__qualname__}",
        "message": str(exc),
        "status": getattr(response, "status_code", None),
        "api_messages": getattr(exc, "api_messages", None),
        "api_codes": getattr(exc, "api_codes", None),
    }


def attempt(results: dict[str, Any], name: str, call: Callable[[], Any]) -> Any:
    """Run one client call; record what tweepy built, or the exception it raised."""
    try:
        value = call()
    except Exception as exc:  # recorded for the test to assert on
        results[name] = {"error": describe_error(exc)}
        return None
    results[name] = describe_response(value) if isinstance(value, tweepy.Response) else describe(value)
    return value


def make_client(params: dict[str, Any]) -> tweepy.Client:
    if params["auth"] == "bearer":
        return tweepy.Client(bearer_token=params["bearer_token"])
    return tweepy.Client(
        consumer_key=params["consumer_key"],
        consumer_secret=params["consumer_secret"],
        access_token=params["access_token"],
        access_token_secret=params["access_token_secret"],
    )


def reads(params: dict[str, Any]) -> dict[str, Any]:
    client = make_client(params)
    user_auth = params["auth"] == "oauth1"
    fields: dict[str, Any] = {
        "tweet_fields": TWEET_FIELDS,
        "expansions": EXPANSIONS,
        "user_fields": USER_FIELDS,
        "media_fields": MEDIA_FIELDS,
        "user_auth": user_auth,
    }
    results: dict[str, Any] = {}
    attempt(results, "get_tweet", lambda: client.get_tweet(params["tweet_id"], **fields))
    attempt(results, "get_tweets", lambda: client.get_tweets(params["tweet_ids"], **fields))
    attempt(
        results,
        "get_user",
        lambda: client.get_user(username=params["username"], user_fields=USER_FIELDS, user_auth=user_auth),
    )
    attempt(
        results,
        "get_users",
        lambda: client.get_users(ids=params["user_ids"], user_fields=USER_FIELDS, user_auth=user_auth),
    )
    # Bearer mode asks anyway (user_auth=False): app-only auth is refused on this endpoint.
    attempt(results, "get_me", lambda: client.get_me(user_fields=USER_FIELDS, user_auth=user_auth))
    attempt(
        results,
        "get_users_tweets",
        lambda: client.get_users_tweets(
            params["user_id"], max_results=5, tweet_fields=["created_at"], user_auth=user_auth
        ),
    )
    attempt(
        results,
        "paginator",
        lambda: [
            tweet.id
            for tweet in tweepy.Paginator(
                client.get_users_tweets, params["user_id"], max_results=5, user_auth=user_auth
            ).flatten(limit=23)
        ],
    )
    attempt(
        results,
        "get_users_mentions",
        lambda: client.get_users_mentions(
            params["user_id"], max_results=100, expansions=["author_id"], user_auth=user_auth
        ),
    )
    return results


def writes(params: dict[str, Any]) -> dict[str, Any]:
    client = make_client({**params, "auth": "oauth1"})
    results: dict[str, Any] = {}
    stamp = params["stamp"]
    created = attempt(results, "create", lambda: client.create_tweet(text=f"tweepy says hello {stamp}"))
    if created is None:
        return results
    original = created.data["id"]
    replied = attempt(
        results,
        "reply",
        lambda: client.create_tweet(text=f"tweepy reply {stamp}", in_reply_to_tweet_id=original),
    )
    quoted = attempt(
        results,
        "quote",
        lambda: client.create_tweet(text=f"tweepy quote {stamp}", quote_tweet_id=original),
    )
    # tweepy 4.17's create_tweet has no edit_options; its public Client.request sends the raw body.
    edit = attempt(
        results,
        "edit",
        lambda: client.request(
            "POST",
            "/2/tweets",
            json={
                "text": f"tweepy says hello, edited {stamp}",
                "edit_options": {"previous_post_id": original},
            },
            user_auth=True,
        ).json(),
    )
    edited = None if edit is None else edit["data"]["id"]
    if edited is not None:
        attempt(
            results,
            "get_edited",
            lambda: client.get_tweet(edited, tweet_fields=["edit_controls", "author_id"], user_auth=True),
        )
        attempt(results, "get_original", lambda: client.get_tweet(original, user_auth=True))
    for name, made in (("reply", replied), ("quote", quoted)):
        if made is not None:
            attempt(
                results,
                f"get_{name}",
                lambda made=made: client.get_tweet(
                    made.data["id"],
                    tweet_fields=["referenced_tweets", "in_reply_to_user_id", "conversation_id", "author_id"],
                    expansions=["referenced_tweets.id"],
                    user_auth=True,
                ),
            )
    attempt(results, "delete", lambda: client.delete_tweet(edited or original))
    attempt(results, "get_deleted", lambda: client.get_tweet(edited or original, user_auth=True))
    attempt(results, "delete_again", lambda: client.delete_tweet(edited or original))
    return results


def errors(params: dict[str, Any]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    bad = tweepy.Client(bearer_token="not-a-real-bearer-token")
    attempt(results, "bad_bearer", lambda: bad.get_tweet(params["tweet_id"]))
    app = make_client({**params, "auth": "bearer"})
    attempt(results, "bearer_create", lambda: app.create_tweet(text="app-only cannot post", user_auth=False))
    attempt(results, "invalid_id", lambda: app.get_tweet("abc"))
    user = make_client({**params, "auth": "oauth1"})
    attempt(results, "too_long", lambda: user.create_tweet(text="x" * 281))
    return results


def self_serve(params: dict[str, Any]) -> dict[str, Any]:
    """A pay-per-use app's user liking and replying to a post that did not summon them."""
    results: dict[str, Any] = {}
    user = make_client({**params, "auth": "oauth1"})
    attempt(results, "like", lambda: user.like(params["tweet_id"]))
    attempt(
        results,
        "reply",
        lambda: user.create_tweet(text="cold reply", in_reply_to_tweet_id=params["tweet_id"]),
    )
    return results


def out_of_credit(params: dict[str, Any]) -> dict[str, Any]:
    """An app whose credit is spent looking a post up."""
    results: dict[str, Any] = {}
    app = make_client({**params, "auth": "bearer"})
    attempt(results, "lookup", lambda: app.get_tweet(params["tweet_id"]))
    return results


SCENARIOS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "reads": reads,
    "writes": writes,
    "errors": errors,
    "self_serve": self_serve,
    "out_of_credit": out_of_credit,
}


def main() -> None:
    scenario, raw = sys.argv[1], sys.argv[2]
    print(json.dumps(SCENARIOS[scenario](json.loads(raw))))


if __name__ == "__main__":
    main()
