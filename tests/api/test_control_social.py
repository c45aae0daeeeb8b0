"""Control-plane causes of activity events: blocks, profile edits, spaces and the control follow."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import user_view
from tests.support.client import Api
from tests.support.server import LiveServer


def logged(server: LiveServer, kind_prefix: str, user_id: str) -> list[tuple[str, Any]]:
    """(kind, payload) of the logged events of a kind family acted by one user, oldest first."""
    from roost.core import jsonio

    services = server.app.server.stores  # type: ignore[union-attr]
    rows = server.run(services.events.after(0, 1_000_000))
    return [
        (row["kind"], jsonio.loads(row["payload"]))
        for row in rows
        if row["kind"].startswith(kind_prefix) and str(row["user_id"]) == user_id
    ]


def follow(api: Api, source: dict[str, Any], target: dict[str, Any]) -> None:
    response = api.http.post(
        "/_roost/follows", json={"follower_id": source["id"], "followee_id": target["id"]}
    )
    assert response.status_code == 201, response.text  # a new follow
    assert response.json() == {"following": True, "created": True}


# ---- follows ------------------------------------------------------------------------------------------


def test_control_follow_appends_event_once(api: Api, server: LiveServer, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    first = api.http.post("/_roost/follows", json={"follower_id": alice["id"], "followee_id": bob["id"]})
    assert first.status_code == 201
    again = api.http.post("/_roost/follows", json={"follower_id": alice["id"], "followee_id": bob["id"]})
    assert again.status_code == 200
    assert again.json() == {"following": True, "created": False}
    assert logged(server, "follow.", alice["id"]) == [
        ("follow.follow", {"source_id": alice["id"], "target_id": bob["id"]})
    ]
    bad = api.http.post("/_roost/follows", json={"follower_id": "9" * 25, "followee_id": bob["id"]})
    assert bad.status_code == 400


# ---- blocks -------------------------------------------------------------------------------------------


def test_block_removes_follows_both_ways(api: Api, server: LiveServer, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    follow(api, alice, bob)
    follow(api, bob, alice)
    response = api.http.post(
        "/_roost/blocks", json={"source_user_id": alice["id"], "target_user_id": bob["id"]}
    )
    assert response.status_code == 201
    assert response.json() == {"blocking": True, "created": True}
    for user in (alice, bob):
        metrics = user_view(api, user["id"])["public_metrics"]
        assert (metrics["followers_count"], metrics["following_count"]) == (0, 0)
    again = api.http.post("/_roost/blocks", json={"source_user_id": alice["id"], "target_user_id": bob["id"]})
    assert again.status_code == 200
    assert again.json() == {"blocking": True, "created": False}

    response = api.http.delete(f"/_roost/blocks/{alice['id']}/{bob['id']}")
    assert response.status_code == 200
    assert response.json() == {"blocking": False, "removed": True}
    assert api.http.delete(f"/_roost/blocks/{alice['id']}/{bob['id']}").json()["removed"] is False

    payload = {"source_id": alice["id"], "target_id": bob["id"]}
    assert logged(server, "block.", alice["id"]) == [("block.block", payload), ("block.unblock", payload)]


def test_block_errors(api: Api, make_user: Any) -> None:
    alice = make_user()
    for body in (
        {},
        {"source_user_id": alice["id"]},
        {"source_user_id": alice["id"], "target_user_id": "abc"},
        {"source_user_id": alice["id"], "target_user_id": "1"},  # no such user
        {"source_user_id": alice["id"], "target_user_id": True},
        [],
    ):
        response = api.http.post("/_roost/blocks", json=body)
        assert response.status_code == 400, body
        assert response.json()["title"] == "Invalid Request"
    response = api.http.post(
        "/_roost/blocks", json={"source_user_id": alice["id"], "target_user_id": alice["id"]}
    )
    assert response.status_code == 403
    assert api.http.delete(f"/_roost/blocks/{alice['id']}/x").status_code == 400
    response = api.http.post("/_roost/blocks", content=b"{not json")
    assert response.status_code == 400


# ---- profile ------------------------------------------------------------------------------------------


def test_profile_update_emits_one_event_per_changed_field(
    api: Api, server: LiveServer, make_user: Any
) -> None:
    user = make_user(description="old bio", name="Old Name")
    path = f"/_roost/users/{user['id']}/profile"
    response = api.http.patch(
        path,
        json={
            "description": "new bio #roost",
            "name": "Old Name",  # unchanged: no event
            "verified": True,
            "location": "Berlin",
            "url": "https://example.com",
            "affiliation": {"description": "Roost", "url": "https://roost.dev"},
            "profile_banner_url": "https://pbs.twimg.com/banner.jpg",
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert sorted(body["changed"]) == sorted(
        ["description", "verified", "location", "url", "affiliation", "profile_banner_url"]
    )
    assert body["user"]["description"] == "new bio #roost"

    view = user_view(api, user["id"], "description,location,url,verified,entities")
    assert (view["description"], view["location"], view["url"], view["verified"]) == (
        "new bio #roost",
        "Berlin",
        "https://example.com",
        True,
    )
    assert view["entities"]["description"]["hashtags"][0]["tag"] == "roost"

    uid = user["id"]
    assert dict(logged(server, "profile.update.", uid)) == {
        "profile.update.bio": {"user_id": uid, "before": "old bio", "after": "new bio #roost"},
        # Every value a string, as the document types them; a badge named by what it shows.
        "profile.update.verified": {"user_id": uid, "before": "none", "after": "blue"},
        "profile.update.geo": {"user_id": uid, "before": "", "after": "Berlin"},
        "profile.update.url": {"user_id": uid, "before": "", "after": "https://example.com"},
        "profile.update.affiliate": {"user_id": uid, "before": "", "after": "Roost"},
        "profile.update.banner_picture": {
            "user_id": uid,
            "before": "",
            "after": "https://pbs.twimg.com/banner.jpg",
        },
    }

    # The same values again change nothing and log nothing.
    again = api.http.patch(path, json={"description": "new bio #roost", "verified": True})
    assert again.json()["changed"] == []
    assert len(logged(server, "profile.update.", uid)) == 6


def test_profile_username_and_name(api: Api, server: LiveServer, make_user: Any) -> None:
    user, other = make_user(name="Before"), make_user()
    path = f"/_roost/users/{user['id']}/profile"
    new_name = "r" + user["id"][-10:]
    response = api.http.patch(path, json={"username": new_name, "name": "Display"})
    assert response.status_code == 200, response.text
    assert user_view(api, user["id"], "username")["username"] == new_name
    # The platform's `screenname` is the display name and `handle` the @username.
    assert dict(logged(server, "profile.update.", user["id"])) == {
        "profile.update.handle": {"user_id": user["id"], "before": user["username"], "after": new_name},
        "profile.update.screenname": {"user_id": user["id"], "before": "Before", "after": "Display"},
    }
    # Another user's name is taken (case-insensitively).
    taken = api.http.patch(path, json={"username": other["username"].upper()})
    assert taken.status_code == 409


def test_profile_validation(api: Api, make_user: Any) -> None:
    user = make_user()
    path = f"/_roost/users/{user['id']}/profile"
    for body in (
        {},
        {"username": "has space"},
        {"username": "x" * 16},
        {"description": "x" * 161},
        {"verified": "yes"},
        {"affiliation": "Roost"},
        {"profile_image_url": "ftp://x"},
        {"name": None},
        {"nickname": "x"},
        [],
    ):
        response = api.http.patch(path, json=body)
        assert response.status_code == 400, body
    assert api.http.patch("/_roost/users/1/profile", json={"name": "x"}).status_code == 404
    assert api.http.patch("/_roost/users/abc/profile", json={"name": "x"}).status_code == 400


# ---- spaces -------------------------------------------------------------------------------------------


def test_space_start_and_end(api: Api, server: LiveServer, make_user: Any) -> None:
    host = make_user()
    response = api.http.post("/_roost/spaces", json={"creator_id": host["id"], "title": "Roost hour"})
    assert response.status_code == 201
    space = response.json()
    assert len(space["id"]) == 13 and space["id"].isalnum()
    assert (space["state"], space["creator_id"], space["title"]) == ("live", host["id"], "Roost hour")

    ended = api.http.post(f"/_roost/spaces/{space['id']}/end")
    assert ended.status_code == 200
    assert ended.json()["state"] == "ended"
    assert ended.json()["ended_now"] is True
    assert api.http.post(f"/_roost/spaces/{space['id']}/end").json()["ended_now"] is False

    payload = {"space_id": space["id"], "creator_id": host["id"]}
    assert logged(server, "spaces.", host["id"]) == [("spaces.start", payload), ("spaces.end", payload)]


def test_space_errors(api: Api) -> None:
    assert api.http.post("/_roost/spaces", json={}).status_code == 400
    assert api.http.post("/_roost/spaces", json={"creator_id": "1"}).status_code == 400
    response = api.http.post("/_roost/spaces/1ZZZZZZZZZZZZ/end")
    assert response.status_code == 404
    assert response.json()["title"] == "Not Found Error"
