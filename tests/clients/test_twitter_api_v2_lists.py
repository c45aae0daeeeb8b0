"""twitter-api-v2 (Node) list methods against roost through the redirect
(tests/clients/node/twitter_api_v2_lists.cjs); skipped like the other Node tests without node/npm."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest
from tests.api.helpers import create_ok
from tests.clients.test_twitter_api_v2 import CHILD_TIMEOUT, NODE_DIR, node_ready
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.redirect import redirect_env

pytestmark = pytest.mark.clients
SCRIPT = NODE_DIR / "twitter_api_v2_lists.cjs"
__all__ = ["node_ready"]  # the fixture, shared with the sign-in flow tests


def test_list_methods_of_the_v2_client(
    node_ready: None, server: LiveServer, credentials: dict[str, Any], api: Api, make_user: Any
) -> None:
    owner, member, fan = make_user(), make_user(), make_user()
    post = create_ok(api, member)
    params = {
        "consumer_key": credentials["consumer_key"],
        "consumer_secret": credentials["consumer_secret"],
        "bearer_token": credentials["bearer_token"],
        "owner_token": owner["token"],
        "owner_secret": owner["secret"],
        "fan_token": fan["token"],
        "fan_secret": fan["secret"],
        "owner_id": owner["id"],
        "member_id": member["id"],
        "fan_id": fan["id"],
    }
    done = subprocess.run(
        ["node", str(SCRIPT), json.dumps(params)],
        cwd=NODE_DIR,
        env=redirect_env(server.base_url, os.environ),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    out = json.loads(done.stdout)

    list_id = out["create"]["data"]["id"]
    assert out["create"] == {"data": {"id": list_id, "name": "tav2 list"}}
    assert out["update"] == {"data": {"updated": True}}
    assert out["add"] == {"data": {"is_member": True}}
    assert out["list"]["data"] == {
        "id": list_id,
        "name": "tav2 list",
        "description": "changed",
        "member_count": 1,
        "owner_id": owner["id"],
    }
    assert out["list"]["includes"]["users"][0]["id"] == owner["id"]
    assert [user["id"] for user in out["members"]["data"]] == [member["id"]]
    assert [tweet["id"] for tweet in out["tweets"]["data"]] == [post["id"]]
    assert [item["id"] for item in out["owned"]["data"]] == [list_id]
    assert [item["id"] for item in out["memberships"]["data"]] == [list_id]
    assert out["follow"] == {"data": {"following": True}}
    assert [user["id"] for user in out["followers"]["data"]] == [fan["id"]]
    assert [item["id"] for item in out["followed"]["data"]] == [list_id]
    assert out["pin"] == {"data": {"pinned": True}}
    assert out["unpin"] == {"data": {"pinned": False}}
    assert out["unfollow"] == {"data": {"following": False}}
    assert out["remove"] == {"data": {"is_member": False}}
    assert out["fan_delete"]["status"] == 403
    assert out["delete"] == {"data": {"deleted": True}}
