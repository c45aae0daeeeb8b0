"""Bookmarks and bookmark folders: counts, idempotency, privacy, visibility, credentials, paging, errors."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.helpers import (
    User,
    bearer,
    create_ok,
    delete_as,
    import_objects,
    invalid_request,
    lookup,
    next_import_id,
    not_found_item,
)
from tests.api.test_dms import oauth2_token
from tests.support.client import Api

NOT_PERMITTED = {
    "detail": "You are not permitted to perform this action.",
    "type": "about:blank",
    "title": "Forbidden",
    "status": 403,
}


def add(api: Api, user: User, post_id: str, **extra: str) -> httpx.Response:
    return api.post(
        f"/2/users/{user['id']}/bookmarks",
        auth="none",
        headers=bearer(user),
        json={"tweet_id": post_id, **extra},
    )


def remove(api: Api, user: User, post_id: str) -> httpx.Response:
    return api.delete(f"/2/users/{user['id']}/bookmarks/{post_id}", auth="none", headers=bearer(user))


def get(api: Api, user: User, path: str, **params: str) -> dict[str, Any]:
    response = api.get(path, auth="none", headers=bearer(user), params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def bookmark_count(api: Api, post_id: str) -> int:
    count: int = lookup(api, post_id, **{"tweet.fields": "public_metrics"})["data"]["public_metrics"][
        "bookmark_count"
    ]
    return count


def new_folder(api: Api, user: User, name: str) -> dict[str, str]:
    response = api.post(
        f"/2/users/{user['id']}/bookmarks/folders", auth="none", headers=bearer(user), json={"name": name}
    )
    assert response.status_code == 201, response.text
    data: dict[str, str] = response.json()["data"]
    return data


def test_bookmark_and_remove_keep_the_count(api: Api, make_user: Any) -> None:
    author, reader = make_user(), make_user()
    post = create_ok(api, author)
    response = add(api, reader, post["id"])
    assert response.status_code == 200
    assert response.json() == {"data": {"bookmarked": True}}
    assert bookmark_count(api, post["id"]) == 1
    # Again: still bookmarked, counted once.
    assert add(api, reader, post["id"]).json() == {"data": {"bookmarked": True}}
    assert bookmark_count(api, post["id"]) == 1
    assert add(api, author, post["id"]).status_code == 200
    assert bookmark_count(api, post["id"]) == 2

    response = remove(api, reader, post["id"])
    assert response.status_code == 200
    assert response.json() == {"data": {"bookmarked": False}}
    assert bookmark_count(api, post["id"]) == 1
    assert remove(api, reader, post["id"]).json() == {"data": {"bookmarked": False}}
    assert bookmark_count(api, post["id"]) == 1


def test_bookmarks_read_newest_first_and_page(api: Api, make_user: Any) -> None:
    author, reader = make_user(), make_user()
    posts = [create_ok(api, author) for _ in range(3)]
    for post in posts:
        assert add(api, reader, post["id"]).status_code == 200
    path = f"/2/users/{reader['id']}/bookmarks"
    body = get(api, reader, path)
    assert [item["id"] for item in body["data"]] == [p["id"] for p in reversed(posts)]
    assert body["meta"] == {"result_count": 3}
    assert set(body["data"][0]) == {"id", "text", "edit_history_tweet_ids"}

    first = get(api, reader, path, max_results="2", expansions="author_id")
    assert [item["id"] for item in first["data"]] == [posts[2]["id"], posts[1]["id"]]
    assert first["includes"]["users"][0]["id"] == author["id"]
    second = get(api, reader, path, max_results="2", pagination_token=first["meta"]["next_token"])
    assert [item["id"] for item in second["data"]] == [posts[0]["id"]]
    assert "next_token" not in second["meta"]
    nobody = make_user()
    assert get(api, nobody, f"/2/users/{nobody['id']}/bookmarks") == {"meta": {"result_count": 0}}


def test_bookmarks_are_private(api: Api, make_user: Any) -> None:
    author, reader = make_user(), make_user()
    post = create_ok(api, author)
    for response in (
        api.get(f"/2/users/{author['id']}/bookmarks", auth="none", headers=bearer(reader)),
        api.get(f"/2/users/{author['id']}/bookmarks/folders", auth="none", headers=bearer(reader)),
        add(api, {**reader, "id": author["id"]}, post["id"]),
        remove(api, {**reader, "id": author["id"]}, post["id"]),
    ):
        assert response.status_code == 403
        assert response.json() == NOT_PERMITTED
    assert bookmark_count(api, post["id"]) == 0


def test_deleted_and_protected_posts_are_left_out(api: Api, make_user: Any) -> None:
    reader, author, locked = make_user(), make_user(), make_user(protected=True)
    follow = api.http.post("/_roost/follows", json={"follower_id": reader["id"], "followee_id": locked["id"]})
    assert follow.status_code == 201
    gone, kept, secret = create_ok(api, author), create_ok(api, author), create_ok(api, locked)
    for post in (gone, kept, secret):
        assert add(api, reader, post["id"]).status_code == 200
    path = f"/2/users/{reader['id']}/bookmarks"
    assert [item["id"] for item in get(api, reader, path)["data"]] == [secret["id"], kept["id"], gone["id"]]

    assert delete_as(api, author, gone["id"]).status_code == 200
    unfollow = api.delete(
        f"/2/users/{reader['id']}/following/{locked['id']}", auth="none", headers=bearer(reader)
    )
    assert unfollow.status_code == 200
    assert get(api, reader, path) == {
        "data": [{"id": kept["id"], "text": kept["text"], "edit_history_tweet_ids": [kept["id"]]}],
        "meta": {"result_count": 1},
    }

    # A protected author's post cannot be bookmarked by a non-follower, nor a deleted post.
    for post_id in (secret["id"], gone["id"]):
        response = add(api, reader, post_id)
        assert response.status_code == 400
        assert response.json() == invalid_request(
            {
                "parameters": {"tweet_id": [post_id]},
                "message": f"Could not find tweet with tweet_id: [{post_id}].",
            }
        )


def test_credentials_and_scopes(api: Api, make_user: Any) -> None:
    author, reader = make_user(), make_user()
    post = create_ok(api, author)
    path = f"/2/users/{reader['id']}/bookmarks"
    # Writes are OAuth 2.0 user context only.
    signed = api.oauth1("POST", path, token=reader["token"], secret=reader["secret"])
    response = api.post(path, auth="none", headers=signed, json={"tweet_id": post["id"]})
    assert response.status_code == 403
    assert response.json()["type"] == "https://api.x.com/2/problems/unsupported-authentication"
    assert api.post(path, json={"tweet_id": post["id"]}).status_code == 403  # app-only
    # Reads also take an OAuth 1.0a user token, never app-only.
    assert add(api, reader, post["id"]).status_code == 200
    signed = api.oauth1("GET", path, token=reader["token"], secret=reader["secret"])
    response = api.get(path, auth="none", headers=signed)
    assert response.status_code == 200
    assert [item["id"] for item in response.json()["data"]] == [post["id"]]
    assert api.get(path).status_code == 403

    reads_only = oauth2_token(api, reader, "tweet.read users.read bookmark.read")
    headers = {"Authorization": f"Bearer {reads_only}"}
    assert api.get(path, auth="none", headers=headers).status_code == 200
    response = api.post(path, auth="none", headers=headers, json={"tweet_id": post["id"]})
    assert response.status_code == 403
    assert response.json() == {
        "title": "Forbidden",
        "type": "about:blank",
        "status": 403,
        "detail": "Forbidden",
    }
    no_bookmarks = oauth2_token(api, reader, "tweet.read users.read")
    response = api.get(path, auth="none", headers={"Authorization": f"Bearer {no_bookmarks}"})
    assert response.status_code == 403


def test_body_and_parameter_errors(api: Api, make_user: Any) -> None:
    reader = make_user()
    path = f"/2/users/{reader['id']}/bookmarks"

    def post(body: Any) -> httpx.Response:
        return api.post(path, auth="none", headers=bearer(reader), json=body)

    assert post({}).json()["errors"] == [
        {"parameters": {}, "message": "$.tweet_id: is missing but it is required"}
    ]
    response = post({"tweet_id": "x"})
    assert response.status_code == 400
    assert (
        response.json()["errors"][0]["message"]
        == "The `tweet_id` field value [x] does not match ^[0-9]{1,19}$"
    )
    assert post({"tweet_id": "1", "extra": 1}).status_code == 400
    response = post({"tweet_id": "1"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == "Could not find tweet with tweet_id: [1]."
    response = api.get(path, auth="none", headers=bearer(reader), params={"max_results": "101"})
    assert response.status_code == 400
    response = api.get(
        path, auth="none", headers=bearer(reader), params={"pagination_token": "zzzzzzzzzzzzzzzz"}
    )
    assert response.status_code == 400
    assert remove(api, reader, "abc").status_code == 400


def test_folders(api: Api, make_user: Any) -> None:
    author, reader, other = make_user(), make_user(), make_user()
    posts = [create_ok(api, author) for _ in range(3)]
    travel = new_folder(api, reader, "Travel")
    assert travel["name"] == "Travel" and travel["id"].isdigit()
    recipes = new_folder(api, reader, "Recipes")
    folders_path = f"/2/users/{reader['id']}/bookmarks/folders"
    assert get(api, reader, folders_path) == {"data": [travel, recipes], "meta": {"result_count": 2}}
    page = get(api, reader, folders_path, max_results="1")
    assert page["data"] == [travel]
    assert get(api, reader, folders_path, max_results="1", pagination_token=page["meta"]["next_token"])[
        "data"
    ] == [recipes]
    assert get(api, other, f"/2/users/{other['id']}/bookmarks/folders") == {"meta": {"result_count": 0}}

    assert add(api, reader, posts[0]["id"], folder_id=travel["id"]).status_code == 200
    assert add(api, reader, posts[1]["id"], folder_id=travel["id"]).status_code == 200
    assert add(api, reader, posts[2]["id"]).status_code == 200
    # Bookmarking again into another folder refiles it; the count is untouched.
    assert add(api, reader, posts[2]["id"], folder_id=recipes["id"]).json() == {"data": {"bookmarked": True}}
    assert bookmark_count(api, posts[2]["id"]) == 1

    in_travel = get(api, reader, f"{folders_path}/{travel['id']}")
    assert in_travel == {
        "data": [{"id": posts[1]["id"]}, {"id": posts[0]["id"]}],
        "meta": {"result_count": 2},
    }
    assert get(api, reader, f"{folders_path}/{recipes['id']}")["data"] == [{"id": posts[2]["id"]}]
    # Every bookmark, filed or not, is in the top-level list.
    assert len(get(api, reader, f"/2/users/{reader['id']}/bookmarks")["data"]) == 3

    # Someone else's folder is not found, for reading or filing into.
    missing = get(api, other, f"/2/users/{other['id']}/bookmarks/folders/{travel['id']}")
    assert missing == {"errors": [not_found_item("bookmark_folder", "folder_id", travel["id"])]}
    response = add(api, other, posts[0]["id"], folder_id=travel["id"])
    assert response.status_code == 400
    assert (
        response.json()["errors"][0]["message"]
        == f"Could not find bookmark_folder with folder_id: [{travel['id']}]."
    )


def test_folder_create_rules(api: Api, make_user: Any) -> None:
    reader = make_user()
    path = f"/2/users/{reader['id']}/bookmarks/folders"

    def create(body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
        return api.post(path, auth="none", headers=headers or bearer(reader), json=body)

    assert create({"name": "x" * 25}).status_code == 201
    response = create({"name": "x" * 26})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameters": {}, "message": "$.name: must be at most 25 characters long"}
    ]
    assert create({"name": ""}).json()["errors"][0]["message"] == "$.name: must be at least 1 characters long"
    assert create({}).json()["errors"][0]["message"] == "$.name: is missing but it is required"
    assert create({"name": "a", "color": "red"}).status_code == 400
    signed = api.oauth1("POST", path, token=reader["token"], secret=reader["secret"])
    assert create({"name": "a"}, signed).status_code == 403
    other = make_user()
    response = api.post(
        f"/2/users/{other['id']}/bookmarks/folders", auth="none", headers=bearer(reader), json={"name": "a"}
    )
    assert response.status_code == 403
    assert response.json() == NOT_PERMITTED


def test_the_demo_has_bookmarks_and_a_folder(api: Api, credentials: dict[str, Any]) -> None:
    me = credentials["user_id"]
    headers = api.oauth2()
    body = api.get(f"/2/users/{me}/bookmarks", auth="none", headers=headers).json()
    assert body["meta"]["result_count"] == 6
    # The seed's bookmarks are counted on their posts.
    metrics = lookup(api, body["data"][0]["id"], **{"tweet.fields": "public_metrics"})["data"][
        "public_metrics"
    ]
    assert metrics["bookmark_count"] >= 1
    folders = api.get(f"/2/users/{me}/bookmarks/folders", auth="none", headers=headers).json()
    [folder] = [item for item in folders["data"] if item["name"] == "Read later"]
    filed = api.get(f"/2/users/{me}/bookmarks/folders/{folder['id']}", auth="none", headers=headers).json()
    assert filed["meta"]["result_count"] == 2
    assert {item["id"] for item in filed["data"]} <= {item["id"] for item in body["data"]}


def test_import_and_export_carry_bookmarks_and_folders(api: Api, make_user: Any) -> None:
    author, reader = make_user(), make_user()
    post = create_ok(api, author)
    folder_id = next_import_id()
    payload = {
        "bookmark_folders": [{"id": folder_id, "user_id": reader["id"], "name": "Imported"}],
        "bookmarks": [
            {"user_id": reader["id"], "tweet_id": post["id"], "folder_id": folder_id},
        ],
    }
    assert import_objects(api, payload) == {
        "users": 0,
        "tweets": 0,
        "media": 0,
        "bookmark_folders": 1,
        "bookmarks": 1,
    }
    assert import_objects(api, payload)["bookmarks"] == 0  # already there
    assert [item["id"] for item in get(api, reader, f"/2/users/{reader['id']}/bookmarks")["data"]] == [
        post["id"]
    ]
    filed = get(api, reader, f"/2/users/{reader['id']}/bookmarks/folders/{folder_id}")
    assert filed["data"] == [{"id": post["id"]}]
    # The count travels with the post in an export, so an imported bookmark adds nothing to it.
    assert bookmark_count(api, post["id"]) == 0

    exported = api.http.get("/_roost/export").json()
    assert {"id": folder_id, "user_id": reader["id"], "name": "Imported"}.items() <= next(
        folder for folder in exported["bookmark_folders"] if folder["id"] == folder_id
    ).items()
    [mark] = [item for item in exported["bookmarks"] if item["user_id"] == reader["id"]]
    assert (mark["tweet_id"], mark["folder_id"]) == (post["id"], folder_id)
    assert mark["created_at"].endswith("Z")
