"""Likes, follows and mutes over v2: counters, idempotency, permissions, validation, the event log."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.helpers import User, bearer, create_ok, invalid_request, lookup, user_view
from tests.support.client import Api
from tests.support.server import LiveServer

NOT_PERMITTED = {
    "detail": "You are not permitted to perform this action.",
    "type": "about:blank",
    "title": "Forbidden",
    "status": 403,
}


def post(api: Api, user: User, path: str, body: Any) -> httpx.Response:
    return api.post(path, auth="none", headers=bearer(user), json=body)


def delete(api: Api, user: User, path: str) -> httpx.Response:
    return api.delete(path, auth="none", headers=bearer(user))


def get(api: Api, user: User, path: str, **params: str) -> dict[str, Any]:
    response = api.get(path, auth="none", headers=bearer(user), params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def events(server: LiveServer, kind_prefix: str, object_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, user id, payload) of the logged events of a kind family about one object."""
    from roost.core import jsonio

    services = server.app.server.stores  # type: ignore[union-attr]
    rows = server.run(services.events.after(0, 1_000_000))
    return [
        (row["kind"], str(row["user_id"]), jsonio.loads(row["payload"]))
        for row in rows
        if row["kind"].startswith(kind_prefix) and str(row["object_id"]) == object_id
    ]


def like(api: Api, user: User, post_id: str) -> httpx.Response:
    return post(api, user, f"/2/users/{user['id']}/likes", {"tweet_id": post_id})


# ---- likes -----------------------------------------------------------------------------------------


def test_like_and_unlike_keep_counters_and_log_events(api: Api, server: LiveServer, make_user: Any) -> None:
    author, fan = make_user(), make_user()
    tweet = create_ok(api, author)
    response = like(api, fan, tweet["id"])
    assert response.status_code == 200
    assert response.json() == {"data": {"liked": True}}
    assert (
        lookup(api, tweet["id"], **{"tweet.fields": "public_metrics"})["data"]["public_metrics"]["like_count"]
        == 1
    )
    assert user_view(api, fan["id"])["public_metrics"]["like_count"] == 1

    # Liking again succeeds and changes nothing.
    assert like(api, fan, tweet["id"]).json() == {"data": {"liked": True}}
    assert (
        lookup(api, tweet["id"], **{"tweet.fields": "public_metrics"})["data"]["public_metrics"]["like_count"]
        == 1
    )

    response = delete(api, fan, f"/2/users/{fan['id']}/likes/{tweet['id']}")
    assert response.status_code == 200
    assert response.json() == {"data": {"liked": False}}
    assert delete(api, fan, f"/2/users/{fan['id']}/likes/{tweet['id']}").json() == {"data": {"liked": False}}
    assert (
        lookup(api, tweet["id"], **{"tweet.fields": "public_metrics"})["data"]["public_metrics"]["like_count"]
        == 0
    )
    assert user_view(api, fan["id"])["public_metrics"]["like_count"] == 0

    payload = {"user_id": fan["id"], "post_id": tweet["id"], "post_author_id": author["id"]}
    assert events(server, "like.", tweet["id"]) == [
        ("like.create", fan["id"], payload),
        ("like.delete", fan["id"], payload),
    ]


def test_like_for_another_user_is_forbidden(api: Api, server: LiveServer, make_user: Any) -> None:
    author, fan = make_user(), make_user()
    tweet = create_ok(api, author)
    response = post(api, fan, f"/2/users/{author['id']}/likes", {"tweet_id": tweet["id"]})
    assert response.status_code == 403
    assert response.json() == NOT_PERMITTED
    response = delete(api, fan, f"/2/users/{author['id']}/likes/{tweet['id']}")
    assert response.status_code == 403
    assert events(server, "like.", tweet["id"]) == []


def test_like_body_validation(api: Api, make_user: Any) -> None:
    fan = make_user()
    path = f"/2/users/{fan['id']}/likes"
    response = post(api, fan, path, {"tweet_id": "abc"})
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {
            "parameters": {"tweet_id": ["abc"]},
            "message": "The `tweet_id` field value [abc] does not match ^[0-9]{1,19}$",
        }
    )
    response = post(api, fan, path, {})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameters": {}, "message": "$.tweet_id: is missing but it is required"}
    ]
    response = post(api, fan, path, {"tweet_id": 12})
    assert response.json()["errors"][0]["message"] == "$.tweet_id: integer found, string expected"
    response = post(api, fan, path, {"tweet_id": "1", "extra": True})
    assert response.status_code == 400
    # A well-formed id of no post.
    response = post(api, fan, path, {"tweet_id": "1"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameters": {"tweet_id": ["1"]}, "message": "Could not find tweet with tweet_id: [1]."}
    ]
    assert delete(api, fan, f"/2/users/{fan['id']}/likes/nope").status_code == 400


def test_liked_tweets_and_liking_users(api: Api, make_user: Any) -> None:
    author, fan, other = make_user(), make_user(), make_user()
    tweets = [create_ok(api, author) for _ in range(3)]
    for tweet in tweets:
        assert like(api, fan, tweet["id"]).status_code == 200
    assert like(api, other, tweets[0]["id"]).status_code == 200

    body = get(api, fan, f"/2/users/{fan['id']}/liked_tweets", max_results="5")
    assert [item["id"] for item in body["data"]] == [t["id"] for t in reversed(tweets)]
    assert body["meta"] == {"result_count": 3}

    first = get(api, fan, f"/2/users/{fan['id']}/liked_tweets", max_results="5")
    assert "next_token" not in first["meta"]

    users = get(api, fan, f"/2/tweets/{tweets[0]['id']}/liking_users", max_results="1")
    assert [item["id"] for item in users["data"]] == [other["id"]]
    assert len(users["meta"]["next_token"]) >= 16
    second = get(
        api,
        fan,
        f"/2/tweets/{tweets[0]['id']}/liking_users",
        max_results="1",
        pagination_token=users["meta"]["next_token"],
    )
    assert [item["id"] for item in second["data"]] == [fan["id"]]
    assert "next_token" not in second["meta"]
    assert "previous_token" in second["meta"]

    missing = get(api, fan, "/2/tweets/1/liking_users")
    assert missing["errors"][0]["title"] == "Not Found Error"
    assert get(api, make_user(), f"/2/users/{author['id']}/liked_tweets") == {"meta": {"result_count": 0}}


# ---- follows ---------------------------------------------------------------------------------------


def follow(api: Api, source: User, target: User) -> httpx.Response:
    return post(api, source, f"/2/users/{source['id']}/following", {"target_user_id": target["id"]})


def test_follow_and_unfollow(api: Api, server: LiveServer, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    response = follow(api, alice, bob)
    assert response.status_code == 200
    assert response.json() == {"data": {"following": True, "pending_follow": False}}
    assert follow(api, alice, bob).json() == {"data": {"following": True, "pending_follow": False}}
    assert user_view(api, alice["id"])["public_metrics"]["following_count"] == 1
    assert user_view(api, bob["id"])["public_metrics"]["followers_count"] == 1

    assert [u["id"] for u in get(api, alice, f"/2/users/{alice['id']}/following")["data"]] == [bob["id"]]
    assert [u["id"] for u in get(api, alice, f"/2/users/{bob['id']}/followers")["data"]] == [alice["id"]]
    assert api.get(f"/2/users/{bob['id']}/followers").status_code == 200  # app-only works too

    response = delete(api, alice, f"/2/users/{alice['id']}/following/{bob['id']}")
    assert response.status_code == 200
    assert response.json() == {"data": {"following": False}}
    assert delete(api, alice, f"/2/users/{alice['id']}/following/{bob['id']}").json() == {
        "data": {"following": False}
    }
    assert user_view(api, alice["id"])["public_metrics"]["following_count"] == 0
    assert user_view(api, bob["id"])["public_metrics"]["followers_count"] == 0

    payload = {"source_id": alice["id"], "target_id": bob["id"]}
    assert events(server, "follow.", bob["id"]) == [
        ("follow.follow", alice["id"], payload),
        ("follow.unfollow", alice["id"], payload),
    ]


def test_follow_protected_is_pending(api: Api, server: LiveServer, make_user: Any) -> None:
    alice, locked = make_user(), make_user(protected=True)
    response = follow(api, alice, locked)
    assert response.json() == {"data": {"following": False, "pending_follow": True}}
    assert user_view(api, locked["id"])["public_metrics"]["followers_count"] == 0
    assert events(server, "follow.", locked["id"]) == []
    # Their lists stay hidden to someone who does not follow them.
    body = get(api, alice, f"/2/users/{locked['id']}/following")
    assert body["errors"][0]["title"] == "Authorization Error"


def test_follow_errors(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    response = post(api, alice, f"/2/users/{bob['id']}/following", {"target_user_id": alice["id"]})
    assert response.status_code == 403
    assert response.json() == NOT_PERMITTED
    assert delete(api, alice, f"/2/users/{bob['id']}/following/{alice['id']}").status_code == 403
    response = post(api, alice, f"/2/users/{alice['id']}/following", {"target_user_id": "x1"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameters"] == {"target_user_id": ["x1"]}
    response = post(api, alice, f"/2/users/{alice['id']}/following", {"target_user_id": "1"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == "Could not find user with target_user_id: [1]."
    assert delete(api, alice, f"/2/users/{alice['id']}/following/abc").status_code == 400
    assert follow(api, alice, alice).status_code == 403


def test_oauth1_and_scopes(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    path = f"/2/users/{alice['id']}/following"
    headers = api.oauth1("POST", path, token=alice["token"], secret=alice["secret"])
    response = api.post(path, auth="none", headers=headers, json={"target_user_id": bob["id"]})
    assert response.status_code == 200, response.text
    # App-only credentials cannot write.
    assert api.post(path, json={"target_user_id": bob["id"]}).status_code == 403


def test_followers_paginate(api: Api, make_user: Any) -> None:
    star = make_user()
    fans = [make_user() for _ in range(3)]
    for fan in fans:
        assert follow(api, fan, star).status_code == 200
    page = get(api, star, f"/2/users/{star['id']}/followers", max_results="2")
    assert [u["id"] for u in page["data"]] == [fans[2]["id"], fans[1]["id"]]
    rest = get(
        api,
        star,
        f"/2/users/{star['id']}/followers",
        max_results="2",
        pagination_token=page["meta"]["next_token"],
    )
    assert [u["id"] for u in rest["data"]] == [fans[0]["id"]]
    back = get(
        api,
        star,
        f"/2/users/{star['id']}/followers",
        max_results="2",
        pagination_token=rest["meta"]["previous_token"],
    )
    assert back["data"] == page["data"]
    response = api.get(f"/2/users/{star['id']}/followers", params={"pagination_token": "zzzzzzzzzzzzzzzzzz"})
    assert response.status_code == 400


# ---- mutes and the private lists ---------------------------------------------------------------------


def test_mute_and_unmute(api: Api, server: LiveServer, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    path = f"/2/users/{alice['id']}/muting"
    response = post(api, alice, path, {"target_user_id": bob["id"]})
    assert response.status_code == 200
    assert response.json() == {"data": {"muting": True}}
    assert post(api, alice, path, {"target_user_id": bob["id"]}).json() == {"data": {"muting": True}}
    assert [u["id"] for u in get(api, alice, path)["data"]] == [bob["id"]]

    response = delete(api, alice, f"/2/users/{alice['id']}/muting/{bob['id']}")
    assert response.json() == {"data": {"muting": False}}
    assert delete(api, alice, f"/2/users/{alice['id']}/muting/{bob['id']}").json() == {
        "data": {"muting": False}
    }
    assert get(api, alice, path) == {"meta": {"result_count": 0}}

    payload = {"source_id": alice["id"], "target_id": bob["id"]}
    assert events(server, "mute.", bob["id"]) == [
        ("mute.mute", alice["id"], payload),
        ("mute.unmute", alice["id"], payload),
    ]


def test_private_lists_are_for_the_owner(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    for listing in ("muting", "blocking"):
        response = api.get(f"/2/users/{bob['id']}/{listing}", auth="none", headers=bearer(alice))
        assert response.status_code == 403
        assert response.json() == NOT_PERMITTED
    assert (
        post(api, alice, f"/2/users/{bob['id']}/muting", {"target_user_id": alice["id"]}).status_code == 403
    )
    assert get(api, alice, f"/2/users/{alice['id']}/blocking") == {"meta": {"result_count": 0}}


def test_blocked_user_cannot_follow(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    assert follow(api, bob, alice).status_code == 200
    blocked = api.http.post(
        "/_roost/blocks", json={"source_user_id": alice["id"], "target_user_id": bob["id"]}
    )
    assert blocked.status_code == 201
    # The block removed bob's follow, and he cannot follow again.
    assert user_view(api, alice["id"])["public_metrics"]["followers_count"] == 0
    assert follow(api, bob, alice).status_code == 403
    assert [u["id"] for u in get(api, alice, f"/2/users/{alice['id']}/blocking")["data"]] == [bob["id"]]
