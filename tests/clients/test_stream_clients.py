"""The filtered stream read by real clients besides tweepy: twarc 2 (`add_stream_rules`,
`get_stream_rules`, `stream`, `delete_stream_rule_ids`) as a program under the `roost run` redirect,
and xdk's stream helper (`stream.update_rules`, `stream.posts`) in-process through its `base_url`."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer
from xdk import Client
from xdk.stream.models import UpdateRulesRequest

pytestmark = pytest.mark.clients


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="stream_clients", rate_limits=False, extra={"stream_keepalive_s": "0.2"})
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


def test_twarc_rules_and_stream(server: LiveServer, credentials: dict[str, Any]) -> None:
    word = "t" + uuid.uuid4().hex[:10]
    result = run_redirected_script(
        server.base_url,
        "stream_probe.py",
        credentials["bearer_token"],
        credentials["oauth2_user_token"],
        word,
        warnings_as_errors=False,
    )
    assert [rule["value"] for rule in result["added"]] == [word]
    assert word in result["rules"]
    assert result["tweet"]["text"] == f"twarc sees {word}"
    assert result["matching_rules"] == [{"id": result["added"][0]["id"], "tag": "twarc rule"}]
    assert result["users"] == [credentials["username"]]
    assert result["deleted"]["deleted"] == 1


def _get(item: Any, name: str) -> Any:
    """xdk gives pydantic models, or plain dicts for nested items it does not model."""
    return item[name] if isinstance(item, dict) else getattr(item, name)


def test_xdk_stream_helper(server: LiveServer, credentials: dict[str, Any]) -> None:
    word = "x" + uuid.uuid4().hex[:10]
    client = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    try:
        added = client.stream.update_rules(body=UpdateRulesRequest(add=[{"value": word, "tag": "xdk rule"}]))
        rule_id = _get(added.data[0], "id")
        listed = [_get(rule, "value") for page in client.stream.get_rules() for rule in page.data or []]
        assert word in listed

        def post() -> None:
            httpx.post(
                server.base_url + "/2/tweets",
                json={"text": f"xdk sees {word}"},
                headers={"Authorization": f"Bearer {credentials['oauth2_user_token']}"},
                timeout=10,
            )

        threading.Timer(0.5, post).start()
        received = None
        for item in client.stream.posts(tweet_fields=["author_id"]):
            data = _get(item, "data")
            if data:
                received = item
                break
        assert received is not None
        data = _get(received, "data")
        assert _get(data, "text") == f"xdk sees {word}"
        assert _get(data, "author_id") == credentials["user_id"]
        rules = _get(received, "matching_rules")
        assert [(_get(r, "id"), _get(r, "tag")) for r in rules] == [(rule_id, "xdk rule")]
        deleted = client.stream.update_rules(body=UpdateRulesRequest(delete={"ids": [rule_id]}))
        assert _get(deleted.meta, "summary")
    finally:
        client.session.close()
