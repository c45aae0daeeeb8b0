"""twarc 2's list reads (lookup, members, followers, tweets, owned, memberships, followed, pinned)
against roost, as a plain program under the redirect (tests/clients/scripts/twarc_lists_probe.py).
twarc asks for every field it knows, so this is also the widest field selection a client sends."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.api.helpers import bearer, create_ok
from tests.api.test_lists import add_member, create_list
from tests.clients.helpers import run_redirected_script
from tests.support.client import Api
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients


def test_twarc_reads_every_list_listing(
    server: LiveServer, credentials: dict[str, Any], api: Api, make_user: Any
) -> None:
    owner, first, second, fan = make_user(), make_user(), make_user(), make_user()
    list_id = create_list(api, owner, "twarc list", description="for twarc")
    for member in (first, second):
        assert add_member(api, owner, list_id, member).status_code == 200
    posts = [create_ok(api, author)["id"] for author in (first, second, first)]
    follow = api.post(
        f"/2/users/{fan['id']}/followed_lists", auth="none", headers=bearer(fan), json={"list_id": list_id}
    )
    assert follow.status_code == 200
    pin = api.post(
        f"/2/users/{owner['id']}/pinned_lists", auth="none", headers=bearer(owner), json={"list_id": list_id}
    )
    assert pin.status_code == 200
    params = {
        "bearer_token": credentials["bearer_token"],
        "consumer_key": credentials["consumer_key"],
        "consumer_secret": credentials["consumer_secret"],
        "access_token": owner["token"],
        "access_token_secret": owner["secret"],
        "list_id": list_id,
        "owner_id": owner["id"],
        "member_id": first["id"],
        "fan_id": fan["id"],
    }
    result = run_redirected_script(server.base_url, "twarc_lists_probe.py", json.dumps(params))

    lookup = result["lookup"]
    assert lookup["data"]["id"] == list_id
    assert lookup["data"]["description"] == "for twarc"
    assert lookup["data"]["member_count"] == 2
    assert lookup["includes"]["users"][0]["id"] == owner["id"]
    assert result["members"] == [[second["id"]], [first["id"]]]  # one per page, newest first
    assert result["followers"] == [[fan["id"]]]
    assert result["tweets"] == [[posts[2], posts[1]], [posts[0]]]
    assert result["owned"] == [[list_id]]
    assert result["memberships"] == [[list_id]]
    assert result["followed"] == [[list_id]]
    assert result["pinned"] == [[list_id]]
