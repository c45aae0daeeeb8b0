"""The control plane: health, credentials, reset, import/export round trips, clock, OpenAPI document."""

from __future__ import annotations

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
    assert private.http.get("/_roost/health").json() == {"status": "ok"}
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
    assert empty.http.post("/_roost/import", json=exported).json()["imported"] == {
        "users": 0,
        "tweets": 0,
        "media": 0,
    }


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
    changed = private.http.post("/_roost/settings", json={"allow_test_approval": True, "x_demo": 3})
    assert changed.status_code == 200
    assert changed.json()["allow_test_approval"] == "1" and changed.json()["x_demo"] == "3"
    cleared = private.http.post("/_roost/settings", json={"x_demo": None, "allow_test_approval": None}).json()
    assert "x_demo" not in cleared and "allow_test_approval" not in cleared
    assert private.http.post("/_roost/settings", json=[1]).status_code == 400
