"""The self-serve rules (issue 20): the same request from an enterprise app and from a pay-per-use
app, allowed on one and refused on the other with the platform's body."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from tests.api.helpers import PROBLEMS, User, create, create_ok, new_user
from tests.support.client import Api

NOT_SUMMONED = {
    "detail": "You can only reply to or quote posts where you are mentioned or are the author.",
    "status": 403,
    "title": "Authorization Error",
    "type": PROBLEMS + "not-authorized-for-resource",
}


def client_forbidden(app_id: str) -> dict[str, Any]:
    return {
        "client_id": app_id,
        "detail": (
            "When authenticating requests to the Twitter API v2 endpoints, you must use keys and tokens "
            "from a Twitter developer App that is attached to a Project. You can create a project via the "
            "developer portal."
        ),
        "registration_url": "https://developer.twitter.com/en/docs/projects/overview",
        "title": "Client Forbidden",
        "required_enrollment": "Appropriate Level of API Access",
        "reason": "client-not-enrolled",
        "type": PROBLEMS + "client-forbidden",
    }


@pytest.fixture(scope="module")
def self_serve_app(server: Any, credentials: dict[str, Any]) -> dict[str, Any]:
    api = Api(server.base_url, credentials)
    made = api.http.post(
        "/_roost/apps", json={"name": f"ppu-{uuid.uuid4().hex[:6]}", "package": "pay-per-use"}
    )
    assert made.status_code == 201, made.text
    return dict(made.json())


def on_app(api: Api, user: User, app: dict[str, Any]) -> User:
    """The same user with an OAuth 2.0 token of another app."""
    token = api.http.post(
        "/_roost/tokens", json={"consumer_key": app["consumer_key"], "user_id": user["id"], "kind": "oauth2"}
    ).json()
    return {**user, "oauth2": token["access_token"]}


def as_user(user: User) -> dict[str, str]:
    return {"Authorization": f"Bearer {user['oauth2']}"}


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/2/users/{me}/likes", {"tweet_id": "{post}"}),
        ("DELETE", "/2/users/{me}/likes/{post}", None),
        ("POST", "/2/users/{me}/following", {"target_user_id": "{other}"}),
        ("DELETE", "/2/users/{me}/following/{other}", None),
    ],
    ids=["like", "unlike", "follow", "unfollow"],
)
def test_likes_and_follows_are_enterprise_only(
    api: Api, self_serve_app: dict[str, Any], method: str, path: str, body: dict[str, str] | None
) -> None:
    me, other = new_user(api), new_user(api)
    post = create_ok(api, other)["id"]
    values = {"me": me["id"], "other": other["id"], "post": post}
    url = path.format(**values)
    payload = None if body is None else {key: value.format(**values) for key, value in body.items()}
    refused = api.request(
        method, url, auth="none", headers=as_user(on_app(api, me, self_serve_app)), json=payload
    )
    assert refused.status_code == 403
    assert refused.json() == client_forbidden(self_serve_app["id"])
    allowed = api.request(
        method, url, auth="none", headers=as_user(me), json=payload
    )  # the enterprise demo app
    assert allowed.status_code == 200, allowed.text


def test_a_self_serve_reply_needs_the_author_to_have_summoned_the_replier(
    api: Api, self_serve_app: dict[str, Any]
) -> None:
    me, stranger = new_user(api), new_user(api)
    me_self_serve = on_app(api, me, self_serve_app)
    cold = create_ok(api, stranger)["id"]
    refused = create(api, me_self_serve, reply={"in_reply_to_tweet_id": cold})
    assert (refused.status_code, refused.json()) == (403, NOT_SUMMONED)
    assert create(api, me, reply={"in_reply_to_tweet_id": cold}).status_code == 201  # enterprise: any post
    summoning = create_ok(api, stranger, text=f"@{me['username']} what do you think?")["id"]
    assert create(api, me_self_serve, reply={"in_reply_to_tweet_id": summoning}).status_code == 201
    own = create_ok(api, me)["id"]
    assert create(api, me_self_serve, reply={"in_reply_to_tweet_id": own}).status_code == 201


def test_a_self_serve_quote_needs_the_same_summons(api: Api, self_serve_app: dict[str, Any]) -> None:
    me, stranger = new_user(api), new_user(api)
    me_self_serve = on_app(api, me, self_serve_app)
    cold = create_ok(api, stranger)["id"]
    refused = create(api, me_self_serve, quote_tweet_id=cold)
    assert (refused.status_code, refused.json()) == (403, NOT_SUMMONED)
    assert create(api, me, quote_tweet_id=cold).status_code == 201  # enterprise
    own = create_ok(api, me)["id"]
    assert create(api, me_self_serve, quote_tweet_id=own).status_code == 201
    quoting_me = create_ok(api, stranger, quote_tweet_id=own)["id"]  # the stranger quoted my post
    assert create(api, me_self_serve, quote_tweet_id=quoting_me).status_code == 201
    assert create(api, me_self_serve, reply={"in_reply_to_tweet_id": quoting_me}).status_code == 201


def test_an_edit_keeps_its_reply_whatever_the_package(api: Api, self_serve_app: dict[str, Any]) -> None:
    """Only new posts are held to the summons: an edit keeps the parent its first version had."""
    me, stranger = new_user(api, premium=True), new_user(api)
    cold = create_ok(api, stranger)["id"]
    reply = create_ok(api, me, reply={"in_reply_to_tweet_id": cold})["id"]  # made on the enterprise app
    edit = create(api, on_app(api, me, self_serve_app), edit_options={"previous_post_id": reply})
    assert edit.status_code == 201, edit.text


def test_a_news_keyword_subscription_is_enterprise_only(api: Api, self_serve_app: dict[str, Any]) -> None:
    body = {"event_type": "news.new", "filter": {"keyword": f"roost{uuid.uuid4().hex[:6]}"}}
    made = api.post("/2/activity/subscriptions", json=body, conform=False)
    assert made.status_code == 200, made.text
    refused = api.http.post(
        "/2/activity/subscriptions",
        json=body,
        headers={"Authorization": f"Bearer {self_serve_app['bearer_token']}"},
    )
    assert refused.status_code == 403
    assert refused.json() == client_forbidden(self_serve_app["id"])
    made_id = made.json()["data"]["subscription"]["subscription_id"]
    assert api.delete(f"/2/activity/subscriptions/{made_id}", conform=False).status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/2/tweets/search/webhooks"),
        ("POST", "/2/tweets/search/webhooks/1"),
        ("DELETE", "/2/tweets/search/webhooks/1"),
    ],
    ids=["list", "link", "unlink"],
)
def test_filtered_stream_webhooks_are_enterprise_only(
    api: Api, self_serve_app: dict[str, Any], method: str, path: str
) -> None:
    refused = api.http.request(
        method, path, headers={"Authorization": f"Bearer {self_serve_app['bearer_token']}"}
    )
    assert refused.status_code == 403
    assert refused.json() == client_forbidden(self_serve_app["id"])
    if method == "GET":
        assert api.get(path, conform=False).status_code == 200  # the enterprise demo app
