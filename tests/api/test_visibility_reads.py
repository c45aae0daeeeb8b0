"""Reads that list other users' posts (mentions, liked posts) leave out a protected account's posts for
viewers who may not see them, and show them to its followers."""

from __future__ import annotations

from typing import Any

from tests.support.client import Api


def _as(user: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {user['oauth2']}"}


def _post_as(api: Api, user: dict[str, Any], text: str) -> str:
    headers = api.oauth1("POST", "/2/tweets", token=user["token"], secret=user["secret"])
    response = api.post("/2/tweets", auth="none", headers=headers, json={"text": text})
    assert response.status_code == 201, response.text
    return str(response.json()["data"]["id"])


def _follow(api: Api, follower: dict[str, Any], followee: dict[str, Any]) -> None:
    edge = {"follower_id": follower["id"], "followee_id": followee["id"]}
    assert api.http.post("/_roost/follows", json=edge).status_code == 201


def _ids(api: Api, path: str, viewer: dict[str, Any]) -> list[str]:
    response = api.get(path, auth="none", headers=_as(viewer))
    assert response.status_code == 200, response.text
    return [post["id"] for post in response.json().get("data", [])]


def test_mentions_and_liked_posts_hide_protected_posts_from_non_followers(api: Api, make_user: Any) -> None:
    protected, reader, follower, stranger = (
        make_user(protected=True),
        make_user(),
        make_user(),
        make_user(),
    )
    for user in (reader, follower):
        _follow(api, user, protected)
    hidden = _post_as(api, protected, f"hello @{reader['username']}")
    public = _post_as(api, stranger, f"hi @{reader['username']}")
    liked = api.post(
        f"/2/users/{reader['id']}/likes", auth="none", headers=_as(reader), json={"tweet_id": hidden}
    )
    assert liked.status_code == 200, liked.text

    mentions = f"/2/users/{reader['id']}/mentions"
    assert _ids(api, mentions, stranger) == [public]
    assert _ids(api, mentions, follower) == [public, hidden]
    likes = f"/2/users/{reader['id']}/liked_tweets"
    assert _ids(api, likes, stranger) == []
    assert _ids(api, likes, follower) == [hidden]
