"""twitter-api-v2 (npm 1.29.1) reposts, quotes, hidden replies and the home timeline against roost, as a
Node child under the shipped redirect (the package is installed as tests/clients/test_twitter_api_v2.py
does; without node/npm the test is skipped)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from typing import Any

import pytest
from tests.clients.test_twitter_api_v2 import CHILD_TIMEOUT, NODE_DIR, _install
from tests.support.server import LiveServer

from roost.redirect import redirect_env

pytestmark = pytest.mark.clients


def test_retweet_quotes_hide_reply_home_timeline(
    server: LiveServer, credentials: dict[str, Any], make_user: Any
) -> None:
    reason = _install()
    if reason is not None:
        pytest.skip(reason)
    author, fan = make_user(), make_user()
    params = {
        "consumer_key": credentials["consumer_key"],
        "consumer_secret": credentials["consumer_secret"],
        "bearer_token": credentials["bearer_token"],
        "stamp": uuid.uuid4().hex[:10],
        "author": {"id": author["id"], "token": author["token"], "secret": author["secret"]},
        "fan": {"id": fan["id"], "token": fan["token"], "secret": fan["secret"]},
    }
    done = subprocess.run(
        ["node", str(NODE_DIR / "twitter_api_v2_reposts.cjs"), json.dumps(params)],
        cwd=NODE_DIR,
        env=redirect_env(server.base_url, os.environ),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"exited {done.returncode}\nstderr:\n{done.stderr[-4000:]}"
    result = json.loads(done.stdout)

    source = result["source"]
    assert result["retweeted"]["retweeted"] is True
    repost = result["retweeted"]["rest_id"]
    assert result["retweeters"] == [fan["id"]]
    assert result["quotes"] == [
        {"id": result["quote"], "referenced_tweets": [{"type": "quoted", "id": source}]}
    ]
    assert result["hidden"] == {"hidden": True} and result["shown"] == {"hidden": False}
    assert [tweet["id"] for tweet in result["home"]] == [result["quote"], repost, source]
    assert result["home"][1]["referenced_tweets"] == [{"type": "retweeted", "id": source}]
    assert result["home_meta"]["result_count"] == 3
    assert result["unretweeted"] == {"retweeted": False}
