"""Every compliance event roost sends, held key for key to a reference shape written from the
platform's payload samples (its compliance data-objects page) and the schemas of SPEC 2.167: the exact
keys at every level, ids as digit strings, `event_at` with milliseconds and `Z`, and the
`profile_field` names of the platform's list (docs/streams.md, docs/decisions.md)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.api.helpers import bearer, create_ok, delete_as, new_user
from tests.api.streams.stream_support import conforms_167, finite, now_iso, window
from tests.support.client import Api
from tests.support.server import LiveServer
from tests.support.shapes import ISO_MS, Text, problems

from roost.events.selectors import partition_of

TWEETS = "/2/tweets/compliance/stream"
USERS = "/2/users/compliance/stream"
LIKES = "/2/likes/compliance/stream"

ID = Text(r"[0-9]{1,19}")  # a post or user id
TIME = ISO_MS  # 2022-09-06T19:31:16.801Z
TEXT = str


# ---- the reference shapes (the platform's samples) -------------------------------------------------

POST_DELETE = {"data": {"delete": {"tweet": {"id": ID, "author_id": ID}, "event_at": TIME}}}
QUOTED_POST_DELETE = {
    "data": {"delete": {"tweet": {"id": ID, "author_id": ID}, "quote_tweet_id": ID, "event_at": TIME}}
}
TWEET_EDIT = {
    "data": {
        "tweet_edit": {"tweet": {"id": ID}, "initial_tweet_id": ID, "edit_tweet_ids": [ID], "event_at": TIME}
    }
}
PROFILE_MODIFICATION = {
    "data": {
        "user_profile_modification": {
            "user": {"id": ID},
            "event_at": TIME,
            "profile_field": TEXT,
            "new_value": TEXT,
        }
    }
}
FAVORITE_DELETE = {"data": {"delete": {"favorite": {"id": ID, "user_id": ID}, "event_at": TIME}}}


def shaped(path: str, lines: list[dict[str, Any]], shape: dict[str, Any]) -> list[dict[str, Any]]:
    """Each line in `shape` and valid for SPEC 2.167; their `data`."""
    for line in lines:
        assert problems(line, shape) == [], line
        conforms_167("GET", path, 200, line)
    return [line["data"] for line in lines]


# ---- posts ----------------------------------------------------------------------------------------


def post_lines(server: LiveServer, api: Api, post_id: str, start: str) -> list[dict[str, Any]]:
    partition = str(partition_of(int(post_id), 4))
    return finite(server, api, TWEETS, partition=partition, **window(server, start))


def test_post_delete(api: Api, server: LiveServer) -> None:
    author = new_user(api)
    post = create_ok(api, author)["id"]
    start = now_iso(server)
    assert delete_as(api, author, post).status_code == 200
    lines = [line for line in post_lines(server, api, post, start) if "delete" in line["data"]]
    data = shaped(
        TWEETS, [line for line in lines if line["data"]["delete"]["tweet"]["id"] == post], POST_DELETE
    )
    assert [d["delete"]["tweet"] for d in data] == [{"id": post, "author_id": author["id"]}]


def test_post_delete_of_a_quoted_post_adds_a_delete_per_quote(api: Api, server: LiveServer) -> None:
    author, quoter = new_user(api), new_user(api)
    post = create_ok(api, author)["id"]
    quotes = sorted((create_ok(api, quoter, quote_tweet_id=post)["id"] for _ in range(2)), key=int)
    gone = create_ok(api, quoter, quote_tweet_id=post)["id"]
    assert delete_as(api, quoter, gone).status_code == 200  # a deleted quote has nothing to comply with
    start = now_iso(server)
    assert delete_as(api, author, post).status_code == 200
    ours = [
        line
        for line in post_lines(server, api, post, start)
        if line["data"].get("delete", {}).get("tweet", {}).get("id") == post
    ]
    plain = shaped(
        TWEETS, [line for line in ours if "quote_tweet_id" not in line["data"]["delete"]], POST_DELETE
    )
    quoted = shaped(
        TWEETS, [line for line in ours if "quote_tweet_id" in line["data"]["delete"]], QUOTED_POST_DELETE
    )
    assert len(plain) == 1
    assert [d["delete"]["quote_tweet_id"] for d in quoted] == quotes
    assert {d["delete"]["event_at"] for d in quoted} == {plain[0]["delete"]["event_at"]}
    assert all(d["delete"]["tweet"] == {"id": post, "author_id": author["id"]} for d in quoted)


def test_post_delete_of_an_edited_post_names_quotes_of_every_version(api: Api, server: LiveServer) -> None:
    author, quoter = new_user(api, premium=True), new_user(api)
    first = create_ok(api, author, text="first version")["id"]
    of_first = create_ok(api, quoter, quote_tweet_id=first)["id"]
    last = create_ok(api, author, text="second version", edit_options={"previous_post_id": first})["id"]
    of_last = create_ok(api, quoter, quote_tweet_id=last)["id"]
    start = now_iso(server)
    assert delete_as(api, author, last).status_code == 200
    ours = [
        line
        for line in post_lines(server, api, last, start)
        if line["data"].get("delete", {}).get("tweet", {}).get("id") == last
    ]
    quoted = shaped(
        TWEETS, [line for line in ours if "quote_tweet_id" in line["data"]["delete"]], QUOTED_POST_DELETE
    )
    assert [d["delete"]["quote_tweet_id"] for d in quoted] == sorted([of_first, of_last], key=int)


def test_post_edit(api: Api, server: LiveServer) -> None:
    author = new_user(api, premium=True)
    original = create_ok(api, author, text="first version")["id"]
    start = now_iso(server)
    second = create_ok(api, author, text="second version", edit_options={"previous_post_id": original})["id"]
    third = create_ok(api, author, text="third version", edit_options={"previous_post_id": second})["id"]
    edits = [
        line
        for post in (second, third)
        for line in post_lines(server, api, post, start)
        if line["data"].get("tweet_edit", {}).get("tweet", {}).get("id") == post
    ]
    data = shaped(TWEETS, edits, TWEET_EDIT)
    assert [(d["tweet_edit"]["tweet"]["id"], d["tweet_edit"]["edit_tweet_ids"]) for d in data] == [
        (second, [original, second]),
        (third, [original, second, third]),
    ]
    assert {d["tweet_edit"]["initial_tweet_id"] for d in data} == {original}


# ---- users ----------------------------------------------------------------------------------------


def profile_lines(server: LiveServer, api: Api, user: dict[str, Any], *changes: dict[str, Any]) -> list[Any]:
    """Apply each change through the control plane; the (profile_field, new_value) pairs the users
    compliance stream sends for the user over that time, every line held to the reference shape."""
    start = now_iso(server)
    for change in changes:
        response = api.http.patch(f"/_roost/users/{user['id']}/profile", json=change)
        assert response.status_code == 200, response.text
        assert response.json()["changed"], change
    partition = str(partition_of(int(user["id"]), 4))
    lines = finite(server, api, USERS, partition=partition, **window(server, start))
    mine = [
        line
        for line in lines
        if line["data"].get("user_profile_modification", {}).get("user") == {"id": user["id"]}
    ]
    data = shaped(USERS, mine, PROFILE_MODIFICATION)
    return [
        (d["user_profile_modification"]["profile_field"], d["user_profile_modification"]["new_value"])
        for d in data
    ]


@pytest.mark.parametrize(
    ("body", "field", "value"),
    [
        ({"description": "Home of a test bot."}, "profile.description", "Home of a test bot."),
        ({"location": "Berlin"}, "profile.location", "Berlin"),
        ({"url": "https://example.com/home"}, "profile.url", "https://example.com/home"),
        (
            {"profile_image_url": "https://pbs.twimg.com/a.jpg"},
            "profile.profileImage",
            "https://pbs.twimg.com/a.jpg",
        ),
        (
            {"profile_banner_url": "https://pbs.twimg.com/b.jpg"},
            "profile.profileBanner",
            "https://pbs.twimg.com/b.jpg",
        ),
    ],
)
def test_profile_modification(
    api: Api, server: LiveServer, body: dict[str, Any], field: str, value: str
) -> None:
    user = new_user(api)
    assert profile_lines(server, api, user, body) == [(field, value)]


def test_display_name_change_is_profile_name(api: Api, server: LiveServer) -> None:
    user = new_user(api, name="Old Name")
    assert profile_lines(server, api, user, {"name": "New Name"}) == [("profile.name", "New Name")]


def test_handle_verified_and_affiliation_send_nothing(api: Api, server: LiveServer) -> None:
    # The platform's list of profile fields has none for these; the bio change after them bounds the
    # window and shows the stream did read that far.
    user = new_user(api)
    assert profile_lines(
        server,
        api,
        user,
        {"username": "h" + user["id"][-12:]},
        {"verified": True},
        {"affiliation": {"description": "Roost", "url": "https://roost.dev"}},
        {"description": "after the others"},
    ) == [("profile.description", "after the others")]


def test_standing_changes(api: Api, server: LiveServer) -> None:
    """Suspension, deactivation (the platform's `user_delete`), their reversals and a geo scrub, set
    through the control plane, each as the users stream's own object."""
    user = new_user(api)
    newest = create_ok(api, user)["id"]
    start = now_iso(server)
    standing = f"/_roost/users/{user['id']}/standing"
    for change in (
        {"suspended": True},
        {"suspended": False},
        {"deactivated": True},
        {"deactivated": False},
        {"scrub_geo": True},
        {"suspended": False},  # no change: no event
    ):
        response = api.http.post(standing, json=change)
        assert response.status_code == 200, response.text
    partition = str(partition_of(int(user["id"]), 4))
    lines = finite(server, api, USERS, partition=partition, **window(server, start))
    mine = [line for line in lines if next(iter(line["data"].values()))["user"] == {"id": user["id"]}]
    kinds = ["user_suspend", "user_unsuspend", "user_delete", "user_undelete"]
    assert [next(iter(line["data"])) for line in mine] == [*kinds, "scrub_geo"]
    for kind, line in zip(kinds, mine, strict=False):
        shaped(USERS, [line], {"data": {kind: {"user": {"id": ID}, "event_at": TIME}}})
    scrub = {"data": {"scrub_geo": {"user": {"id": ID}, "up_to_tweet_id": ID, "event_at": TIME}}}
    assert shaped(USERS, [mine[-1]], scrub)[0]["scrub_geo"]["up_to_tweet_id"] == newest


# ---- likes ----------------------------------------------------------------------------------------


def test_unlike(api: Api, server: LiveServer) -> None:
    author, fan = new_user(api), new_user(api)
    post = create_ok(api, author)["id"]
    liked = api.post(f"/2/users/{fan['id']}/likes", auth="none", headers=bearer(fan), json={"tweet_id": post})
    assert liked.status_code == 200
    start = now_iso(server)
    assert (
        api.delete(f"/2/users/{fan['id']}/likes/{post}", auth="none", headers=bearer(fan)).status_code == 200
    )
    lines = finite(server, api, LIKES, **window(server, start))
    data = shaped(
        LIKES,
        [line for line in lines if line["data"]["delete"]["favorite"]["user_id"] == fan["id"]],
        FAVORITE_DELETE,
    )
    assert [d["delete"]["favorite"] for d in data] == [{"id": post, "user_id": fan["id"]}]
