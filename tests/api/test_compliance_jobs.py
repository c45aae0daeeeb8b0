"""Batch compliance jobs: create, list and get; the pre-signed upload and download URLs served by
roost; the status moving on the roost clock; results computed from roost's data; the open-job limit."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from tests.api.helpers import User, create_ok, delete_as, invalid_request
from tests.support.client import Api
from tests.support.server import LiveServer

PROCESSING_S = 60  # the default processing time of a job


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    """A server of its own: these tests move its clock by days."""
    live = LiveServer(tag="compliance", rate_limits=False).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


def new_app(api: Api) -> dict[str, Any]:
    """A fresh app: each has its own open-job limit."""
    created = api.http.post("/_roost/apps", json={"name": f"compliance-{uuid.uuid4().hex[:8]}"})
    assert created.status_code == 201, created.text
    app: dict[str, Any] = created.json()
    return app


def app_bearer(app: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {app['bearer_token']}"}


def create_job(api: Api, app: dict[str, Any], **body: Any) -> httpx.Response:
    return api.post("/2/compliance/jobs", auth="none", headers=app_bearer(app), json=body)


def new_job(api: Api, app: dict[str, Any], **body: Any) -> dict[str, Any]:
    response = create_job(api, app, **body)
    assert response.status_code == 200, response.text
    job: dict[str, Any] = response.json()["data"]
    return job


def get_job(api: Api, app: dict[str, Any], job_id: str) -> dict[str, Any]:
    response = api.get(f"/2/compliance/jobs/{job_id}", auth="none", headers=app_bearer(app))
    assert response.status_code == 200, response.text
    job: dict[str, Any] = response.json()["data"]
    return job


def relative(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def upload(api: Api, job: dict[str, Any], ids: list[str]) -> httpx.Response:
    return api.http.put(
        relative(job["upload_url"]), content="\n".join(ids) + "\n", headers={"Content-Type": "text/plain"}
    )


def advance(api: Api, seconds: float) -> None:
    assert api.http.post("/_roost/clock", json={"advance_seconds": seconds}).status_code == 200


def lines(response: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line) for line in response.text.splitlines()]


def test_create_shape_and_urls(api: Api) -> None:
    app = new_app(api)
    job = new_job(api, app, type="tweets", name="my-job", resumable=False)
    assert list(job) == [
        "id",
        "type",
        "name",
        "resumable",
        "status",
        "created_at",
        "upload_url",
        "upload_expires_at",
        "download_url",
        "download_expires_at",
    ]
    assert (job["type"], job["name"], job["resumable"], job["status"]) == (
        "tweets",
        "my-job",
        False,
        "created",
    )
    upload_url = urlsplit(job["upload_url"])
    assert (
        upload_url.path == f"/storage/twttr-tweet-compliance/{job['id']}/submission/{app['id']}_{job['id']}"
    )
    query = parse_qs(upload_url.query)
    assert query["X-Goog-Algorithm"] == ["GOOG4-RSA-SHA256"]
    assert query["X-Goog-Expires"] == ["900"]
    assert query["X-Goog-SignedHeaders"] == ["content-type;host"]
    download = urlsplit(job["download_url"])
    assert "/delivery/" in download.path
    assert parse_qs(download.query)["X-Goog-Expires"] == ["604800"]
    assert get_job(api, app, job["id"]) == job


def test_bad_bodies_and_credentials(api: Api, make_user: Any) -> None:
    app = new_app(api)
    for body, message in (
        ({}, "$.type: is missing but it is required"),
        ({"type": "likes"}, "$.type: does not have a value in the enumeration [tweets, users]"),
        ({"type": "users", "name": "x" * 65}, "$.name: must be at most 64 characters long"),
        ({"type": "users", "resumable": "yes"}, "$.resumable: string found, boolean expected"),
        ({"type": "users", "colour": "red"}, None),
    ):
        response = create_job(api, app, **body)
        assert response.status_code == 400, body
        if message:
            assert response.json()["errors"][0]["message"] == message
    user = make_user()
    refused = api.post(
        "/2/compliance/jobs",
        auth="none",
        headers={"Authorization": f"Bearer {user['oauth2']}"},
        json={"type": "tweets"},
    )
    assert refused.status_code == 403
    assert refused.json()["type"] == "https://api.x.com/2/problems/unsupported-authentication"
    missing = api.get("/2/compliance/jobs", auth="none", headers=app_bearer(app))
    assert missing.status_code == 400
    assert missing.json() == invalid_request(
        {"parameters": {"type": []}, "message": "The `type` query parameter can not be empty"}
    )


def test_one_open_job_per_type(api: Api) -> None:
    app = new_app(api)
    first = new_job(api, app, type="tweets")
    conflict = create_job(api, app, type="tweets")
    assert conflict.status_code == 409
    assert conflict.json()["type"] == "https://api.x.com/2/problems/conflict"
    new_job(api, app, type="users")  # the other type has its own slot
    other = new_app(api)
    new_job(api, other, type="tweets")  # and so has another app
    # Another app cannot see the job.
    assert (
        api.get(f"/2/compliance/jobs/{first['id']}", auth="none", headers=app_bearer(other)).status_code
        == 404
    )
    # An upload URL not used within 15 minutes expires the job, which frees the slot.
    advance(api, 901)
    assert get_job(api, app, first["id"])["status"] == "expired"
    expired_put = upload(api, first, ["20"])
    assert expired_put.status_code == 400
    assert "<Code>ExpiredToken</Code>" in expired_put.text
    new_job(api, app, type="tweets")


def test_tweets_job_end_to_end(api: Api, make_user: Any) -> None:
    app = new_app(api)
    author, locked = make_user(), make_user(protected=True)
    kept = create_ok(api, author)
    gone = create_ok(api, author)
    secret = create_ok(api, locked)
    assert delete_as(api, author, gone["id"]).status_code == 200
    never = "1000000000000000001"

    job = new_job(api, app, type="tweets", name="nightly")
    wrong_type = api.http.put(
        relative(job["upload_url"]), content="1\n", headers={"Content-Type": "text/csv"}
    )
    assert wrong_type.status_code == 403
    assert "<Code>SignatureDoesNotMatch</Code>" in wrong_type.text
    forged = relative(job["upload_url"]).replace("X-Goog-Signature=", "X-Goog-Signature=0")
    assert api.http.put(forged, content="1\n", headers={"Content-Type": "text/plain"}).status_code == 403
    early = api.http.get(relative(job["download_url"]))
    assert early.status_code == 404 and "<Code>NoSuchKey</Code>" in early.text

    assert upload(api, job, [kept["id"], gone["id"], secret["id"], never]).status_code == 200
    assert get_job(api, app, job["id"])["status"] == "in_progress"
    assert upload(api, job, [kept["id"]]).status_code == 403  # the file is in
    listed = api.get(
        "/2/compliance/jobs",
        auth="none",
        headers=app_bearer(app),
        params={"type": "tweets", "status": "in_progress"},
    )
    assert [item["id"] for item in listed.json()["data"]] == [job["id"]]
    assert "meta" not in listed.json()

    advance(api, PROCESSING_S)
    assert get_job(api, app, job["id"])["status"] == "complete"
    download = api.http.get(relative(job["download_url"]))
    assert download.status_code == 200
    results = {item["id"]: item for item in lines(download)}
    assert set(results) == {gone["id"], secret["id"], never}
    assert results[gone["id"]]["reason"] == "deleted" and "redacted_at" in results[gone["id"]]
    assert results[secret["id"]]["reason"] == "protected"
    assert list(results[gone["id"]]) == ["id", "action", "created_at", "redacted_at", "reason"]
    assert results[never]["action"] == "delete"
    # The answer does not change once computed, and lists by status see the move.
    assert api.http.get(relative(job["download_url"])).text == download.text
    complete = api.get(
        "/2/compliance/jobs",
        auth="none",
        headers=app_bearer(app),
        params={"type": "tweets", "status": "complete"},
    )
    assert [item["id"] for item in complete.json()["data"]] == [job["id"]]
    empty = api.get(
        "/2/compliance/jobs",
        auth="none",
        headers=app_bearer(app),
        params={"type": "users", "status": "failed"},
    )
    assert empty.status_code == 200 and empty.json() == {}


def test_users_job_reports_standing(api: Api, make_user: Any) -> None:
    app = new_app(api)
    fine, suspended, deactivated, locked = make_user(), make_user(), make_user(), make_user(protected=True)
    assert (
        api.http.post(f"/_roost/users/{suspended['id']}/standing", json={"suspended": True}).status_code
        == 200
    )
    assert (
        api.http.post(f"/_roost/users/{deactivated['id']}/standing", json={"deactivated": True}).status_code
        == 200
    )
    assert api.http.post(f"/_roost/users/{fine['id']}/standing", json={"scrub_geo": False}).status_code == 400
    job = new_job(api, app, type="users")
    assert "twttr-user-compliance" in job["upload_url"]
    ids = [fine["id"], suspended["id"], deactivated["id"], locked["id"], "9000000000000000009"]
    assert upload(api, job, ids).status_code == 200
    advance(api, PROCESSING_S)
    results = {item["id"]: item["reason"] for item in lines(api.http.get(relative(job["download_url"])))}
    assert results == {
        suspended["id"]: "suspended",
        deactivated["id"]: "deactivated",
        locked["id"]: "protected",
        "9000000000000000009": "deleted",
    }
    # Reinstated accounts are compliant again in the next job.
    api.http.post(f"/_roost/users/{suspended['id']}/standing", json={"suspended": False})
    again = new_job(api, app, type="users")
    upload(api, again, [suspended["id"]])
    advance(api, PROCESSING_S)
    assert api.http.get(relative(again["download_url"])).text == ""


def test_scrubbed_geo(api: Api, make_user: Any) -> None:
    app = new_app(api)
    user: User = make_user()
    placed = create_ok(api, user, geo={"place_id": "01a9a39529b27f36"})
    plain = create_ok(api, user)
    api.http.post(f"/_roost/users/{user['id']}/standing", json={"scrub_geo": True})
    job = new_job(api, app, type="tweets")
    upload(api, job, [placed["id"], plain["id"]])
    advance(api, PROCESSING_S)
    results = lines(api.http.get(relative(job["download_url"])))
    assert [(item["id"], item["reason"]) for item in results] == [(placed["id"], "scrub_geo")]


def test_malformed_file_fails(api: Api) -> None:
    app = new_app(api)
    job = new_job(api, app, type="tweets")
    upload(api, job, ["123", "not an id"])
    advance(api, PROCESSING_S)
    assert get_job(api, app, job["id"])["status"] == "failed"
    assert api.http.get(relative(job["download_url"])).status_code == 404


def test_resumable_upload_in_chunks(api: Api, make_user: Any) -> None:
    app = new_app(api)
    author = make_user()
    gone, kept = create_ok(api, author), create_ok(api, author)
    delete_as(api, author, gone["id"])
    job = new_job(api, app, type="tweets", resumable=True)
    assert job["resumable"] is True
    started = api.http.post(
        relative(job["upload_url"]),
        headers={"Content-Type": "text/plain", "Content-Length": "0", "x-goog-resumable": "start"},
    )
    assert started.status_code == 201
    session = relative(started.headers["location"])
    data = f"{gone['id']}\n{kept['id']}\n".encode()
    half = len(data) // 2
    first = api.http.put(
        session, content=data[:half], headers={"Content-Range": f"bytes 0-{half - 1}/{len(data)}"}
    )
    assert first.status_code == 308
    assert first.headers["range"] == f"bytes=0-{half - 1}"
    status = api.http.put(session, content=b"", headers={"Content-Range": f"bytes */{len(data)}"})
    assert (status.status_code, status.headers["range"]) == (308, f"bytes=0-{half - 1}")
    last = api.http.put(
        session, content=data[half:], headers={"Content-Range": f"bytes {half}-{len(data) - 1}/{len(data)}"}
    )
    assert last.status_code == 200
    advance(api, PROCESSING_S)
    assert [item["id"] for item in lines(api.http.get(relative(job["download_url"])))] == [gone["id"]]
    plain = new_job(api, app, type="users")
    refused = api.http.post(relative(plain["upload_url"]), headers={"x-goog-resumable": "start"})
    assert refused.status_code == 403


def test_download_expires_after_seven_days(api: Api) -> None:
    app = new_app(api)
    job = new_job(api, app, type="users")
    upload(api, job, ["1"])
    advance(api, PROCESSING_S)
    assert api.http.get(relative(job["download_url"])).status_code == 200
    advance(api, 7 * 86_400)
    assert get_job(api, app, job["id"])["status"] == "expired"
    expired = api.http.get(relative(job["download_url"]))
    assert expired.status_code == 400 and "<Code>ExpiredToken</Code>" in expired.text


@pytest.mark.parametrize("status", ["created", "in_progress", "failed", "complete"])
def test_list_filters_are_accepted(api: Api, status: str) -> None:
    app = new_app(api)
    response = api.get(
        "/2/compliance/jobs",
        auth="none",
        headers=app_bearer(app),
        params={"type": "tweets", "status": status},
    )
    assert response.status_code == 200 and response.json() == {}


def test_urls_follow_the_host_the_request_came_to(api: Api) -> None:
    """Through `roost run`'s redirect a program addresses the platform's host: its job URLs are on
    that host (which the redirect sends back to roost), and work there."""
    app = new_app(api)
    platform = {"Host": "api.x.com", "X-Forwarded-Proto": "https"}
    response = api.post(
        "/2/compliance/jobs", auth="none", headers={**app_bearer(app), **platform}, json={"type": "users"}
    )
    job = response.json()["data"]
    assert job["upload_url"].startswith(
        f"https://api.x.com/storage/twttr-user-compliance/{job['id']}/submission/"
    )
    assert job["download_url"].startswith(
        f"https://api.x.com/storage/twttr-user-compliance/{job['id']}/delivery/"
    )
    put = api.http.put(
        relative(job["upload_url"]), content="1\n", headers={"Content-Type": "text/plain", **platform}
    )
    assert put.status_code == 200
    assert get_job(api, app, job["id"])["upload_url"].startswith(api.base_url + "/storage/")
