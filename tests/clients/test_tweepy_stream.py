"""tweepy 4.17 `StreamingClient` against roost, through the shipped `roost run` redirect: add_rules,
get_rules, filter() (a post made once connected arrives as a StreamResponse with its matching rule,
keep-alives arrive as `on_keep_alive`), delete_rules."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients

SCRIPT = r"""
import json
import sys
import threading

import tweepy

params = json.loads(sys.argv[1])
out = {"keep_alives": 0}


class Client(tweepy.StreamingClient):
    def on_connect(self):
        poster = tweepy.Client(bearer_token=params["user_token"])
        timer = threading.Timer(0.3, lambda: poster.create_tweet(text=params["text"], user_auth=False))
        timer.start()

    def on_keep_alive(self):
        out["keep_alives"] += 1

    def on_response(self, response):
        tweet = response.data
        out["tweet"] = {"id": str(tweet.id), "text": tweet.text, "author_id": str(tweet.author_id)}
        out["users"] = [user.username for user in response.includes.get("users", [])]
        out["matching_rules"] = [{"id": str(r.id), "tag": r.tag} for r in response.matching_rules]
        self.disconnect()

    def on_request_error(self, status_code):
        out["request_error"] = status_code
        self.disconnect()


client = Client(params["bearer_token"], max_retries=1)
added = client.add_rules([tweepy.StreamRule(params["word"], tag="tweepy rule")])
out["added"] = [{"id": str(r.id), "value": r.value, "tag": r.tag} for r in added.data]
out["added_summary"] = added.meta["summary"]
duplicate = client.add_rules([tweepy.StreamRule(params["word"])])
out["duplicate_errors"] = [e["title"] for e in duplicate.errors]
out["rules"] = [{"id": str(r.id), "value": r.value, "tag": r.tag} for r in client.get_rules().data]
threading.Timer(30, client.disconnect).start()  # never hang the suite
client.filter(expansions=["author_id"], tweet_fields=["author_id"], user_fields=["username"])
deleted = client.delete_rules([r["id"] for r in out["added"]])
out["deleted_summary"] = deleted.meta["summary"]
out["after_delete"] = client.get_rules().data
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="tweepy_stream", rate_limits=False, extra={"stream_keepalive_s": "0.2"})
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


def test_streaming_client_rules_and_filter(
    server: LiveServer, credentials: dict[str, Any], make_user: Any, tmp_path: Path
) -> None:
    author = make_user()
    word = f"tw{uuid.uuid4().hex[:10]}"
    script = tmp_path / "tweepy_stream_probe.py"
    script.write_text(SCRIPT)
    params = {
        "bearer_token": credentials["bearer_token"],
        "user_token": author["oauth2"],
        "word": word,
        "text": f"streamed by tweepy {word}",
    }
    # An absolute path: run_redirected_script joins it onto its scripts folder, which keeps it as is.
    result = run_redirected_script(server.base_url, str(script), json.dumps(params))
    assert "request_error" not in result, result
    [added] = result["added"]
    assert added["value"] == word and added["tag"] == "tweepy rule"
    assert result["added_summary"] == {"created": 1, "not_created": 0, "valid": 1, "invalid": 0}
    assert result["duplicate_errors"] == ["DuplicateRule"]
    assert result["rules"] == [added]
    assert result["tweet"]["text"] == params["text"]
    assert result["tweet"]["author_id"] == author["id"]
    assert result["users"] == [author["username"]]
    assert result["matching_rules"] == [{"id": added["id"], "tag": "tweepy rule"}]
    assert result["deleted_summary"] == {"deleted": 1, "not_deleted": 0}
    assert result["after_delete"] is None
