"""Custom audiences (create, users, permissions, targeted), app lists, line item apps and the
behavior catalogs with the official python ads SDK's resource classes, on API version 11 (the
SDK's own, in this process) and on version 12 (a fresh interpreter: tests/clients/ads_v12.py).
The scenarios live in tests/clients/scripts/ads_audiences.py; the asserts here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.clients.ads_v12 import run_v12
from tests.clients.scripts import ads_audiences
from tests.support.server import LiveServer
from twitter_ads.client import Client
from twitter_ads.http import Request

pytestmark = pytest.mark.clients

Scenario = Callable[[str], dict[str, Any]]


@pytest.fixture()
def run(
    server: LiveServer, credentials: dict[str, Any], request: pytest.FixtureRequest
) -> Iterator[Scenario]:
    """Runs a scenario of ads_audiences.py on the version the test is parametrised with."""
    version = request.param
    saved = (Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN)
    Request._DEFAULT_DOMAIN = server.base_url
    Request._SANDBOX_DOMAIN = server.base_url + "/sandbox"

    def scenario(name: str) -> dict[str, Any]:
        if version == "12":
            script = (
                f"from tests.clients.scripts import ads_audiences\ndump(ads_audiences.{name}(client()))\n"
            )
            result: dict[str, Any] = run_v12(server.base_url, credentials, script)
            return result
        client = Client(
            credentials["consumer_key"],
            credentials["consumer_secret"],
            credentials["access_token"],
            credentials["access_token_secret"],
            options={"sandbox": True},
        )
        outcome: dict[str, Any] = getattr(ads_audiences, name)(client)
        return outcome

    try:
        yield scenario
    finally:
        Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN = saved


VERSIONS = pytest.mark.parametrize("run", ["11", "12"], indirect=True)


@VERSIONS
def test_custom_audiences(run: Scenario, request: pytest.FixtureRequest) -> None:
    version = request.node.callspec.params["run"]
    seen = run("audiences")
    assert seen["collection"] == f"/{version}/accounts/{{account_id}}/custom_audiences"
    assert seen["created"] == {
        "targetable": None,  # from_response skips False (bool is an int equal to 0)
        "reasons": ["PROCESSING", "TOO_SMALL"],
        "size": None,
        "owner": True,
    }
    assert seen["duplicate"] == ["INVALID_PARAMETER"]
    assert seen["counts"] == [100, 100]
    assert seen["bad_hash"] == [
        [
            {
                "code": "INVALID_PARAMETER",
                "message": 'Expected a SHA-256 hash in lower-case hex, got "plain@example.com" for email',
                "parameter": "email",
            }
        ]
    ]
    assert seen["loaded"] == {"targetable": True, "reasons": [], "size": 100}
    assert seen["listed"] is True and seen["one"] is True
    assert seen["renamed"] == ["renamed", "from the sdk"]
    assert seen["permission"] == [True, "READ_ONLY"]
    assert seen["permissions"] == [True] and seen["shared"] == [True]
    assert seen["criterion"] == [True, "Custom audience targeting"]
    assert seen["targeted"] == [{"campaign": True, "line_items": [True]}]
    assert seen["revoked"] is True and seen["permissions_after"] == []
    assert seen["deleted"] is True and seen["after_delete"] == ["NOT_FOUND"]


@VERSIONS
def test_app_lists_and_line_item_apps(run: Scenario, request: pytest.FixtureRequest) -> None:
    version = request.node.callspec.params["run"]
    seen = run("app_lists")
    assert seen["collection"] == f"/{version}/accounts/{{account_id}}/app_lists"
    apps = [
        {"app_store_identifier": "com.rival.app", "os_type": "Android"},
        {"app_store_identifier": "333903271", "os_type": "iOS"},
    ]
    assert seen["created"] == apps and seen["loaded_apps"] == apps
    assert seen["listed"] == [[True, "rivals"]]
    assert seen["listed_apps"] is None  # the list shows {id, name}; one GET shows the apps
    assert seen["criterion"] == "NE"
    assert seen["line_item_app"] == [True, "com.rival.app", "ANDROID"]
    assert seen["line_item_apps"] == [True] and seen["line_item_app_loaded"] == "com.rival.app"
    assert seen["line_item_app_deleted"] is True and seen["deleted"] == ["NOT_FOUND"]


@VERSIONS
def test_behavior_catalogs(run: Scenario, request: pytest.FixtureRequest) -> None:
    version = request.node.callspec.params["run"]
    seen = run("behaviors")
    assert seen["path"] == f"/{version}/targeting_criteria/"
    assert seen["roots"] and set(seen["roots"]) == {None}
    assert seen["countries"] == ["GB"] and seen["types"] == ["BEHAVIOR"]
    assert seen["count"] > 5  # the cursor followed next_cursor with count=5 on every page
