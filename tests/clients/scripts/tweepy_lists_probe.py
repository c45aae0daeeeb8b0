"""A plain tweepy program driving every list method of `Client`, run as a child process by
tests/clients/test_tweepy_lists.py under roost's redirect (the client talks to its hard-coded
https://api.twitter.com).

Usage: python tweepy_lists_probe.py PARAMS_JSON
Prints one JSON object: for each call, what tweepy built (models and their attributes) or the
exception it raised.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import tweepy

LIST_FIELDS = ["created_at", "description", "follower_count", "member_count", "owner_id", "private"]


def iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def describe(value: Any) -> Any:
    if isinstance(value, tweepy.List):
        return {
            "class": "List",
            "id": value.id,
            "name": value.name,
            "created_at": iso(value.created_at),
            "description": value.description,
            "follower_count": value.follower_count,
            "member_count": value.member_count,
            "private": value.private,
            "owner_id": value.owner_id,
        }
    if isinstance(value, tweepy.User):
        return {"class": "User", "id": value.id, "username": value.username}
    if isinstance(value, tweepy.Tweet):
        return {"class": "Tweet", "id": value.id, "text": value.text, "author_id": value.author_id}
    if isinstance(value, list):
        return [describe(item) for item in value]
    if isinstance(value, dict):
        return {"class": "dict", "raw": value}
    return value


def describe_response(response: Any) -> dict[str, Any]:
    return {
        "data": describe(response.data),
        "includes": {key: describe(items) for key, items in response.includes.items()},
        "errors": response.errors,
        "meta": response.meta,
    }


def attempt(call: Callable[[], Any]) -> dict[str, Any]:
    try:
        return describe_response(call())
    except tweepy.TweepyException as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        return {"error": {"exception": f"{type(exc).__module__}.{type(exc).__name__}", "status": status}}


def main(params: dict[str, Any]) -> dict[str, Any]:
    owner = tweepy.Client(
        consumer_key=params["consumer_key"],
        consumer_secret=params["consumer_secret"],
        access_token=params["access_token"],
        access_token_secret=params["access_token_secret"],
    )
    fan = tweepy.Client(
        consumer_key=params["consumer_key"],
        consumer_secret=params["consumer_secret"],
        access_token=params["fan_token"],
        access_token_secret=params["fan_secret"],
    )
    app = tweepy.Client(bearer_token=params["bearer_token"])
    member, owner_id, fan_id = params["member_id"], params["owner_id"], params["fan_id"]
    out: dict[str, Any] = {}
    out["create"] = attempt(
        lambda: owner.create_list("tweepy list", description="made by tweepy", private=False)
    )
    list_id = out["create"]["data"]["raw"]["id"]
    out["update"] = attempt(lambda: owner.update_list(list_id, description="changed by tweepy"))
    out["add_member"] = attempt(lambda: owner.add_list_member(list_id, member))
    out["get_list"] = attempt(
        lambda: app.get_list(list_id, list_fields=LIST_FIELDS, expansions="owner_id", user_fields="username")
    )
    out["members"] = attempt(lambda: app.get_list_members(list_id, max_results=10))
    out["tweets"] = attempt(lambda: app.get_list_tweets(list_id, tweet_fields=["author_id"], max_results=5))
    out["memberships"] = attempt(lambda: app.get_list_memberships(member, list_fields=LIST_FIELDS))
    out["owned"] = attempt(lambda: app.get_owned_lists(owner_id, max_results=100))
    out["follow"] = attempt(lambda: fan.follow_list(list_id))
    out["followers"] = attempt(lambda: app.get_list_followers(list_id))
    out["followed"] = attempt(lambda: app.get_followed_lists(fan_id))
    out["pin"] = attempt(lambda: fan.pin_list(list_id))
    out["pinned"] = attempt(lambda: fan.get_pinned_lists(list_fields=LIST_FIELDS))
    out["unpin"] = attempt(lambda: fan.unpin_list(list_id))
    out["unfollow"] = attempt(lambda: fan.unfollow_list(list_id))
    out["remove_member"] = attempt(lambda: owner.remove_list_member(list_id, member))
    out["fan_deletes"] = attempt(lambda: fan.delete_list(list_id))
    out["delete"] = attempt(lambda: owner.delete_list(list_id))
    out["get_deleted"] = attempt(lambda: app.get_list(list_id))
    return out


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
