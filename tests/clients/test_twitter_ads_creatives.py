"""Creatives (issue 23) through the official python ads SDK's own resource classes, on API version
11 (the SDK's default, in process) and 12 (a fresh interpreter, `ads_v12`): the media library, account
media, cards of every kind, draft and scheduled posts, previews, the account's posts, media creatives."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.api.ads.creatives_support import image_key, in_future, video_key
from tests.clients.ads_v12 import run_v12
from tests.clients.scripts import ads_creatives
from tests.support.client import Api
from tests.support.server import LiveServer
from twitter_ads.client import Client
from twitter_ads.http import Request

pytestmark = pytest.mark.clients

Scenario = Callable[..., dict[str, Any]]
VERSIONS = pytest.mark.parametrize("run", ["11", "12"], indirect=True)


@pytest.fixture()
def run(
    server: LiveServer, credentials: dict[str, Any], request: pytest.FixtureRequest
) -> Iterator[Scenario]:
    """Runs a scenario of scripts/ads_creatives.py on the version the test is parametrised with."""
    version = request.param
    saved = (Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN)
    Request._DEFAULT_DOMAIN = server.base_url
    Request._SANDBOX_DOMAIN = server.base_url + "/sandbox"

    def scenario(name: str, *args: str) -> dict[str, Any]:
        if version == "12":
            call = f"ads_creatives.{name}(client(), *{args!r})"
            script = f"from tests.clients.scripts import ads_creatives\ndump({call})\n"
            result: dict[str, Any] = run_v12(server.base_url, credentials, script)
            return result
        client = Client(
            credentials["consumer_key"],
            credentials["consumer_secret"],
            credentials["access_token"],
            credentials["access_token_secret"],
            options={"sandbox": True},
        )
        outcome: dict[str, Any] = getattr(ads_creatives, name)(client, *args)
        return outcome

    try:
        yield scenario
    finally:
        Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN = saved


@VERSIONS
def test_library_and_cards(run: Scenario, api: Api) -> None:
    image, video = image_key(api), video_key(api)
    out = run("library_and_cards", image, video)
    assert out["library_types"] == ["IMAGE", "VIDEO", "clip"]
    assert out["library_name"] == "renamed"
    assert out["library_keys"] == sorted([image, video])
    assert out["account_media"] == [["PREROLL", True]]
    assert out["card"] == ["IMAGE_WEBSITE", True]
    assert out["card_loaded"] == "renamed card" and out["cards"] is True
    assert out["fetched"] is True and out["fetched_one"] == "IMAGE_WEBSITE"
    assert out["poll"] == ["TEXT_POLLS", True]
    assert out["poll_deleted"] is True and out["poll_gone"] is True
    assert out["image_conversation"] == ["IMAGE_CONVERSATION", "chat 2"]
    assert out["video_conversation"] == ["VIDEO_CONVERSATION", True]
    assert out["card_deleted"] is True and out["library_deleted"] is True


@VERSIONS
def test_posts_and_creatives(
    run: Scenario, api: Api, server: LiveServer, credentials: dict[str, Any]
) -> None:
    image, video = image_key(api), video_key(api)
    out = run("posts_and_creatives", image, video, credentials["user_id"], in_future(server.base_url, 7200))
    assert out["draft"] == ["sdk draft, changed", True, True]
    assert out["drafts"] is True and out["previews"] is True
    assert out["scheduled"] == ["SCHEDULED", [image], None]
    assert out["scheduled_list"] == ["sdk scheduled, changed"]
    assert out["tweets"] is True
    assert out["media_creative"] == ["ACTIVE", True]
    assert out["media_creative_loaded"] is True and out["media_creative_deleted"] is True
