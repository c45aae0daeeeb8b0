"""twitter-api-v2 (npm, 1.29.1) communities against roost: `v2.community` and `v2.searchCommunities`,
as a Node child under the shipped redirect, with an OAuth 2.0 user token."""

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
SCRIPT = NODE_DIR / "twitter_api_v2_communities.cjs"


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


def test_community_lookup_and_search(
    node_ready: None, server: LiveServer, credentials: dict[str, Any]
) -> None:
    base = server.base_url
    user = httpx.post(base + "/_roost/users", json={"username": f"nc_{uuid.uuid4().hex[:12]}"}).json()
    token = httpx.post(
        base + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()["access_token"]
    word = f"n{uuid.uuid4().hex[:8]}"
    body = {"name": f"{word} node", "description": "Node folks", "creator_id": user["id"]}
    made = httpx.post(base + "/_roost/communities", json=body).json()
    result = run_script(server, {"token": token, "community_id": made["id"], "query": word})
    assert "error" not in result, result
    assert result["one"] == {
        "id": made["id"],
        "name": f"{word} node",
        "member_count": 1,
        "description": "Node folks",
    }
    assert result["found"] == [{"id": made["id"], "name": f"{word} node"}]
    assert result["found_meta"] == {"result_count": 1}
    assert [item["resource_type"] for item in result["missing"]] == ["community"]
