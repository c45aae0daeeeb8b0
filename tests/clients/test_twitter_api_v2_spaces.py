"""twitter-api-v2 (npm, 1.29.1) Spaces and compliance jobs against roost: `v2.space`, `v2.spaces`,
`v2.spacesByCreators`, `v2.searchSpaces`, `v2.spaceTweets`, `v2.spaceBuyers`, and
`v2.sendComplianceJob` (create and upload), `v2.complianceJobs`, `v2.complianceJob`,
`v2.complianceJobResult` (wait and download), as a Node child under the shipped redirect."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from typing import Any

import httpx
import pytest
from tests.clients.test_twitter_api_v2 import CHILD_TIMEOUT, NODE_DIR, node_ready
from tests.support.server import LiveServer

from roost.redirect import redirect_env

pytestmark = pytest.mark.clients
__all__ = ["node_ready"]  # the fixture, used by name below
SCRIPT = NODE_DIR / "twitter_api_v2_spaces.cjs"
TECHNOLOGY = "848920371311001600"


def run_script(server: LiveServer, params: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(SCRIPT), json.dumps(params)],
        cwd=NODE_DIR,
        env=redirect_env(server.base_url, os.environ),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"exited {done.returncode}\nstderr:\n{done.stderr[-4000:]}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def new_user(base: str, credentials: dict[str, Any]) -> tuple[dict[str, Any], str]:
    user = httpx.post(base + "/_roost/users", json={"username": f"ns_{uuid.uuid4().hex[:12]}"}).json()
    token = httpx.post(
        base + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()["access_token"]
    return user, token


def test_spaces_and_a_compliance_job(
    node_ready: None, server: LiveServer, credentials: dict[str, Any]
) -> None:
    base = server.base_url
    (creator, token), (speaker, _), (buyer, _) = (new_user(base, credentials) for _ in range(3))
    word = f"node{uuid.uuid4().hex[:8]}"
    space = httpx.post(
        base + "/_roost/spaces",
        json={
            "creator_id": creator["id"],
            "title": f"{word} live",
            "is_ticketed": True,
            "speaker_ids": [speaker["id"]],
            "topic_ids": [TECHNOLOGY],
        },
    ).json()
    httpx.post(f"{base}/_roost/spaces/{space['id']}/tickets", json={"user_id": buyer["id"]})
    headers = {"Authorization": f"Bearer {token}"}
    shared = httpx.post(
        base + "/2/tweets", headers=headers, json={"text": f"Live now https://x.com/i/spaces/{space['id']}"}
    ).json()["data"]["id"]
    gone = httpx.post(base + "/2/tweets", headers=headers, json={"text": f"gone {uuid.uuid4().hex}"}).json()
    assert httpx.delete(f"{base}/2/tweets/{gone['data']['id']}", headers=headers).status_code == 200
    compliance_app = httpx.post(base + "/_roost/apps", json={"name": f"node-{uuid.uuid4().hex[:8]}"}).json()
    result = run_script(
        server,
        {
            "bearer_token": credentials["bearer_token"],
            "creator_token": token,
            "compliance_bearer": compliance_app["bearer_token"],
            "space_id": space["id"],
            "creator_id": creator["id"],
            "word": word,
            "control": base,
            "ids": [shared, gone["data"]["id"]],
        },
    )
    assert "error" not in result, result
    assert result["space"] == {
        "id": space["id"],
        "state": "live",
        "title": f"{word} live",
        "speaker_ids": [speaker["id"]],
        "topic_ids": [TECHNOLOGY],
    }
    assert [user["id"] for user in result["includes"]["users"]] == [speaker["id"]]
    assert result["includes"]["topics"][0]["id"] == TECHNOLOGY
    assert result["many"] == [space["id"]] and result["many_meta"] is None
    assert result["by_creators"] == [space["id"]]
    assert result["found"] == [space["id"]] and result["found_meta"] == {"result_count": 1}
    assert result["tweets"] == [shared]
    assert result["buyers"] == [buyer["username"]]
    assert (result["job"]["name"], result["job"]["status"]) == ("node job", "created")
    assert result["listed"] == [result["job"]["id"]]
    assert result["fetched"] == "in_progress"
    assert [(line["id"], line["reason"]) for line in result["lines"]] == [(gone["data"]["id"], "deleted")]
