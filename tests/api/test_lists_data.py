"""Lists over v2, continued: paging and its errors, the 800-post reach of the list timeline, both
vocabularies, the demo's lists, import and export, and the caps (reached through imported lists)."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import bearer, create_ok, import_objects, import_user, next_import_id, not_found_item
from tests.api.test_lists import add_member, call, create_list, ids, list_view, listed_count, read
from tests.support.client import Api


def test_owned_lists_page_with_tokens(api: Api, make_user: Any) -> None:
    owner = make_user()
    made = [create_list(api, owner, f"List {n}") for n in range(5)]
    path = f"/2/users/{owner['id']}/owned_lists"
    seen: list[str] = []
    page = read(api, None, path, max_results="2")
    while True:
        seen += ids(page)
        token = page["meta"].get("next_token")
        if token is None:
            break
        page = read(api, None, path, max_results="2", pagination_token=token)
    assert seen == list(reversed(made))  # newest first
    assert page["meta"]["result_count"] == 1

    bad = api.get(path, params={"pagination_token": "notatoken1234567"})
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["message"] == (
        "The `pagination_token` query parameter value [notatoken1234567] is not a valid token"
    )
    for value in ("0", "101"):
        response = api.get(path, params={"max_results": value})
        assert response.status_code == 400
        assert response.json()["errors"][0]["message"] == (
            f"The `max_results` query parameter value [{value}] is not between 1 and 100"
        )


def test_members_page_with_tokens(api: Api, make_user: Any) -> None:
    owner = make_user()
    members = [make_user() for _ in range(3)]
    list_id = create_list(api, owner)
    for member in members:
        assert add_member(api, owner, list_id, member).status_code == 200
    first = read(api, None, f"/2/lists/{list_id}/members", max_results="2")
    assert first["meta"]["result_count"] == 2
    second = read(
        api,
        None,
        f"/2/lists/{list_id}/members",
        max_results="2",
        pagination_token=first["meta"]["next_token"],
    )
    assert ids(first) + ids(second) == [m["id"] for m in reversed(members)]
    assert "next_token" not in second["meta"]
    assert "previous_token" in second["meta"]


def test_user_lists_of_a_missing_user(api: Api) -> None:
    for listing in ("owned_lists", "followed_lists", "list_memberships"):
        body = read(api, None, f"/2/users/1234567/{listing}")
        assert body == {"errors": [not_found_item("user", "id", "1234567")]}


def test_list_fields_are_validated(api: Api, make_user: Any) -> None:
    owner = make_user()
    list_id = create_list(api, owner)
    response = api.get(f"/2/lists/{list_id}", params={"list.fields": "id,colour"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == (
        "The `list.fields` query parameter value [colour] is not one of "
        "[created_at,description,follower_count,id,member_count,name,owner_id,private]"
    )


def test_the_demo_has_lists_for_every_list_read(api: Api) -> None:
    me = api.get("/2/users/me", auth="oauth2").json()["data"]["id"]

    def demo_read(path: str, **params: str) -> dict[str, Any]:
        response = api.get(path, auth="oauth2", params=params)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        assert body.get("data"), path
        return body

    owned = demo_read(f"/2/users/{me}/owned_lists", **{"list.fields": "private,member_count,follower_count"})
    names = {item["name"]: item for item in owned["data"]}
    assert names["Storage nerds"]["private"] is False
    assert names["Storage nerds"]["member_count"] == 8
    assert names["Storage nerds"]["follower_count"] == 4
    assert names["Close friends"]["private"] is True
    pinned = demo_read(f"/2/users/{me}/pinned_lists")
    assert [item["name"] for item in pinned["data"]] == ["Storage nerds"]
    followed = demo_read(f"/2/users/{me}/followed_lists")
    assert [item["name"] for item in followed["data"]] == ["Webhook watchers"]
    memberships = demo_read(f"/2/users/{me}/list_memberships")
    assert [item["name"] for item in memberships["data"]] == ["Webhook watchers"]

    storage = names["Storage nerds"]["id"]
    demo_read(f"/2/lists/{storage}")
    demo_read(f"/2/lists/{storage}/members")
    demo_read(f"/2/lists/{storage}/followers")
    demo_read(f"/2/lists/{storage}/tweets")
    # The private list is the demo user's alone.
    assert "data" not in api.get(f"/2/lists/{names['Close friends']['id']}").json()


def test_import_and_export_carry_lists_members_followers_and_pins(api: Api) -> None:
    owner, member, fan = import_user(api), import_user(api), import_user(api)
    list_id = next_import_id()
    payload = {
        "lists": [
            {
                "id": list_id,
                "name": "Imported",
                "description": "from elsewhere",
                "owner_id": owner["id"],
                "private": False,
                "created_at": "2024-05-01T10:00:00.000Z",
            }
        ],
        "list_members": [{"list_id": list_id, "user_id": member["id"]}],
        "list_followers": [{"list_id": list_id, "user_id": fan["id"]}],
        "pinned_lists": [{"list_id": list_id, "user_id": fan["id"]}, {"list_id": "1", "user_id": fan["id"]}],
    }
    assert import_objects(api, payload) == {
        "users": 0,
        "tweets": 0,
        "media": 0,
        "lists": 1,
        "list_members": 1,
        "list_followers": 1,
        "pinned_lists": 1,  # the pin of a list that does not exist is skipped
    }
    data = list_view(api, None, list_id)["data"]
    assert data == {
        "id": list_id,
        "name": "Imported",
        "description": "from elsewhere",
        "owner_id": owner["id"],
        "private": False,
        "created_at": "2024-05-01T10:00:00.000Z",
        "member_count": 1,  # counted from the imported edges
        "follower_count": 1,
    }
    assert ids(read(api, None, f"/2/lists/{list_id}/members")) == [member["id"]]
    assert ids(read(api, None, f"/2/users/{fan['id']}/followed_lists")) == [list_id]

    exported = api.http.get("/_roost/export").json()
    assert data in exported["lists"]
    assert {"list_id": list_id, "user_id": member["id"]}.items() <= next(
        edge for edge in exported["list_members"] if edge["list_id"] == list_id
    ).items()
    assert any(pin == {**pin, "list_id": list_id, "user_id": fan["id"]} for pin in exported["pinned_lists"])
    again = import_objects(api, {section: exported[section] for section in ("lists", "list_members")})
    assert again == {"lists": 0, "list_members": 0, "users": 0, "tweets": 0, "media": 0}


def test_the_caps_on_lists_per_owner_and_members_per_list(api: Api, make_user: Any) -> None:
    owner, member = make_user(), make_user()
    full = next_import_id()
    lists = [{"id": full, "name": "Full", "owner_id": owner["id"], "member_count": 5000}]
    lists += [{"id": next_import_id(), "name": f"L{n}", "owner_id": owner["id"]} for n in range(999)]
    assert import_objects(api, {"lists": lists})["lists"] == 1000

    over = api.post("/2/lists", auth="none", headers=bearer(owner), json={"name": "One more"}, conform=False)
    assert over.status_code == 403
    assert over.json() == {
        "detail": "You cannot own more than 1000 Lists.",
        "type": "about:blank",
        "title": "Forbidden",
        "status": 403,
    }
    response = add_member(api, owner, full, member)
    assert response.status_code == 403
    assert response.json()["detail"] == "A List cannot have more than 5000 members."
    assert listed_count(api, member) == 0


def test_list_tweets_reach_back_800_posts(api: Api, make_user: Any) -> None:
    owner = make_user()
    author = import_user(api)
    posts = [{"id": next_import_id(), "text": f"old post {n}", "author_id": author["id"]} for n in range(805)]
    assert import_objects(api, {"tweets": posts})["tweets"] == 805
    list_id = create_list(api, owner)
    response = call(api, owner, "POST", f"/2/lists/{list_id}/members", {"user_id": author["id"]})
    assert response.status_code == 200
    seen: list[str] = []
    page = read(api, None, f"/2/lists/{list_id}/tweets")
    while True:
        seen += ids(page)
        token = page["meta"].get("next_token")
        if token is None:
            break
        page = read(api, None, f"/2/lists/{list_id}/tweets", pagination_token=token)
    assert seen == [post["id"] for post in reversed(posts)][:800]


def test_both_vocabularies_in_list_reads(api: Api, make_user: Any) -> None:
    owner, member = make_user(), make_user()
    list_id = create_list(api, owner)
    assert add_member(api, owner, list_id, member).status_code == 200
    latest = create_ok(api, member)["id"]
    # Post names (2.167): most_recent_post_id, and includes.posts for the user expansion.
    members = read(
        api,
        None,
        f"/2/lists/{list_id}/members",
        **{"user.fields": "most_recent_post_id", "post.fields": "created_at"},
        expansions="most_recent_post_id",
    )
    assert members["data"][0]["most_recent_post_id"] == latest
    assert [post["id"] for post in members["includes"]["posts"]] == [latest]
    # Tweet names (2.159, what live traffic uses).
    members = read(
        api,
        None,
        f"/2/lists/{list_id}/members",
        **{"user.fields": "most_recent_tweet_id"},
        expansions="most_recent_tweet_id",
    )
    assert members["data"][0]["most_recent_tweet_id"] == latest
    assert [post["id"] for post in members["includes"]["tweets"]] == [latest]
    owned = read(
        api,
        None,
        f"/2/users/{owner['id']}/owned_lists",
        expansions="owner_id",
        **{"user.fields": "pinned_post_id"},
    )
    assert owned["includes"]["users"][0]["id"] == owner["id"]
