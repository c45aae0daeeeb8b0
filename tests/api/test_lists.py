"""Lists over v2: create, look up, update, delete; members, followers, pins and the list timeline;
privacy (a private list is its owner's alone), the caps, paging, counters and validation."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.helpers import (
    PROBLEMS,
    User,
    bearer,
    create_ok,
    invalid_request,
    not_found_item,
    user_view,
)
from tests.conformance.oracle import assert_conforms
from tests.support.client import Api

NOT_PERMITTED = {
    "detail": "You are not permitted to perform this action.",
    "type": "about:blank",
    "title": "Forbidden",
    "status": 403,
}


def call(api: Api, user: User, method: str, path: str, body: Any = None, **params: str) -> httpx.Response:
    kwargs: dict[str, Any] = {"auth": "none", "headers": bearer(user)}
    if body is not None:
        kwargs["json"] = body
    if params:
        kwargs["params"] = params
    return api.request(method, path, **kwargs)


def read(api: Api, user: User | None, path: str, **params: str) -> dict[str, Any]:
    """A GET as `user` (OAuth 2.0), or as the app (bearer token) when `user` is None."""
    response = api.get(path, params=params) if user is None else call(api, user, "GET", path, **params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def create_list(api: Api, owner: User, name: str = "Reading", **fields: Any) -> str:
    # 2.159 documents the create as 200, 2.167 (and recorded traffic) as 201: checked against 2.167.
    response = api.post(
        "/2/lists", auth="none", headers=bearer(owner), json={"name": name, **fields}, conform=False
    )
    assert response.status_code == 201, response.text
    assert_conforms("POST", "/2/lists", 201, response.json(), "post")
    list_id: str = response.json()["data"]["id"]
    return list_id


def add_member(api: Api, owner: User, list_id: str, member: User) -> httpx.Response:
    return call(api, owner, "POST", f"/2/lists/{list_id}/members", {"user_id": member["id"]})


def make_list(api: Api, owner: User, members: list[User], private: bool = False) -> str:
    """A list of `owner`'s with these members (for the search and stream tests of `list:`)."""
    list_id = create_list(api, owner, "Members", private=private)
    for member in members:
        assert add_member(api, owner, list_id, member).status_code == 200
    return list_id


def list_view(api: Api, viewer: User | None, list_id: str) -> dict[str, Any]:
    fields = "created_at,description,follower_count,member_count,owner_id,private"
    return read(api, viewer, f"/2/lists/{list_id}", **{"list.fields": fields})


def listed_count(api: Api, user: User) -> int:
    count: int = user_view(api, user["id"])["public_metrics"]["listed_count"]
    return count


def ids(body: dict[str, Any]) -> list[str]:
    return [item["id"] for item in body.get("data", [])]


# ---- a list ---------------------------------------------------------------------------------------


def test_create_answers_201_with_id_name_and_location(api: Api, make_user: Any) -> None:
    owner = make_user()
    response = api.post(
        "/2/lists",
        auth="none",
        headers=bearer(owner),
        json={"name": "Test List", "private": True},
        conform=False,
    )
    assert response.status_code == 201
    body = response.json()
    assert body == {"data": {"id": body["data"]["id"], "name": "Test List"}}
    assert response.headers["location"] == f"https://api.twitter.com/2/lists/{body['data']['id']}"


def test_lookup_has_default_fields_every_field_and_the_owner_expansion(api: Api, make_user: Any) -> None:
    owner = make_user()
    list_id = create_list(api, owner, "Databases", description="Storage people")
    assert read(api, None, f"/2/lists/{list_id}") == {"data": {"id": list_id, "name": "Databases"}}

    body = read(
        api,
        owner,
        f"/2/lists/{list_id}",
        **{"list.fields": "created_at,description,follower_count,member_count,owner_id,private"},
        expansions="owner_id",
    )
    data = body["data"]
    assert data["description"] == "Storage people"
    assert (data["member_count"], data["follower_count"], data["private"]) == (0, 0, False)
    assert data["owner_id"] == owner["id"]
    assert data["created_at"].endswith("Z")
    assert [user["id"] for user in body["includes"]["users"]] == [owner["id"]]

    # The expansion alone brings owner_id along.
    assert read(api, None, f"/2/lists/{list_id}", expansions="owner_id")["data"]["owner_id"] == owner["id"]


def test_lookup_of_a_missing_list_answers_the_not_found_item(api: Api) -> None:
    assert read(api, None, "/2/lists/1234567") == {"errors": [not_found_item("list", "id", "1234567")]}


def test_update_changes_only_what_the_body_names(api: Api, make_user: Any) -> None:
    owner = make_user()
    list_id = create_list(api, owner, "Before", description="old")
    response = call(api, owner, "PUT", f"/2/lists/{list_id}", {"description": "new words"})
    assert response.status_code == 200
    assert response.json() == {"data": {"updated": True}}
    data = list_view(api, owner, list_id)["data"]
    assert (data["name"], data["description"], data["private"]) == ("Before", "new words", False)

    assert (
        call(api, owner, "PUT", f"/2/lists/{list_id}", {"name": "After", "private": True}).status_code == 200
    )
    data = list_view(api, owner, list_id)["data"]
    assert (data["name"], data["description"], data["private"]) == ("After", "new words", True)


def test_delete_removes_the_list_and_its_memberships(api: Api, make_user: Any) -> None:
    owner, member, fan = make_user(), make_user(), make_user()
    list_id = create_list(api, owner)
    assert add_member(api, owner, list_id, member).status_code == 200
    assert (
        call(api, fan, "POST", f"/2/users/{fan['id']}/followed_lists", {"list_id": list_id}).status_code
        == 200
    )
    assert listed_count(api, member) == 1

    response = call(api, owner, "DELETE", f"/2/lists/{list_id}")
    assert response.status_code == 200
    assert response.json() == {"data": {"deleted": True}}
    assert read(api, None, f"/2/lists/{list_id}") == {"errors": [not_found_item("list", "id", list_id)]}
    assert listed_count(api, member) == 0
    assert "data" not in read(api, None, f"/2/users/{member['id']}/list_memberships")
    assert "data" not in read(api, None, f"/2/users/{fan['id']}/followed_lists")

    again = call(api, owner, "DELETE", f"/2/lists/{list_id}")
    assert again.status_code == 404
    assert again.json() == {
        "title": "Not Found Error",
        "detail": f"Could not find list with id: [{list_id}].",
        "type": PROBLEMS + "resource-not-found",
        "status": 404,
        "value": list_id,
        "resource_type": "list",
        "parameter": "id",
        "resource_id": list_id,
    }


def test_only_the_owner_changes_a_list(api: Api, make_user: Any) -> None:
    owner, other, member = make_user(), make_user(), make_user()
    list_id = create_list(api, owner)
    for method, path, body in (
        ("PUT", f"/2/lists/{list_id}", {"name": "mine now"}),
        ("DELETE", f"/2/lists/{list_id}", None),
        ("POST", f"/2/lists/{list_id}/members", {"user_id": member["id"]}),
        ("DELETE", f"/2/lists/{list_id}/members/{member['id']}", None),
    ):
        response = call(api, other, method, path, body)
        assert response.status_code == 403, (method, path)
        assert response.json() == NOT_PERMITTED
    assert list_view(api, None, list_id)["data"]["name"] == "Reading"


def test_bodies_are_checked_like_the_platform_schema(api: Api, make_user: Any) -> None:
    owner = make_user()
    list_id = create_list(api, owner)
    cases = [
        ("POST", "/2/lists", {"description": "no name"}, "$.name: is missing but it is required"),
        ("POST", "/2/lists", {"name": ""}, "$.name: must be at least 1 characters long"),
        ("POST", "/2/lists", {"name": "x" * 26}, "$.name: may only be 25 characters long"),
        (
            "POST",
            "/2/lists",
            {"name": "ok", "description": "d" * 101},
            "$.description: may only be 100 characters long",
        ),
        ("POST", "/2/lists", {"name": "ok", "private": "yes"}, "$.private: string found, boolean expected"),
        ("POST", "/2/lists", {"name": 5}, "$.name: integer found, string expected"),
        (
            "POST",
            "/2/lists",
            {"name": "ok", "mode": "private"},
            "$.mode: is not defined in the schema and the schema does not allow additional properties",
        ),
        ("PUT", f"/2/lists/{list_id}", {"name": "y" * 26}, "$.name: may only be 25 characters long"),
        ("POST", f"/2/lists/{list_id}/members", {}, "$.user_id: is missing but it is required"),
        (
            "POST",
            f"/2/users/{owner['id']}/pinned_lists",
            {"list_id": 7},
            "$.list_id: integer found, string expected",
        ),
    ]
    for method, path, body, message in cases:
        response = call(api, owner, method, path, body)
        assert response.status_code == 400, (body, response.text)
        assert response.json() == invalid_request({"parameters": {}, "message": message}), body

    bad_id = call(api, owner, "POST", f"/2/lists/{list_id}/members", {"user_id": "12ab"})
    assert bad_id.status_code == 400
    assert bad_id.json() == invalid_request(
        {
            "parameters": {"user_id": ["12ab"]},
            "message": "The `user_id` field value [12ab] does not match ^[0-9]{1,19}$",
        }
    )


# ---- members --------------------------------------------------------------------------------------


def test_members_are_added_once_counted_and_removed(api: Api, make_user: Any) -> None:
    owner, first, second = make_user(), make_user(), make_user()
    list_id = create_list(api, owner)
    response = add_member(api, owner, list_id, first)
    assert response.status_code == 200
    assert response.json() == {"data": {"is_member": True}}
    assert add_member(api, owner, list_id, first).json() == {"data": {"is_member": True}}  # no second count
    assert add_member(api, owner, list_id, second).status_code == 200

    assert list_view(api, None, list_id)["data"]["member_count"] == 2
    assert listed_count(api, first) == 1
    members = read(api, None, f"/2/lists/{list_id}/members", **{"user.fields": "public_metrics"})
    assert ids(members) == [second["id"], first["id"]]  # newest member first
    assert members["meta"] == {"result_count": 2}
    memberships = read(api, None, f"/2/users/{first['id']}/list_memberships")
    assert memberships == {"data": [{"id": list_id, "name": "Reading"}], "meta": {"result_count": 1}}

    removed = call(api, owner, "DELETE", f"/2/lists/{list_id}/members/{first['id']}")
    assert removed.status_code == 200
    assert removed.json() == {"data": {"is_member": False}}
    again = call(api, owner, "DELETE", f"/2/lists/{list_id}/members/{first['id']}")
    assert again.json() == {"data": {"is_member": False}}
    assert list_view(api, None, list_id)["data"]["member_count"] == 1
    assert listed_count(api, first) == 0
    assert ids(read(api, None, f"/2/lists/{list_id}/members")) == [second["id"]]


def test_adding_a_missing_user_or_to_a_missing_list(api: Api, make_user: Any) -> None:
    owner, member = make_user(), make_user()
    list_id = create_list(api, owner)
    response = call(api, owner, "POST", f"/2/lists/{list_id}/members", {"user_id": "123456789"})
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {
            "parameters": {"user_id": ["123456789"]},
            "message": "Could not find user with user_id: [123456789].",
        }
    )
    missing = add_member(api, owner, "98765", member)
    assert missing.status_code == 404
    assert missing.json()["detail"] == "Could not find list with id: [98765]."


def test_blocks_keep_users_off_each_others_lists(api: Api, make_user: Any) -> None:
    owner, blocker = make_user(), make_user()
    assert (
        api.http.post(
            "/_roost/blocks", json={"source_user_id": blocker["id"], "target_user_id": owner["id"]}
        ).status_code
        == 201
    )
    list_id = create_list(api, owner)
    response = add_member(api, owner, list_id, blocker)
    assert response.status_code == 403
    assert list_view(api, owner, list_id)["data"]["member_count"] == 0
    # Nor may someone the owner blocked follow the owner's list.
    blocked = make_user()
    assert (
        api.http.post(
            "/_roost/blocks", json={"source_user_id": owner["id"], "target_user_id": blocked["id"]}
        ).status_code
        == 201
    )
    follow = call(api, blocked, "POST", f"/2/users/{blocked['id']}/followed_lists", {"list_id": list_id})
    assert follow.status_code == 403
    assert list_view(api, owner, list_id)["data"]["follower_count"] == 0


# ---- privacy --------------------------------------------------------------------------------------


def test_a_private_list_is_its_owners_alone(api: Api, make_user: Any) -> None:
    owner, member, stranger = make_user(), make_user(), make_user()
    secret = create_list(api, owner, "Secret", private=True)
    public = create_list(api, owner, "Open")
    for list_id in (secret, public):
        assert add_member(api, owner, list_id, member).status_code == 200
    create_ok(api, member)

    missing = {"errors": [not_found_item("list", "id", secret)]}
    for viewer in (None, stranger):  # the app, and another user
        assert read(api, viewer, f"/2/lists/{secret}") == missing
        assert read(api, viewer, f"/2/lists/{secret}/members") == missing
        assert read(api, viewer, f"/2/lists/{secret}/followers") == missing
        assert read(api, viewer, f"/2/lists/{secret}/tweets") == missing
        assert ids(read(api, viewer, f"/2/users/{owner['id']}/owned_lists")) == [public]
        assert ids(read(api, viewer, f"/2/users/{member['id']}/list_memberships")) == [public]
    assert list_view(api, owner, secret)["data"]["private"] is True
    assert ids(read(api, owner, f"/2/users/{owner['id']}/owned_lists")) == [public, secret]
    assert ids(read(api, owner, f"/2/users/{member['id']}/list_memberships")) == [public, secret]
    assert len(ids(read(api, owner, f"/2/lists/{secret}/tweets"))) == 1

    # Writes by others: the list does not exist for them.
    for method, path, body in (
        ("PUT", f"/2/lists/{secret}", {"name": "x"}),
        ("POST", f"/2/users/{stranger['id']}/followed_lists", {"list_id": secret}),
        ("POST", f"/2/users/{stranger['id']}/pinned_lists", {"list_id": secret}),
    ):
        response = call(api, stranger, method, path, body)
        assert response.status_code == 404, (method, path)
        assert response.json()["type"] == PROBLEMS + "resource-not-found"

    # listed_count counts the public lists a user is on.
    assert listed_count(api, member) == 1


def test_turning_a_list_private_drops_its_followers_and_public_counts(api: Api, make_user: Any) -> None:
    owner, member, fan = make_user(), make_user(), make_user()
    list_id = create_list(api, owner)
    assert add_member(api, owner, list_id, member).status_code == 200
    follow = call(api, fan, "POST", f"/2/users/{fan['id']}/followed_lists", {"list_id": list_id})
    assert follow.json() == {"data": {"following": True}}
    assert listed_count(api, member) == 1

    assert call(api, owner, "PUT", f"/2/lists/{list_id}", {"private": True}).status_code == 200
    assert listed_count(api, member) == 0
    assert list_view(api, owner, list_id)["data"]["follower_count"] == 0
    assert "data" not in read(api, fan, f"/2/users/{fan['id']}/followed_lists")

    assert call(api, owner, "PUT", f"/2/lists/{list_id}", {"private": False}).status_code == 200
    assert listed_count(api, member) == 1


# ---- followers ------------------------------------------------------------------------------------


def test_follow_and_unfollow_a_list(api: Api, make_user: Any) -> None:
    owner, fan = make_user(), make_user()
    list_id = create_list(api, owner)
    path = f"/2/users/{fan['id']}/followed_lists"
    response = call(api, fan, "POST", path, {"list_id": list_id})
    assert response.status_code == 200
    assert response.json() == {"data": {"following": True}}
    assert call(api, fan, "POST", path, {"list_id": list_id}).json() == {"data": {"following": True}}
    assert list_view(api, None, list_id)["data"]["follower_count"] == 1
    assert ids(read(api, None, f"/2/lists/{list_id}/followers")) == [fan["id"]]
    followed = read(api, None, path, **{"list.fields": "owner_id"}, expansions="owner_id")
    assert followed["data"] == [{"id": list_id, "name": "Reading", "owner_id": owner["id"]}]
    assert [user["id"] for user in followed["includes"]["users"]] == [owner["id"]]

    response = call(api, fan, "DELETE", f"{path}/{list_id}")
    assert response.status_code == 200
    assert response.json() == {"data": {"following": False}}
    assert call(api, fan, "DELETE", f"{path}/{list_id}").json() == {"data": {"following": False}}
    assert list_view(api, None, list_id)["data"]["follower_count"] == 0
    assert read(api, None, f"/2/lists/{list_id}/followers") == {"meta": {"result_count": 0}}


def test_list_writes_on_users_act_for_the_authenticated_user_only(api: Api, make_user: Any) -> None:
    owner, fan = make_user(), make_user()
    list_id = create_list(api, owner)
    for method, path, body in (
        ("POST", f"/2/users/{owner['id']}/followed_lists", {"list_id": list_id}),
        ("DELETE", f"/2/users/{owner['id']}/followed_lists/{list_id}", None),
        ("POST", f"/2/users/{owner['id']}/pinned_lists", {"list_id": list_id}),
        ("DELETE", f"/2/users/{owner['id']}/pinned_lists/{list_id}", None),
    ):
        response = call(api, fan, method, path, body)
        assert response.status_code == 403, (method, path)
        assert response.json() == NOT_PERMITTED
    pinned = call(api, fan, "GET", f"/2/users/{owner['id']}/pinned_lists")
    assert pinned.status_code == 403
    assert pinned.json() == NOT_PERMITTED


def test_an_owner_does_not_follow_their_own_list(api: Api, make_user: Any) -> None:
    owner = make_user()
    list_id = create_list(api, owner)
    response = call(api, owner, "POST", f"/2/users/{owner['id']}/followed_lists", {"list_id": list_id})
    assert response.status_code == 403
    assert list_view(api, owner, list_id)["data"]["follower_count"] == 0


# ---- pins -----------------------------------------------------------------------------------------


def test_pin_unpin_and_the_pinned_cap(api: Api, make_user: Any) -> None:
    owner, other = make_user(), make_user()
    theirs = create_list(api, other, "Theirs")
    path = f"/2/users/{owner['id']}/pinned_lists"
    response = call(api, owner, "POST", path, {"list_id": theirs})
    assert response.status_code == 200
    assert response.json() == {"data": {"pinned": True}}
    assert call(api, owner, "POST", path, {"list_id": theirs}).json() == {"data": {"pinned": True}}
    assert read(api, owner, path) == {"data": [{"id": theirs, "name": "Theirs"}], "meta": {"result_count": 1}}

    mine = [create_list(api, owner, f"Mine {n}") for n in range(5)]
    for list_id in mine[:4]:
        assert call(api, owner, "POST", path, {"list_id": list_id}).status_code == 200
    over = call(api, owner, "POST", path, {"list_id": mine[4]})
    assert over.status_code == 403
    assert over.json()["detail"] == "You cannot pin more than 5 Lists."
    assert read(api, owner, path)["meta"] == {"result_count": 5}

    response = call(api, owner, "DELETE", f"{path}/{theirs}")
    assert response.status_code == 200
    assert response.json() == {"data": {"pinned": False}}
    assert call(api, owner, "POST", path, {"list_id": mine[4]}).status_code == 200
    pinned = read(api, owner, path, **{"list.fields": "private"})
    assert set(ids(pinned)) == set(mine)


def test_pinned_lists_need_a_user_context(api: Api, make_user: Any) -> None:
    owner = make_user()
    response = api.get(f"/2/users/{owner['id']}/pinned_lists")
    assert response.status_code == 403
    assert response.json()["title"] == "Unsupported Authentication"


# ---- the list timeline ----------------------------------------------------------------------------


def test_list_tweets_are_the_members_posts_newest_first_paged(api: Api, make_user: Any) -> None:
    owner, first, second, outsider = make_user(), make_user(), make_user(), make_user()
    list_id = create_list(api, owner)
    for member in (first, second):
        assert add_member(api, owner, list_id, member).status_code == 200
    posts = []
    for author in (first, outsider, second, first, second):
        posts.append((author, create_ok(api, author)["id"]))
    expected = [post_id for author, post_id in reversed(posts) if author is not outsider]

    body = read(api, None, f"/2/lists/{list_id}/tweets")
    assert ids(body) == expected
    assert body["meta"] == {"result_count": 4}
    assert set(body["data"][0]) == {"id", "text", "edit_history_tweet_ids"}

    seen: list[str] = []
    page = read(api, None, f"/2/lists/{list_id}/tweets", max_results="3")
    seen += ids(page)
    assert page["meta"]["result_count"] == 3
    page = read(
        api, None, f"/2/lists/{list_id}/tweets", max_results="3", pagination_token=page["meta"]["next_token"]
    )
    seen += ids(page)
    assert page["meta"] == {"result_count": 1}
    assert seen == expected

    expanded = read(api, None, f"/2/lists/{list_id}/tweets", expansions="author_id", max_results="1")
    assert expanded["includes"]["users"][0]["id"] == second["id"]

    # The post vocabulary answers under its names (and conforms to 2.167).
    post_names = read(api, None, f"/2/lists/{list_id}/tweets", **{"post.fields": "public_metrics"})
    assert "repost_count" in post_names["data"][0]["public_metrics"]


def test_list_tweets_hide_protected_members_from_those_who_may_not_see_them(api: Api, make_user: Any) -> None:
    owner, open_member, locked, follower = make_user(), make_user(), make_user(protected=True), make_user()
    api.http.post("/_roost/follows", json={"follower_id": follower["id"], "followee_id": locked["id"]})
    list_id = create_list(api, owner)
    for member in (open_member, locked):
        assert add_member(api, owner, list_id, member).status_code == 200
    open_post = create_ok(api, open_member)["id"]
    locked_post = create_ok(api, locked)["id"]

    path = f"/2/lists/{list_id}/tweets"
    assert ids(read(api, None, path)) == [open_post]
    assert ids(read(api, owner, path)) == [open_post]
    assert ids(read(api, follower, path)) == [locked_post, open_post]
    assert ids(read(api, locked, path)) == [locked_post, open_post]


def test_deleted_posts_leave_the_list_timeline(api: Api, make_user: Any) -> None:
    owner, member = make_user(), make_user()
    list_id = create_list(api, owner)
    assert add_member(api, owner, list_id, member).status_code == 200
    kept, gone = create_ok(api, member)["id"], create_ok(api, member)["id"]
    assert call(api, member, "DELETE", f"/2/tweets/{gone}").status_code == 200
    assert ids(read(api, None, f"/2/lists/{list_id}/tweets")) == [kept]
