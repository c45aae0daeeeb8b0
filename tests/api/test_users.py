"""User lookups by ids, id, usernames, username and /2/users/me: fields, expansions, connection_status."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.api.helpers import (
    PROBLEMS,
    create_ok,
    import_objects,
    import_user,
    invalid_request,
    new_user,
    next_import_id,
    not_found_item,
)
from tests.support.client import Api
from tests.support.server import LiveServer

PATTERN = "^[A-Za-z0-9_]{1,15}$"


@pytest.fixture(scope="module")
def people(server: LiveServer, credentials: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A rich imported profile pinned to a post, affiliated with a second imported user."""
    api = Api(server.base_url, credentials)
    company = import_user(api, name="Company", verified_type="business")
    pinned_id = next_import_id()
    profile_id = next_import_id()
    profile = {
        "id": profile_id,
        "username": f"Prof_{profile_id[-8:]}",
        "name": "A Profile",
        "created_at": "2015-06-07T08:09:10.000Z",
        "description": "Testing things #qa with @roost_dev",
        "location": "Lisbon",
        "url": "https://example.org",
        "protected": False,
        "verified": True,
        "verified_type": "blue",
        "subscription_type": "Premium",
        "parody": True,
        "is_identity_verified": True,
        "profile_image_url": "https://pbs.twimg.com/profile_images/1/a_normal.jpg",
        "profile_banner_url": "https://pbs.twimg.com/profile_banners/1/1",
        "pinned_tweet_id": pinned_id,
        "most_recent_tweet_id": pinned_id,
        "affiliation": {"description": "Company", "user_id": [company["id"]]},
        "withheld": {"country_codes": ["FR"]},
        "public_metrics": {"followers_count": 7, "following_count": 3, "tweet_count": 1, "listed_count": 2},
    }
    import_objects(
        api,
        {"users": [profile], "tweets": [{"id": pinned_id, "author_id": profile_id, "text": "pinned post"}]},
    )
    yield {"api": api, "profile": profile, "company": company, "pinned": pinned_id}
    api.close()


def test_default_fields_in_every_lookup(api: Api, people: dict[str, Any]) -> None:
    profile = people["profile"]
    expected = {"id": profile["id"], "name": "A Profile", "username": profile["username"]}
    assert api.get(f"/2/users/{profile['id']}").json() == {"data": expected}
    assert api.get("/2/users", params={"ids": profile["id"]}).json() == {"data": [expected]}
    assert api.get("/2/users/by", params={"usernames": profile["username"]}).json() == {"data": [expected]}
    assert api.get(f"/2/users/by/username/{profile['username']}").json() == {"data": expected}


def test_every_user_field(api: Api, people: dict[str, Any]) -> None:
    profile = people["profile"]
    fields = (
        "affiliation,confirmed_email,connection_status,created_at,description,entities,id,is_identity_verified,"
        "location,most_recent_tweet_id,name,parody,pinned_tweet_id,profile_banner_url,profile_image_url,"
        "protected,public_metrics,receives_your_dm,subscribes_to_you,subscription,subscription_type,url,"
        "username,verified,verified_followers_count,verified_type,withheld"
    )
    data = api.get(f"/2/users/{profile['id']}", params={"user.fields": fields}).json()["data"]
    for name in (
        "created_at",
        "description",
        "location",
        "url",
        "verified_type",
        "subscription_type",
        "profile_image_url",
        "profile_banner_url",
        "protected",
        "verified",
        "parody",
        "is_identity_verified",
        "pinned_tweet_id",
        "most_recent_tweet_id",
        "withheld",
    ):
        assert data[name] == profile[name], name
    assert data["affiliation"] == {"description": "Company", "user_id": [people["company"]["id"]]}
    assert data["public_metrics"] == {
        "followers_count": 7,
        "following_count": 3,
        "tweet_count": 1,
        "post_count": 1,
        "listed_count": 2,
        "like_count": 0,
        "media_count": 0,
    }
    assert data["entities"]["description"]["hashtags"] == [{"start": 15, "end": 18, "tag": "qa"}]
    assert data["entities"]["description"]["mentions"][0]["username"] == "roost_dev"
    assert data["entities"]["url"]["urls"][0]["expanded_url"] == "https://example.org"
    assert data["receives_your_dm"] is True
    assert data["subscribes_to_you"] is False
    assert data["verified_followers_count"] == 0
    # No viewer with an app-only token: no connection_status; confirmed_email is never shown to others.
    assert "connection_status" not in data and "confirmed_email" not in data


def test_user_expansions(api: Api, people: dict[str, Any]) -> None:
    profile, pinned = people["profile"], people["pinned"]
    body = api.get(
        f"/2/users/{profile['id']}",
        params={
            "expansions": "pinned_tweet_id,most_recent_tweet_id,affiliation.user_id",
            "tweet.fields": "author_id",
            "user.fields": "verified_type",
        },
    ).json()
    assert body["includes"]["tweets"] == [
        {"id": pinned, "text": "pinned post", "edit_history_tweet_ids": [pinned], "author_id": profile["id"]}
    ]
    assert body["includes"]["users"] == [
        {
            "id": people["company"]["id"],
            "name": "Company",
            "username": people["company"]["username"],
            "verified_type": "business",
        }
    ]
    assert body["data"]["verified_type"] == "blue"
    # An expansion brings the field it follows along, as on the platform.
    assert body["data"]["pinned_tweet_id"] == pinned
    assert body["data"]["most_recent_tweet_id"] == pinned


def test_user_expansions_in_post_vocabulary(api: Api, people: dict[str, Any]) -> None:
    profile, pinned = people["profile"], people["pinned"]
    body = api.get(
        f"/2/users/{profile['id']}",
        params={
            "expansions": "pinned_post_id,most_recent_post_id",
            "user.fields": "pinned_post_id,most_recent_post_id,public_metrics",
        },
    ).json()
    assert body["data"]["pinned_post_id"] == pinned
    assert body["data"]["most_recent_post_id"] == pinned
    assert "pinned_tweet_id" not in body["data"]
    assert body["data"]["public_metrics"]["post_count"] == 1
    assert body["includes"] == {
        "posts": [{"id": pinned, "text": "pinned post", "edit_history_post_ids": [pinned]}]
    }


def test_missing_pinned_post_reported_with_expansion_name(api: Api) -> None:
    ghost = next_import_id()
    user = import_user(api, pinned_tweet_id=ghost)
    body = api.get(f"/2/users/{user['id']}", params={"expansions": "pinned_tweet_id"}).json()
    assert body["data"]["id"] == user["id"]
    assert body["errors"] == [not_found_item("tweet", "pinned_tweet_id", ghost)]
    assert body["errors"][0]["detail"] == f"Could not find tweet with pinned_tweet_id: [{ghost}]."


def test_most_recent_post_follows_new_posts(api: Api, make_user: Any) -> None:
    user = make_user()
    post = create_ok(api, user)
    body = api.get(f"/2/users/{user['id']}", params={"expansions": "most_recent_tweet_id"}).json()
    assert body["includes"]["tweets"][0]["id"] == post["id"]


def test_partial_errors_for_ids_and_usernames(api: Api, people: dict[str, Any]) -> None:
    profile, missing = people["profile"], next_import_id()
    body = api.get("/2/users", params={"ids": f"{missing},{profile['id']}"}).json()
    assert [u["id"] for u in body["data"]] == [profile["id"]]
    assert body["errors"] == [not_found_item("user", "ids", missing)]
    body = api.get("/2/users/by", params={"usernames": f"{profile['username']},nobody_here_x"}).json()
    assert [u["id"] for u in body["data"]] == [profile["id"]]
    assert body["errors"] == [not_found_item("user", "usernames", "nobody_here_x")]
    assert api.get(f"/2/users/{missing}").json() == {"errors": [not_found_item("user", "id", missing)]}
    single = api.get("/2/users/by/username/nobody_here_x")
    assert single.status_code == 200
    assert single.json() == {"errors": [not_found_item("user", "username", "nobody_here_x")]}


def test_usernames_are_case_insensitive(api: Api, people: dict[str, Any]) -> None:
    profile = people["profile"]
    for spelling in (profile["username"].lower(), profile["username"].upper()):
        single = api.get(f"/2/users/by/username/{spelling}").json()["data"]
        assert single["username"] == profile["username"]
        many = api.get("/2/users/by", params={"usernames": spelling}).json()["data"]
        assert [u["id"] for u in many] == [profile["id"]]


@pytest.mark.parametrize("name", ["bad-name", "this_is_far_too_long", "émile"])
def test_bad_username_pattern(api: Api, name: str) -> None:
    single = api.get(f"/2/users/by/username/{name}")
    assert single.status_code == 400
    assert single.json() == invalid_request(
        {
            "parameters": {"username": [name]},
            "message": f"The `username` query parameter value [{name}] does not match {PATTERN}",
        }
    )
    many = api.get("/2/users/by", params={"usernames": f"roost_dev,{name}"})
    assert many.status_code == 400
    assert many.json()["errors"] == [
        {
            "parameters": {"usernames": [f"roost_dev,{name}"]},
            "message": f"The `usernames` query parameter value [{name}] does not match {PATTERN}",
        }
    ]


def test_me_with_each_user_context(api: Api, credentials: dict[str, Any], make_user: Any) -> None:
    demo = {"id": credentials["user_id"], "name": "Roost Developer", "username": credentials["username"]}
    assert api.get("/2/users/me", auth="oauth1").json() == {"data": demo}
    assert api.get("/2/users/me", auth="oauth2").json() == {"data": demo}
    user = make_user()
    headers = api.oauth1("GET", "/2/users/me", token=user["token"], secret=user["secret"])
    assert api.get("/2/users/me", auth="none", headers=headers).json()["data"]["id"] == user["id"]
    mine = api.get(
        "/2/users/me",
        auth="none",
        headers={"Authorization": f"Bearer {user['oauth2']}"},
        params={"user.fields": "created_at,public_metrics,connection_status"},
    ).json()["data"]
    assert mine["username"] == user["username"]
    assert mine["public_metrics"]["tweet_count"] == 0
    assert "connection_status" not in mine


def test_me_refuses_app_only(api: Api) -> None:
    response = api.get("/2/users/me")
    assert response.status_code == 403
    assert response.json() == {
        "title": "Unsupported Authentication",
        "detail": "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  "
        "Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].",
        "type": PROBLEMS + "unsupported-authentication",
        "status": 403,
    }


def _follow(api: Api, follower: str, followee: str) -> None:
    response = api.http.post("/_roost/follows", json={"follower_id": follower, "followee_id": followee})
    assert response.status_code == 201, response.text  # a new follow
    assert response.json() == {"following": True, "created": True}


def test_connection_status(api: Api, make_user: Any) -> None:
    viewer, followed, follower, mutual, stranger = (make_user() for _ in range(5))
    _follow(api, viewer["id"], followed["id"])
    _follow(api, follower["id"], viewer["id"])
    _follow(api, viewer["id"], mutual["id"])
    _follow(api, mutual["id"], viewer["id"])
    ids = ",".join(u["id"] for u in (followed, follower, mutual, stranger, viewer))
    params = {"ids": ids, "user.fields": "connection_status"}
    seen = api.get(
        "/2/users", params=params, auth="none", headers={"Authorization": f"Bearer {viewer['oauth2']}"}
    ).json()["data"]
    status = {u["id"]: u.get("connection_status") for u in seen}
    assert status == {
        followed["id"]: ["following"],
        follower["id"]: ["followed_by"],
        mutual["id"]: ["following", "followed_by"],
        stranger["id"]: [],
        viewer["id"]: None,
    }
    as_app = api.get("/2/users", params=params).json()["data"]
    assert all("connection_status" not in u for u in as_app)


def test_connection_status_in_expanded_users(api: Api, make_user: Any) -> None:
    viewer, author = make_user(), make_user()
    _follow(api, viewer["id"], author["id"])
    post = create_ok(api, author)
    body = api.get(
        f"/2/tweets/{post['id']}",
        auth="none",
        headers={"Authorization": f"Bearer {viewer['oauth2']}"},
        params={"expansions": "author_id", "user.fields": "connection_status"},
    ).json()
    assert body["includes"]["users"] == [
        {
            "id": author["id"],
            "name": author["username"],
            "username": author["username"],
            "connection_status": ["following"],
        }
    ]


def test_demo_followers_match_connection_status(api: Api, credentials: dict[str, Any]) -> None:
    me = api.get("/2/users/me", auth="oauth2", params={"user.fields": "public_metrics"}).json()["data"]
    others = [u["id"] for u in api.http.get("/_roost/export").json()["users"] if u["id"] != me["id"]]
    followed_by = 0
    for start in range(0, len(others), 100):
        params = {"ids": ",".join(others[start : start + 100]), "user.fields": "connection_status"}
        seen = api.get("/2/users", auth="oauth2", params=params).json()["data"]
        followed_by += sum("followed_by" in u["connection_status"] for u in seen)
    assert followed_by == me["public_metrics"]["followers_count"] > 0


def test_new_user_with_no_posts(api: Api) -> None:
    user = new_user(api)
    data = api.get(
        f"/2/users/{user['id']}", params={"user.fields": "public_metrics,most_recent_tweet_id"}
    ).json()
    assert data["data"]["public_metrics"]["tweet_count"] == 0
    assert "most_recent_tweet_id" not in data["data"]
