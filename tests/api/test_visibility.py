"""Protected accounts: their posts are visible only to themselves and their followers."""

from __future__ import annotations

from typing import Any

from tests.support.client import Api


def _post_as(api: Api, user: dict[str, Any], text: str) -> str:
    headers = api.oauth1("POST", "/2/tweets", token=user["token"], secret=user["secret"])
    response = api.post("/2/tweets", auth="none", headers=headers, json={"text": text})
    assert response.status_code == 201, response.text
    return str(response.json()["data"]["id"])


def test_protected_posts_hidden_from_strangers_and_shown_to_followers(api: Api, make_user: Any) -> None:
    author = make_user(protected=True)
    stranger = make_user()
    follower = make_user()
    assert (
        api.http.post(
            "/_roost/follows", json={"follower_id": follower["id"], "followee_id": author["id"]}
        ).status_code
        == 201
    )
    post_id = _post_as(api, author, "only for my followers")

    as_app = api.get(f"/2/tweets/{post_id}")
    assert as_app.status_code == 200
    body = as_app.json()
    assert "data" not in body
    assert body["errors"][0]["type"].endswith("/not-authorized-for-resource")
    assert body["errors"][0]["section"] == "data"
    assert body["errors"][0]["resource_id"] == post_id

    stranger_view = api.get(
        f"/2/tweets/{post_id}",
        auth="none",
        headers={"Authorization": f"Bearer {stranger['oauth2']}"},
    )
    assert "data" not in stranger_view.json()

    for viewer in (author, follower):
        seen = api.get(
            f"/2/tweets/{post_id}", auth="none", headers={"Authorization": f"Bearer {viewer['oauth2']}"}
        )
        assert seen.json()["data"]["id"] == post_id

    timeline = api.get(f"/2/users/{author['id']}/tweets").json()
    assert "data" not in timeline
    assert timeline["errors"][0]["resource_type"] == "user"


def test_reply_to_protected_post_hides_the_expansion_with_an_includes_error(api: Api, make_user: Any) -> None:
    author = make_user(protected=True)
    follower = make_user()
    api.http.post("/_roost/follows", json={"follower_id": follower["id"], "followee_id": author["id"]})
    parent = _post_as(api, author, "protected parent")
    headers = api.oauth1("POST", "/2/tweets", token=follower["token"], secret=follower["secret"])
    reply = api.post(
        "/2/tweets",
        auth="none",
        headers=headers,
        json={"text": "public reply", "reply": {"in_reply_to_tweet_id": parent}},
    ).json()["data"]["id"]
    body = api.get(f"/2/tweets/{reply}", params={"expansions": "referenced_tweets.id"}).json()
    assert body["data"]["id"] == reply
    assert "includes" not in body
    error = body["errors"][0]
    assert error["type"].endswith("/not-authorized-for-resource")
    assert (error["section"], error["parameter"], error["resource_id"]) == (
        "includes",
        "referenced_tweets.id",
        parent,
    )
