"""tweepy 4.17 `Client`'s seventeen list methods against roost, through the `roost run` redirect
(tests/clients/scripts/tweepy_lists_probe.py is the plain tweepy program)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.api.helpers import create_ok
from tests.clients.helpers import run_redirected_script
from tests.support.client import Api
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in result, json.dumps(result["error"], indent=1)
    return result


def test_every_list_method_of_the_client(
    server: LiveServer, credentials: dict[str, Any], api: Api, make_user: Any
) -> None:
    owner, member, fan = make_user(), make_user(), make_user()
    post = create_ok(api, member)
    params = {
        "consumer_key": credentials["consumer_key"],
        "consumer_secret": credentials["consumer_secret"],
        "bearer_token": credentials["bearer_token"],
        "access_token": owner["token"],
        "access_token_secret": owner["secret"],
        "fan_token": fan["token"],
        "fan_secret": fan["secret"],
        "member_id": member["id"],
        "owner_id": owner["id"],
        "fan_id": fan["id"],
    }
    results = run_redirected_script(server.base_url, "tweepy_lists_probe.py", json.dumps(params))

    created = ok(results["create"])["data"]["raw"]
    list_id = created["id"]
    assert created == {"id": list_id, "name": "tweepy list"}
    assert ok(results["update"])["data"]["raw"] == {"updated": True}
    assert ok(results["add_member"])["data"]["raw"] == {"is_member": True}

    got = ok(results["get_list"])
    listed = got["data"]
    assert listed["class"] == "List"
    # tweepy's List keeps ids as the wire's strings (its Tweet and User make them integers).
    assert (listed["id"], listed["name"], listed["description"]) == (
        list_id,
        "tweepy list",
        "changed by tweepy",
    )
    assert (listed["member_count"], listed["follower_count"], listed["private"]) == (1, 0, False)
    assert listed["owner_id"] == owner["id"]
    assert listed["created_at"] is not None
    assert [user["id"] for user in got["includes"]["users"]] == [int(owner["id"])]

    members = ok(results["members"])
    assert [user["id"] for user in members["data"]] == [int(member["id"])]
    assert members["meta"] == {"result_count": 1}
    tweets = ok(results["tweets"])
    assert tweets["data"][0] == {
        "class": "Tweet",
        "id": int(post["id"]),
        "text": post["text"],
        "author_id": int(member["id"]),
    }
    assert [item["id"] for item in ok(results["memberships"])["data"]] == [list_id]
    assert [item["id"] for item in ok(results["owned"])["data"]] == [list_id]

    assert ok(results["follow"])["data"]["raw"] == {"following": True}
    assert [user["id"] for user in ok(results["followers"])["data"]] == [int(fan["id"])]
    assert [item["id"] for item in ok(results["followed"])["data"]] == [list_id]
    assert ok(results["pin"])["data"]["raw"] == {"pinned": True}
    pinned = ok(results["pinned"])
    assert [item["id"] for item in pinned["data"]] == [list_id]
    assert pinned["meta"] == {"result_count": 1}
    assert ok(results["unpin"])["data"]["raw"] == {"pinned": False}
    assert ok(results["unfollow"])["data"]["raw"] == {"following": False}
    assert ok(results["remove_member"])["data"]["raw"] == {"is_member": False}

    assert results["fan_deletes"]["error"] == {"exception": "tweepy.errors.Forbidden", "status": 403}
    assert ok(results["delete"])["data"]["raw"] == {"deleted": True}
    gone = ok(results["get_deleted"])
    assert gone["data"] is None
    assert gone["errors"][0]["detail"] == f"Could not find list with id: [{list_id}]."
