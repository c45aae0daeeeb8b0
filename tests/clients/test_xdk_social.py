"""xdk's bookmarks, users search, affiliates and DM extras against roost (in process, `base_url`),
with OAuth 2.0 user tokens (`access_token`) as the official document declares for these calls."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from tests.support.server import LiveServer
from xdk import Client
from xdk.users.models import CreateBookmarkFolderRequest, CreateBookmarkRequest

pytestmark = pytest.mark.clients


def new_user(server: LiveServer, credentials: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A fresh account with an OAuth 2.0 user token of the demo app (every default scope)."""
    body = {"username": f"x_{uuid.uuid4().hex[:12]}", **fields}
    user: dict[str, Any] = httpx.post(server.base_url + "/_roost/users", json=body).json()
    token = httpx.post(
        server.base_url + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()
    client = Client(base_url=server.base_url, access_token=token["access_token"])
    return {**user, "token": token["access_token"], "client": client}


def write_as(server: LiveServer, user: dict[str, Any], path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A write xdk is not under test for here, sent straight to roost."""
    headers = {"Authorization": f"Bearer {user['token']}"}
    response = httpx.post(server.base_url + path, json=body, headers=headers)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def post_as(server: LiveServer, user: dict[str, Any], text: str) -> str:
    return str(write_as(server, user, "/2/tweets", {"text": text})["id"])


def test_bookmarks_and_folders(server: LiveServer, credentials: dict[str, Any]) -> None:
    author, reader = new_user(server, credentials), new_user(server, credentials)
    posts = [post_as(server, author, f"xdk bookmark {uuid.uuid4().hex[:8]}") for _ in range(2)]
    users = reader["client"].users
    folder = users.create_bookmark_folder(reader["id"], CreateBookmarkFolderRequest(name="xdk folder"))
    assert folder.data is not None and folder.data.name == "xdk folder"
    made = users.create_bookmark(
        reader["id"], CreateBookmarkRequest(tweet_id=posts[0], folder_id=folder.data.id)
    )
    assert made.data is not None and made.data.bookmarked is True
    assert users.create_bookmark(reader["id"], CreateBookmarkRequest(tweet_id=posts[1])).data.bookmarked

    page = next(iter(users.get_bookmarks(reader["id"], max_results=10, post_fields=["public_metrics"])))
    assert [post.id for post in page.data or []] == [posts[1], posts[0]]
    assert page.data[0].public_metrics.bookmark_count == 1
    folders = next(iter(users.get_bookmark_folders(reader["id"])))
    assert [(item.id, item.name) for item in folders.data or []] == [(folder.data.id, "xdk folder")]
    filed = next(iter(users.get_bookmarks_by_folder_id(reader["id"], folder.data.id)))
    assert [item.id for item in filed.data or []] == [posts[0]]

    removed = users.delete_bookmark(reader["id"], posts[0])
    assert removed.data is not None and removed.data.bookmarked is False
    page = next(iter(users.get_bookmarks(reader["id"])))
    assert [post.id for post in page.data or []] == [posts[1]]


def test_users_search_and_affiliates(server: LiveServer, credentials: dict[str, Any]) -> None:
    tag = f"xdk{uuid.uuid4().hex[:8]}"
    org = new_user(server, credentials, name=f"Org {tag}")
    staff = new_user(server, credentials, description=f"works at {tag}")
    badge = {"description": "Org", "user_id": [org["id"]]}
    assert httpx.patch(
        server.base_url + f"/_roost/users/{staff['id']}/profile", json={"affiliation": badge}
    ).is_success
    found = next(iter(staff["client"].users.search(tag, max_results=10)))
    assert {user.id for user in found.data or []} == {org["id"], staff["id"]}
    app = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    affiliates = next(iter(app.users.get_affiliates(org["id"], user_fields=["affiliation"])))
    [member] = affiliates.data or []
    assert member.id == staff["id"]
    assert member.affiliation is not None and member.affiliation.user_id == [org["id"]]


def test_dm_block_unblock_and_delete(server: LiveServer, credentials: dict[str, Any]) -> None:
    alice, bob = new_user(server, credentials), new_user(server, credentials)
    sent = write_as(server, alice, f"/2/dm_conversations/with/{bob['id']}/messages", {"text": "hi bob"})
    assert alice["client"].users.block_dms(bob["id"]).data.blocked is True
    assert alice["client"].users.unblock_dms(bob["id"]).data.blocked is False
    deleted = alice["client"].direct_messages.delete_events(sent["dm_event_id"])
    assert deleted.data is not None and deleted.data.deleted is True
