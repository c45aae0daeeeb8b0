"""Compliance streams: post deletes and edits (`/2/tweets/compliance/stream`), profile changes
(`/2/users/compliance/stream`), unlikes (`/2/likes/compliance/stream`) and the label stream; every
line is checked against the schemas of SPEC 2.167."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import PROBLEMS, bearer, create_ok, delete_as, new_user
from tests.api.streams.stream_support import conforms_167, finite, now_iso, stream, window
from tests.api.test_filtered_stream import Lines
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.events.selectors import partition_of

TWEETS = "/2/tweets/compliance/stream"
USERS = "/2/users/compliance/stream"
LIKES = "/2/likes/compliance/stream"
LABELS = "/2/tweets/label/stream"


def checked(path: str, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for line in lines:
        conforms_167("GET", path, 200, line)
    return [line["data"] for line in lines]


def test_post_delete_is_a_delete_event_in_its_partition(api: Api, server: LiveServer) -> None:
    author = new_user(api)
    post = create_ok(api, author)["id"]
    start = now_iso(server)
    assert delete_as(api, author, post).status_code == 200
    span = window(server, start)
    part = partition_of(int(post), 4)
    data = checked(TWEETS, finite(server, api, TWEETS, partition=str(part), **span))
    deletes = [d["delete"] for d in data if "delete" in d and d["delete"]["tweet"]["id"] == post]
    assert len(deletes) == 1
    assert deletes[0]["tweet"] == {"id": post, "author_id": author["id"]}
    assert deletes[0]["event_at"].endswith("Z")
    other = next(p for p in range(1, 5) if p != part)
    elsewhere = checked(TWEETS, finite(server, api, TWEETS, partition=str(other), **span))
    assert all(d.get("delete", {}).get("tweet", {}).get("id") != post for d in elsewhere)


def test_post_edit_is_a_tweet_edit_event(api: Api, server: LiveServer) -> None:
    author = new_user(api, premium=True)
    original = create_ok(api, author, text="first version")["id"]
    start = now_iso(server)
    edited = create_ok(api, author, text="second version", edit_options={"previous_post_id": original})["id"]
    data = checked(
        TWEETS,
        finite(server, api, TWEETS, partition=str(partition_of(int(edited), 4)), **window(server, start)),
    )
    edits = [d["tweet_edit"] for d in data if "tweet_edit" in d]
    assert edits == [
        {
            "tweet": {"id": edited},
            "initial_tweet_id": original,
            "edit_tweet_ids": [original, edited],
            "event_at": edits[0]["event_at"],
        }
    ]


def test_profile_change_is_a_profile_modification(api: Api, server: LiveServer) -> None:
    user = new_user(api, description="old bio")
    start = now_iso(server)
    changed = api.http.patch(f"/_roost/users/{user['id']}/profile", json={"description": "new bio"})
    assert changed.status_code == 200, changed.text
    span = window(server, start)
    data = checked(USERS, finite(server, api, USERS, partition=str(partition_of(int(user["id"]), 4)), **span))
    mods = [d["user_profile_modification"] for d in data if "user_profile_modification" in d]
    assert [(m["user"], m["profile_field"], m["new_value"]) for m in mods] == [
        ({"id": user["id"]}, "profile.description", "new bio")
    ]


def test_unlike_is_a_favorite_delete(api: Api, server: LiveServer) -> None:
    author, fan = new_user(api), new_user(api)
    post = create_ok(api, author)["id"]
    liked = api.post(f"/2/users/{fan['id']}/likes", auth="none", headers=bearer(fan), json={"tweet_id": post})
    assert liked.status_code == 200
    start = now_iso(server)
    path = f"/2/users/{fan['id']}/likes/{post}"
    assert api.delete(path, auth="none", headers=bearer(fan)).status_code == 200
    data = checked(LIKES, finite(server, api, LIKES, **window(server, start)))
    assert [d["delete"]["favorite"] for d in data] == [{"id": post, "user_id": fan["id"]}]


def test_label_stream_sends_keep_alives(api: Api, server: LiveServer) -> None:
    with stream(server, api, LABELS) as response:
        assert response.status_code == 200
        lines = Lines(response)
        assert lines.next_raw() == b"\r\n"


def test_live_delete_arrives_on_an_open_stream(api: Api, server: LiveServer) -> None:
    author = new_user(api)
    post = create_ok(api, author)["id"]
    with stream(server, api, TWEETS, partition=str(partition_of(int(post), 4))) as response:
        lines = Lines(response)
        lines.next_raw()  # connected
        assert delete_as(api, author, post).status_code == 200
        line = lines.next_post()
        conforms_167("GET", TWEETS, 200, line)
        assert line["data"]["delete"]["tweet"]["id"] == post


def test_bad_requests(api: Api) -> None:
    assert api.get(TWEETS).status_code == 400  # partition is required
    assert api.get(USERS, params={"partition": "5"}).status_code == 400
    assert api.get(LIKES, params={"partition": "1"}).status_code == 400  # no partitions
    assert api.get(LIKES, params={"tweet.fields": "id"}).status_code == 400  # not a post stream
    user_token = api.get(LABELS, auth="oauth2")
    assert user_token.status_code == 403
    assert user_token.json()["type"] == PROBLEMS + "unsupported-authentication"
