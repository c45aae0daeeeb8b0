"""The control plane: health, credentials, reset, import/export round trips, clock, OpenAPI document."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.platform.registry import all_operations


@pytest.fixture(scope="module")
def private() -> Iterator[Api]:
    """A server of its own: these tests reset and import."""
    live = LiveServer(tag="control", rate_limits=False).start()
    client = Api(live.base_url, httpx.get(live.base_url + "/_roost/credentials").json())
    yield client
    client.close()
    live.stop()


@pytest.fixture(scope="module")
def empty() -> Iterator[Api]:
    live = LiveServer(tag="empty", demo=False).start()
    client = Api(live.base_url, {})
    yield client
    client.close()
    live.stop()


def test_health_and_credentials(private: Api) -> None:
    health = private.http.get("/_roost/health").json()
    assert health == {"status": "ok", "process": health["process"]} and isinstance(health["process"], int)
    creds = private.http.get("/_roost/credentials").json()
    for key in (
        "consumer_key",
        "consumer_secret",
        "access_token",
        "access_token_secret",
        "bearer_token",
        "oauth2_user_token",
        "user_id",
        "username",
    ):
        assert isinstance(creds[key], str) and creds[key], key
    assert creds["access_token"].startswith(creds["user_id"] + "-")
    me = private.get("/2/users/me", auth="oauth1").json()["data"]
    assert (me["id"], me["username"]) == (creds["user_id"], creds["username"])


def test_no_demo_server_has_no_credentials(empty: Api) -> None:
    response = empty.http.get("/_roost/credentials")
    assert response.status_code == 404
    assert response.json()["detail"] == "No demo data (started with --no-demo)."


def test_reset_returns_to_the_seed_with_the_same_credentials(private: Api) -> None:
    before = private.http.get("/_roost/credentials").json()
    headers = private.oauth1("POST", "/2/tweets")
    post_id = private.post(
        "/2/tweets", auth="none", headers=headers, json={"text": "gone after reset"}
    ).json()["data"]["id"]
    reset = private.http.post("/_roost/reset")
    assert reset.status_code == 200
    assert reset.json()["credentials"] == before
    body = private.get(f"/2/tweets/{post_id}").json()
    assert "data" not in body and body["errors"][0]["resource_id"] == post_id
    assert private.get("/2/users/me", auth="oauth1").status_code == 200


def test_reset_without_demo_data_wipes_and_answers_200(empty: Api) -> None:
    user = {"id": "1460000000000000001", "username": f"r_{uuid.uuid4().hex[:10]}", "name": "Reset me"}
    assert empty.http.post("/_roost/import", json={"users": [user]}).status_code == 200
    reset = empty.http.post("/_roost/reset")
    assert reset.status_code == 200, reset.text
    assert reset.json() == {"reset": True}
    assert user["id"] not in {row["id"] for row in empty.http.get("/_roost/export").json()["users"]}


def test_export_then_import_into_an_empty_server_keeps_ids_and_fields(private: Api, empty: Api) -> None:
    exported = private.http.get("/_roost/export").json()
    assert {"users", "tweets", "media"} <= set(exported)
    assert len(exported["tweets"]) >= 100 and len(exported["users"]) >= 10
    imported = empty.http.post("/_roost/import", json=exported)
    assert imported.status_code == 200, imported.text
    counts = imported.json()["imported"]
    assert counts["tweets"] == len(exported["tweets"]) and counts["users"] == len(exported["users"])
    again = empty.http.get("/_roost/export").json()
    by_id = {post["id"]: post for post in again["tweets"]}
    for post in exported["tweets"]:
        assert by_id[post["id"]] == post
    assert {u["id"]: u for u in again["users"]} == {u["id"]: u for u in exported["users"]}
    # A second import of the same objects changes nothing.
    counts = empty.http.post("/_roost/import", json=exported).json()["imported"]
    assert {"users", "tweets", "media"} <= set(counts) and set(counts.values()) == {0}


def test_import_of_a_captured_v2_response_keeps_original_ids(private: Api) -> None:
    captured: dict[str, Any] = {
        "data": [
            {
                "id": "1460323737035677698",
                "text": "Introducing a new era for the Twitter Developer Platform! 📣",
                "author_id": "2244994945",
                "created_at": "2021-11-15T19:08:05.000Z",
                "public_metrics": {
                    "retweet_count": 112,
                    "reply_count": 23,
                    "like_count": 530,
                    "quote_count": 45,
                },
                "edit_history_tweet_ids": ["1460323737035677698"],
            }
        ],
        "includes": {
            "users": [
                {
                    "id": "2244994945",
                    "name": "Twitter Dev",
                    "username": "TwitterDev",
                    "created_at": "2013-12-14T04:35:55.000Z",
                    "verified_type": "business",
                }
            ]
        },
    }
    assert private.http.post("/_roost/import", json=captured).json()["imported"] == {
        "users": 1,
        "tweets": 1,
        "media": 0,
    }
    body = private.get(
        "/2/tweets/1460323737035677698",
        params={
            "tweet.fields": "created_at,public_metrics",
            "expansions": "author_id",
            "user.fields": "created_at,verified_type",
        },
    ).json()
    assert body["data"]["created_at"] == "2021-11-15T19:08:05.000Z"
    assert body["data"]["public_metrics"]["like_count"] == 530
    assert body["includes"]["users"][0] == {
        "id": "2244994945",
        "name": "Twitter Dev",
        "username": "TwitterDev",
        "created_at": "2013-12-14T04:35:55.000Z",
        "verified_type": "business",
    }


def test_import_refuses_bad_input(private: Api) -> None:
    assert private.http.post("/_roost/import", content=b"{nope").status_code == 400
    bad = private.http.post("/_roost/import", json={"tweets": [{"id": "x1", "text": "t", "author_id": "1"}]})
    assert bad.status_code == 400
    assert "is not a valid id" in bad.json()["errors"][0]["message"]


def test_clock_read_advance_set(private: Api) -> None:
    now = private.http.get("/_roost/clock").json()["now"]
    assert now.endswith("Z")
    moved = private.http.post("/_roost/clock", json={"set": "2030-01-01T00:00:00Z"}).json()["now"]
    assert moved.startswith("2030-01-01T00:00:00")
    later = private.http.post("/_roost/clock", json={"advance_seconds": 3600}).json()["now"]
    assert later.startswith("2030-01-01T01:00:0")
    assert private.http.post("/_roost/clock", json={"advance_seconds": "soon"}).status_code == 400
    assert private.http.post("/_roost/clock", json={"set": "tomorrow"}).status_code == 400


def test_openapi_document_is_generated_from_the_operation_table(private: Api) -> None:
    document = private.http.get("/2/openapi.json").json()
    assert document["openapi"].startswith("3.")
    declared = {(op.method.lower(), op.path) for op in all_operations()}
    listed = {(method, path) for path, item in document["paths"].items() for method in item}
    assert listed == declared
    lookup = document["paths"]["/2/tweets/{id}"]["get"]
    names = [p["name"] for p in lookup["parameters"]]
    assert names[:2] == ["id", "expansions"] and "tweet.fields" in names and "post.fields" in names
    assert {"BearerToken": []} in lookup["security"]
    create = document["paths"]["/2/tweets"]["post"]
    assert "201" in create["responses"] and create["requestBody"]["required"] is True


def test_feature_settings_can_be_read_and_changed(private: Api) -> None:
    changed = private.http.post("/_roost/settings", json={"allow_test_approval": True, "webhook_limit": 3})
    assert changed.status_code == 200
    assert changed.json()["allow_test_approval"] == "1" and changed.json()["webhook_limit"] == "3"
    listed = {row["key"]: row for row in private.http.get("/_roost/settings").json()["settings"]}
    assert (listed["webhook_limit"]["value"], listed["webhook_limit"]["stored"]) == (3, "3")
    cleared = private.http.post(
        "/_roost/settings", json={"webhook_limit": None, "allow_test_approval": None}
    ).json()
    assert "webhook_limit" not in cleared and "allow_test_approval" not in cleared
    assert private.http.post("/_roost/settings", json=[1]).status_code == 400
    assert "x_demo" in _message(private.http.post("/_roost/settings", json={"x_demo": 3}))


def _message(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    message: str = response.json()["errors"][0]["message"]
    return message


def _new_user(api: Api) -> dict[str, Any]:
    created = api.http.post("/_roost/users", json={"username": f"c_{uuid.uuid4().hex[:12]}"})
    assert created.status_code == 201, created.text
    user: dict[str, Any] = created.json()
    return user


def test_token_access_level_is_at_most_the_app_permission(private: Api) -> None:
    user = _new_user(private)
    read_app = private.http.post("/_roost/apps", json={"name": "read app", "permission": "read"}).json()
    write_app = private.http.post("/_roost/apps", json={"name": "rw app", "permission": "read-write"}).json()

    def issue(app: dict[str, Any], level: str | None) -> httpx.Response:
        body = {"consumer_key": app["consumer_key"], "user_id": user["id"], "access_level": level}
        return private.http.post("/_roost/tokens", json=body)

    for app, level in (
        (read_app, "read-write"),
        (read_app, "read-write-directmessages"),
        (write_app, "read-write-directmessages"),
    ):
        assert _message(issue(app, level)) == (
            f"access level {level} is above the app's permission ({app['permission']})"
        )
    # Lower or equal levels are granted as asked; none asked means the app's own.
    assert issue(write_app, "read").json()["access_level"] == "read"
    assert issue(write_app, "read-write").json()["access_level"] == "read-write"
    assert issue(read_app, None).json()["access_level"] == "read"


def test_oauth2_tokens_are_issued_only_with_known_scopes(private: Api) -> None:
    user = _new_user(private)
    body = {"consumer_key": private.creds["consumer_key"], "user_id": user["id"], "kind": "oauth2"}
    unknown = private.http.post("/_roost/tokens", json={**body, "scopes": "tweet.read bogus.scope"})
    assert _message(unknown) == "unknown scope: bogus.scope"
    assert _message(private.http.post("/_roost/tokens", json={**body, "scopes": " "})) == (
        "at least one scope is required"
    )
    known = private.http.post("/_roost/tokens", json={**body, "scopes": "tweet.read users.read"})
    assert known.status_code == 201 and known.json()["scope"] == "tweet.read users.read"


def test_users_are_created_only_with_names_the_lookup_accepts(private: Api) -> None:
    for name in ("bad name!", "this_username_is_way_too_long", "", "caf\u00e9"):
        response = private.http.post("/_roost/users", json={"username": name})
        assert _message(response) == "username must match ^[A-Za-z0-9_]{1,15}$", name
    longest = f"L{uuid.uuid4().hex[:14]}"
    assert private.http.post("/_roost/users", json={"username": longest}).status_code == 201
    found = private.get(f"/2/users/by/username/{longest}").json()["data"]
    assert found["username"] == longest


def test_import_refuses_usernames_the_lookup_would_not_accept(private: Api) -> None:
    for name in ("has space", "x" * 16):
        user = {"id": "1460000000000000002", "username": name}
        response = private.http.post("/_roost/import", json={"users": [user]})
        assert _message(response) == f"users[].username: [{name}] does not match ^[A-Za-z0-9_]{{1,15}}$"
