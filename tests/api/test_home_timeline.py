"""The home timeline (`GET /2/users/{id}/timelines/reverse_chronological`): the user's and followed
accounts' posts and reposts newest first, its bounds and paging, and who may read it."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.helpers import (
    PROBLEMS,
    User,
    bearer,
    create_ok,
    delete_as,
    import_objects,
    import_user,
    new_user,
    next_import_id,
)
from tests.support.client import Api

NOT_PERMITTED = {
    "detail": "You are not permitted to perform this action.",
    "type": "about:blank",
    "title": "Forbidden",
    "status": 403,
}


def home(api: Api, user: User, **params: str) -> httpx.Response:
    path = f"/2/users/{user['id']}/timelines/reverse_chronological"
    return api.get(path, auth="none", headers=bearer(user), params=params)


def home_ok(api: Api, user: User, **params: str) -> dict[str, Any]:
    response = home(api, user, **params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def ids(body: dict[str, Any]) -> list[str]:
    return [item["id"] for item in body.get("data", [])]


def follow(api: Api, follower: User, followee: User) -> None:
    response = api.http.post(
        "/_roost/follows", json={"follower_id": follower["id"], "followee_id": followee["id"]}
    )
    assert response.status_code == 201, response.text


def repost(api: Api, user: User, post_id: str) -> str:
    response = api.post(
        f"/2/users/{user['id']}/retweets", auth="none", headers=bearer(user), json={"tweet_id": post_id}
    )
    assert response.status_code == 200, response.text
    rest_id: str = response.json()["data"]["rest_id"]
    return rest_id


def test_own_and_followed_posts_and_reposts_newest_first(api: Api) -> None:
    me, friend, stranger = new_user(api), new_user(api), new_user(api)
    follow(api, me, friend)
    mine = create_ok(api, me)["id"]
    theirs = create_ok(api, friend)["id"]
    create_ok(api, stranger)  # not followed: never on the timeline
    strangers = create_ok(api, stranger)["id"]
    shared = repost(api, friend, strangers)
    reply = create_ok(api, friend, reply={"in_reply_to_tweet_id": mine})["id"]

    body = home_ok(api, me)
    assert ids(body) == [reply, shared, theirs, mine]
    assert body["meta"] == {"result_count": 4, "newest_id": reply, "oldest_id": mine}
    assert ids(home_ok(api, me, exclude="retweets")) == [reply, theirs, mine]
    assert ids(home_ok(api, me, exclude="replies")) == [shared, theirs, mine]
    assert ids(home_ok(api, me, exclude="replies,retweets")) == [theirs, mine]
    assert ids(home_ok(api, me, since_id=theirs)) == [reply, shared]
    assert ids(home_ok(api, me, until_id=shared)) == [theirs, mine]

    with_author = home_ok(api, me, expansions="author_id", **{"tweet.fields": "author_id"})
    assert {user["id"] for user in with_author["includes"]["users"]} == {me["id"], friend["id"]}

    # An undone repost leaves the timeline.
    undone = api.delete(f"/2/users/{friend['id']}/retweets/{strangers}", auth="none", headers=bearer(friend))
    assert undone.status_code == 200
    assert ids(home_ok(api, me)) == [reply, theirs, mine]


def test_paging_both_ways(api: Api) -> None:
    me, friend = new_user(api), new_user(api)
    follow(api, me, friend)
    posts = [create_ok(api, friend if n % 2 else me)["id"] for n in range(5)]
    newest_first = list(reversed(posts))

    first = home_ok(api, me, max_results="2")
    assert ids(first) == newest_first[:2]
    assert "previous_token" not in first["meta"]
    second = home_ok(api, me, max_results="2", pagination_token=first["meta"]["next_token"])
    assert ids(second) == newest_first[2:4]
    third = home_ok(api, me, max_results="2", pagination_token=second["meta"]["next_token"])
    assert ids(third) == newest_first[4:]
    assert "next_token" not in third["meta"]
    back = home_ok(api, me, max_results="2", pagination_token=second["meta"]["previous_token"])
    assert ids(back) == newest_first[:2]

    # A token of another list is refused.
    other = new_user(api)
    response = home(api, other, pagination_token=first["meta"]["next_token"])
    assert response.status_code == 400


def test_protected_followees_are_seen_by_their_followers(api: Api) -> None:
    me, private = new_user(api), new_user(api, protected=True)
    follow(api, me, private)
    secret = create_ok(api, private)["id"]
    assert ids(home_ok(api, me)) == [secret]


def test_bounds_and_access(api: Api) -> None:
    me, other = new_user(api), new_user(api)
    create_ok(api, me)
    assert home_ok(api, me, max_results="1")["meta"]["result_count"] == 1
    for bad in ("0", "101"):
        response = home(api, me, max_results=bad)
        assert response.status_code == 400
    response = home(api, me, start_time="2010-01-01T00:00:00Z")
    assert response.status_code == 400

    # Only the authenticated user's own timeline.
    path = f"/2/users/{other['id']}/timelines/reverse_chronological"
    response = api.get(path, auth="none", headers=bearer(me))
    assert response.status_code == 403
    assert response.json() == NOT_PERMITTED
    # User context only: OAuth 1.0a works, an app-only token does not.
    headers = api.oauth1(
        "GET", f"/2/users/{me['id']}/timelines/reverse_chronological", token=me["token"], secret=me["secret"]
    )
    response = api.get(f"/2/users/{me['id']}/timelines/reverse_chronological", auth="none", headers=headers)
    assert response.status_code == 200, response.text
    response = api.get(f"/2/users/{me['id']}/timelines/reverse_chronological")
    assert response.status_code == 403
    assert response.json()["type"] == PROBLEMS + "unsupported-authentication"


def test_empty_timeline_has_only_a_count(api: Api) -> None:
    me = new_user(api)
    assert home_ok(api, me) == {"meta": {"result_count": 0}}


def test_a_page_mostly_filtered_out_still_fills(api: Api) -> None:
    me, friend = new_user(api), new_user(api)
    follow(api, me, friend)
    kept = [create_ok(api, friend)["id"] for _ in range(3)]
    root = create_ok(api, me)["id"]
    # Far more replies than one read of candidates holds: the page reads on until it has its posts.
    for _ in range(30):
        create_ok(api, friend, reply={"in_reply_to_tweet_id": root})
    body = home_ok(api, me, exclude="replies", max_results="3")
    assert ids(body) == [root, kept[2], kept[1]]
    rest = home_ok(api, me, exclude="replies", max_results="3", pagination_token=body["meta"]["next_token"])
    assert ids(rest) == [kept[0]]


def test_a_write_shows_on_the_next_read(api: Api) -> None:
    """Each page is cut from the user's entries kept in memory: a commit makes the next read see it."""
    me, friend, later = new_user(api), new_user(api, premium=True), new_user(api)  # premium: edits
    follow(api, me, friend)
    first = create_ok(api, friend)["id"]
    assert ids(home_ok(api, me)) == [first]
    second = create_ok(api, friend)["id"]
    assert ids(home_ok(api, me)) == [second, first]
    assert ids(home_ok(api, me, max_results="5")) == [second, first]
    assert delete_as(api, friend, first).status_code == 200
    assert ids(home_ok(api, me)) == [second]

    # A new followee's posts come in, an unfollowed one's go.
    theirs = create_ok(api, later)["id"]
    follow(api, me, later)
    assert ids(home_ok(api, me)) == [theirs, second]
    path = f"/2/users/{me['id']}/following/{later['id']}"
    assert api.delete(path, auth="none", headers=bearer(me)).status_code == 200
    assert ids(home_ok(api, me)) == [second]

    # An edit replaces the version it edits.
    edited = create_ok(api, friend, edit_options={"previous_post_id": second})["id"]
    assert ids(home_ok(api, me)) == [edited]


def test_the_timeline_reaches_back_3200_posts(api: Api) -> None:
    """The platform serves a home timeline's 3,200 most recent posts: paging stops there, and bounds
    beyond them find nothing."""
    me = new_user(api)
    author = import_user(api)
    posts = [
        {"id": next_import_id(), "text": f"old post {n}", "author_id": author["id"]} for n in range(3210)
    ]
    assert import_objects(api, {"tweets": posts})["tweets"] == 3210
    follow(api, me, author)
    newest_first = [post["id"] for post in reversed(posts)]
    seen: list[str] = []
    page = home_ok(api, me, max_results="100")
    while True:
        seen += ids(page)
        token = page["meta"].get("next_token")
        if token is None:
            break
        page = home_ok(api, me, max_results="100", pagination_token=token)
    assert seen == newest_first[:3200]
    assert ids(home_ok(api, me, exclude="replies", until_id=newest_first[3198])) == [newest_first[3199]]
    assert home_ok(api, me, until_id=newest_first[3199]) == {"meta": {"result_count": 0}}
    assert (
        home_ok(api, me, since_id=newest_first[-1], max_results="5")["meta"]["oldest_id"] == newest_first[4]
    )
    # Backwards from the oldest page: its newer neighbours.
    back = home_ok(api, me, max_results="100", pagination_token=page["meta"]["previous_token"])
    assert ids(back) == newest_first[3000:3100]
