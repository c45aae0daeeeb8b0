"""`news.new` activity events: a story published through the control plane reaches the news.new
subscriptions whose keyword its headline, summary, hook, category or keywords hold."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from tests.api.webhooks.helpers import make_hook, wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="activity_news", rate_limits=False, extra={"activity_stream_keepalive_s": "0.5"})
    live.start()
    yield live
    live.stop()


def envelopes(receiver: Receiver, hook: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(post["raw"]) for post in receiver.received(urlsplit(hook["url"]).path)]


def publish(api: Api, **story: Any) -> dict[str, Any]:
    response = api.http.post("/_roost/news", json=story)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def test_published_stories_reach_news_subscriptions_by_keyword(api: Api, receiver: Receiver) -> None:
    hook = make_hook(api, receiver)
    body = {"event_type": "news.new", "filter": {"keyword": "solar eclipse"}, "webhook_id": hook["id"]}
    created = api.post("/2/activity/subscriptions", json=body)
    assert created.status_code == 200, created.text

    publish(api, name="An eclipse of the sun", summary="Solar panels dimmed.")
    wanted = publish(
        api,
        name="Sky watchers gather",
        summary="The total Solar Eclipse was seen by millions.",
        category="Science",
    )
    got = wait_for(lambda: envelopes(receiver, hook))
    assert len(got) == 1
    data = got[0]["data"]
    assert data["event_type"] == "news.new"
    assert data["filter"] == {"keyword": "solar eclipse"}
    assert data["payload"] == {
        "id": wanted["id"],
        "name": "Sky watchers gather",
        "category": "Science",
        "hook": "",
        "summary": "The total Solar Eclipse was seen by millions.",
        "disclaimer": wanted["disclaimer"],
        "updated_at": wanted["updated_at"],
        "contexts": wanted["contexts"],
        "cluster_posts_results": [],
    }


def test_published_stories_reach_the_activity_stream(api: Api, server: LiveServer) -> None:
    body = {"event_type": "news.new", "filter": {"keyword": "comet"}, "tag": "news"}
    assert api.post("/2/activity/subscriptions", json=body).status_code == 200
    with (
        httpx.Client(base_url=server.base_url, timeout=10) as client,
        client.stream("GET", "/2/activity/stream", headers=api.bearer()) as response,
    ):
        assert response.status_code == 200
        publish(api, name="Markets close higher")
        wanted = publish(api, name="A comet is visible tonight", keywords=["astronomy"])
        lines = response.iter_lines()
        envelope = json.loads(next(line for line in lines if line.strip()))
        assert envelope["data"]["event_type"] == "news.new"
        assert envelope["data"]["tag"] == "news"
        assert envelope["data"]["payload"]["id"] == wanted["id"]
