"""xdk's Spaces and compliance jobs against roost (in process, `base_url`): Spaces with the app's
bearer token (buyers with the creator's OAuth 2.0 token), compliance jobs with the bearer token and
the job's own upload and download URLs."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from tests.support.server import LiveServer
from xdk import Client
from xdk.compliance.models import CreateJobsRequest

pytestmark = pytest.mark.clients


def new_user(server: LiveServer, credentials: dict[str, Any]) -> dict[str, Any]:
    user: dict[str, Any] = httpx.post(
        server.base_url + "/_roost/users", json={"username": f"s_{uuid.uuid4().hex[:12]}"}
    ).json()
    token = httpx.post(
        server.base_url + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()
    return {**user, "client": Client(base_url=server.base_url, access_token=token["access_token"])}


def new_space(server: LiveServer, **body: Any) -> dict[str, Any]:
    response = httpx.post(server.base_url + "/_roost/spaces", json=body)
    assert response.status_code == 201, response.text
    space: dict[str, Any] = response.json()
    return space


def test_spaces_reads(server: LiveServer, credentials: dict[str, Any]) -> None:
    host, speaker = new_user(server, credentials), new_user(server, credentials)
    word = f"xdk{uuid.uuid4().hex[:8]}"
    space = new_space(
        server,
        creator_id=host["id"],
        title=f"{word} live",
        speaker_ids=[speaker["id"]],
        topic_ids=["848920371311001600"],
        lang="en",
    )
    app = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])

    one = app.spaces.get_by_id(
        space["id"],
        space_fields=["title", "lang", "started_at"],
        expansions=["creator_id", "speaker_ids", "topic_ids"],
        user_fields=["username"],
        topic_fields=["name"],
    )
    assert one.data is not None
    assert (one.data.id, one.data.state, one.data.title) == (space["id"], "live", f"{word} live")
    dumped = one.model_dump(exclude_none=True)
    assert {user["id"] for user in dumped["includes"]["users"]} == {host["id"], speaker["id"]}
    assert dumped["includes"]["topics"] == [{"id": "848920371311001600", "name": "Technology"}]

    many = app.spaces.get_by_ids([space["id"]])
    assert [item.id for item in many.data or []] == [space["id"]]
    by_creator = app.spaces.get_by_creator_ids([host["id"]], space_fields=["title"])
    assert [item.id for item in by_creator.data or []] == [space["id"]]
    found = app.spaces.search(word, state="live", max_results=10)
    assert [item.id for item in found.data or []] == [space["id"]]
    assert found.meta is not None and found.meta.result_count == 1


def test_space_posts_and_buyers(server: LiveServer, credentials: dict[str, Any]) -> None:
    host, buyer = new_user(server, credentials), new_user(server, credentials)
    space = new_space(server, creator_id=host["id"], is_ticketed=True)
    sold = httpx.post(f"{server.base_url}/_roost/spaces/{space['id']}/tickets", json={"user_id": buyer["id"]})
    assert sold.status_code == 201
    shared = host["client"].posts.create(body={"text": f"Join https://x.com/i/spaces/{space['id']}"})
    app = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    page = next(iter(app.spaces.get_posts(space["id"], max_results=10)))
    assert [post.id for post in page.data or []] == [shared.data.id]
    buyers = next(iter(host["client"].spaces.get_buyers(space["id"], user_fields=["username"])))
    assert [(user.id, user.username) for user in buyers.data or []] == [(buyer["id"], buyer["username"])]


def test_compliance_job(server: LiveServer, credentials: dict[str, Any]) -> None:
    created = httpx.post(
        server.base_url + "/_roost/apps", json={"name": f"xdk-{uuid.uuid4().hex[:8]}"}
    ).json()
    app = Client(base_url=server.base_url, bearer_token=created["bearer_token"])
    job = app.compliance.create_jobs(CreateJobsRequest(type="users", name="xdk job"))
    assert job.data is not None and job.data.status == "created" and job.data.name == "xdk job"
    upload = urlsplit(job.data.upload_url)
    put = httpx.put(
        f"{server.base_url}{upload.path}?{upload.query}",
        content="9000000000000000009\n",
        headers={"Content-Type": "text/plain"},
    )
    assert put.status_code == 200
    fetched = app.compliance.get_jobs_by_id(job.data.id)
    assert fetched.data is not None and fetched.data.status == "in_progress"
    listed = app.compliance.get_jobs("users", status="in_progress")
    assert [item.id for item in listed.data or []] == [job.data.id]
