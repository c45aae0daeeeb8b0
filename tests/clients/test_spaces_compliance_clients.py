"""tweepy 4.17 `Client` (get_space, get_spaces, search_spaces, get_space_tweets, get_space_buyers and
the compliance-job methods) and twarc 2's compliance jobs (create, list, get, upload, download)
against roost, through the shipped `roost run` redirect."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients


def new_user(base: str, credentials: dict[str, Any]) -> tuple[dict[str, Any], str]:
    user = httpx.post(base + "/_roost/users", json={"username": f"ts_{uuid.uuid4().hex[:12]}"}).json()
    token = httpx.post(
        base + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()["access_token"]
    return user, token


def new_app_bearer(base: str) -> str:
    app = httpx.post(base + "/_roost/apps", json={"name": f"clients-{uuid.uuid4().hex[:8]}"}).json()
    return str(app["bearer_token"])


def test_tweepy_spaces_and_compliance_jobs(server: LiveServer, credentials: dict[str, Any]) -> None:
    base = server.base_url
    (creator, creator_token), (buyer, _) = new_user(base, credentials), new_user(base, credentials)
    word = f"tweepy{uuid.uuid4().hex[:8]}"
    space = httpx.post(
        base + "/_roost/spaces",
        json={"creator_id": creator["id"], "title": f"{word} hour", "is_ticketed": True},
    ).json()
    httpx.post(f"{base}/_roost/spaces/{space['id']}/tickets", json={"user_id": buyer["id"]})
    post_id = httpx.post(
        base + "/2/tweets",
        headers={"Authorization": f"Bearer {creator_token}"},
        json={"text": f"Tune in https://x.com/i/spaces/{space['id']}"},
    ).json()["data"]["id"]
    params = {
        "bearer_token": credentials["bearer_token"],
        "creator_token": creator_token,
        "compliance_bearer": new_app_bearer(base),
        "space_id": space["id"],
        "creator_id": creator["id"],
        "word": word,
    }
    results = run_redirected_script(base, "tweepy_spaces.py", json.dumps(params))
    got = results["get_space"]
    assert got["data"]["id"] == space["id"] and got["data"]["title"] == f"{word} hour"
    assert got["data"]["host_ids"] == [creator["id"]] and got["users"] == [creator["id"]]
    assert [item["id"] for item in results["get_spaces_ids"]] == [space["id"]]
    assert [item["id"] for item in results["get_spaces_creators"]] == [space["id"]]
    assert results["search_spaces"]["meta"] == {"result_count": 1}
    assert [item["state"] for item in results["search_spaces"]["data"]] == ["live"]
    assert results["get_space_tweets"] == [post_id]
    assert results["get_space_buyers"] == [buyer["username"]]
    job = results["create_compliance_job"]
    assert (job["type"], job["name"], job["status"], job["resumable"]) == (
        "tweets",
        "tweepy job",
        "created",
        False,
    )
    assert results["get_compliance_job"] == job
    assert results["get_compliance_jobs"] == [job["id"]]
    assert results["get_compliance_jobs_none"] is None


def test_twarc_compliance_job_flow(server: LiveServer, credentials: dict[str, Any], tmp_path: Path) -> None:
    base = server.base_url
    _, token = new_user(base, credentials)
    headers = {"Authorization": f"Bearer {token}"}
    kept, gone = (
        httpx.post(base + "/2/tweets", headers=headers, json={"text": f"twarc {uuid.uuid4().hex}"}).json()[
            "data"
        ]["id"]
        for _ in range(2)
    )
    assert httpx.delete(f"{base}/2/tweets/{gone}", headers=headers).status_code == 200
    params = {
        "bearer_token": new_app_bearer(base),
        "control": base,
        "ids": [kept, gone],
        "outfile": str(tmp_path / "tweets_compliance.json"),
    }
    results = run_redirected_script(base, "twarc_compliance.py", json.dumps(params))
    assert results["created"]["status"] == "created" and results["created"]["name"] == "twarc job"
    assert results["created"]["resumable"] is False
    assert results["upload_status"] == 200
    assert results["after_upload"] == "in_progress"
    assert results["listed"] == [results["created"]["id"]]
    assert results["none_failed"] == {}
    assert results["done"] == "complete"
    assert [(line["id"], line["action"], line["reason"]) for line in results["lines"]] == [
        (gone, "delete", "deleted")
    ]
