"""The self-serve refusals (issue 20) as real clients meet them: the demo's pay-per-use app liking,
following and replying cold, and an app whose credit is spent, through xdk (in process) and tweepy (a
plain program under `roost run`)."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import httpx
import pytest
import requests
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer
from xdk import Client
from xdk.posts.models import CreateRequest
from xdk.users.models import FollowUserRequest, LikePostRequest

pytestmark = pytest.mark.clients

NOT_SUMMONED = "You can only reply to or quote posts where you are mentioned or are the author."


def stranger_post(server: LiveServer, credentials: dict[str, Any]) -> tuple[str, str]:
    """A post by a fresh account that mentions nobody: (its author's id, the post's id)."""
    user = httpx.post(
        server.base_url + "/_roost/users", json={"username": f"p_{uuid.uuid4().hex[:12]}"}
    ).json()
    token = httpx.post(
        server.base_url + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()["access_token"]
    made = httpx.post(
        server.base_url + "/2/tweets",
        json={"text": f"cold post {uuid.uuid4().hex[:8]}"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert made.status_code == 201, made.text
    return str(user["id"]), str(made.json()["data"]["id"])


def test_xdk_meets_the_self_serve_refusals(server: LiveServer, credentials: dict[str, Any]) -> None:
    self_serve = credentials["pay_per_use"]
    author_id, post_id = stranger_post(server, credentials)
    client = Client(base_url=server.base_url, access_token=self_serve["oauth2_user_token"])
    me = credentials["user_id"]
    with pytest.raises(requests.HTTPError) as like:
        client.users.like_post(me, LikePostRequest(tweet_id=post_id))
    assert like.value.response.status_code == 403
    assert like.value.response.json()["reason"] == "client-not-enrolled"
    with pytest.raises(requests.HTTPError) as follow:
        client.users.follow_user(me, FollowUserRequest(target_user_id=author_id))
    assert (follow.value.response.status_code, follow.value.response.json()["title"]) == (
        403,
        "Client Forbidden",
    )
    with pytest.raises(requests.HTTPError) as reply:
        client.posts.create(CreateRequest(text="cold reply", reply={"in_reply_to_tweet_id": post_id}))
    assert (reply.value.response.status_code, reply.value.response.json()["detail"]) == (403, NOT_SUMMONED)
    enterprise = Client(base_url=server.base_url, access_token=credentials["oauth2_user_token"])
    assert enterprise.users.like_post(me, LikePostRequest(tweet_id=post_id)).data.liked is True


def test_tweepy_meets_the_self_serve_refusals(server: LiveServer, credentials: dict[str, Any]) -> None:
    self_serve = credentials["pay_per_use"]
    _, post_id = stranger_post(server, credentials)
    params = {
        "consumer_key": self_serve["consumer_key"],
        "consumer_secret": self_serve["consumer_secret"],
        "access_token": self_serve["access_token"],
        "access_token_secret": self_serve["access_token_secret"],
        "tweet_id": post_id,
    }
    results = run_redirected_script(server.base_url, "tweepy_probe.py", "self_serve", json.dumps(params))
    like = results["like"]["error"]
    assert (like["exception"], like["status"]) == ("tweepy.errors.Forbidden", 403)
    assert like["message"].startswith("403 Forbidden\nWhen authenticating requests to the Twitter API v2")
    reply = results["reply"]["error"]
    assert (reply["exception"], reply["status"], reply["message"]) == (
        "tweepy.errors.Forbidden",
        403,
        f"403 Forbidden\n{NOT_SUMMONED}",
    )


def spent_app(server: LiveServer) -> dict[str, Any]:
    """A fresh pay-per-use app whose credit is spent."""
    app = httpx.post(
        server.base_url + "/_roost/apps",
        json={"name": f"spent {uuid.uuid4().hex[:6]}", "package": "pay-per-use"},
    ).json()
    given = httpx.post(
        server.base_url + "/_roost/apps/credit", json={"consumer_key": app["consumer_key"], "credit_usd": 0}
    )
    assert given.status_code == 200 and given.json()["data"]["out_of_credit"] is True, given.text
    # Every process learns it at its next flush (within a second): wait until two requests in a row,
    # which the round-robin suite sends to both of its processes, are refused.
    headers = {"Authorization": f"Bearer {app['bearer_token']}"}
    deadline, refused = time.monotonic() + 10, 0
    while refused < 2 and time.monotonic() < deadline:
        status = httpx.get(server.base_url + "/2/usage/tweets", headers=headers).status_code
        refused = refused + 1 if status == 402 else 0
        time.sleep(0.02 if refused == 0 else 0)  # between looks while a process has yet to learn it
    assert refused == 2
    return dict(app)


def credits_message(server: LiveServer, app: dict[str, Any]) -> str:
    headers = {"Authorization": f"Bearer {app['bearer_token']}"}
    return str(httpx.get(server.base_url + "/2/usage/tweets", headers=headers).json()["detail"])


def test_xdk_meets_the_spent_credit(server: LiveServer, credentials: dict[str, Any]) -> None:
    _, post_id = stranger_post(server, credentials)
    app = spent_app(server)
    client = Client(base_url=server.base_url, bearer_token=app["bearer_token"])
    with pytest.raises(requests.HTTPError) as lookup:
        client.posts.get_by_id(post_id)
    body = lookup.value.response.json()
    assert (lookup.value.response.status_code, body["title"]) == (402, "CreditsDepleted")
    assert body["detail"].startswith("Your enrolled account [") and body["type"].endswith("/problems/credits")


def test_tweepy_meets_the_spent_credit(server: LiveServer, credentials: dict[str, Any]) -> None:
    _, post_id = stranger_post(server, credentials)
    app = spent_app(server)
    params = {"bearer_token": app["bearer_token"], "tweet_id": post_id}
    results = run_redirected_script(server.base_url, "tweepy_probe.py", "out_of_credit", json.dumps(params))
    lookup = results["lookup"]["error"]
    assert (lookup["exception"], lookup["status"]) == ("tweepy.errors.HTTPException", 402)
    assert lookup["message"] == f"402 Payment Required\n{credits_message(server, app)}"
