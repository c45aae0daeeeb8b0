"""twarc 2 (`retweeted_by`, `quotes`) against roost through the shipped redirect; twarc 2 has no home
timeline method."""

from __future__ import annotations

from typing import Any

import pytest
from tests.api.helpers import bearer, create_ok
from tests.clients.helpers import run_redirected_script
from tests.support.client import Api
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients


def test_retweeted_by_and_quotes(
    server: LiveServer, credentials: dict[str, Any], api: Api, make_user: Any
) -> None:
    author = make_user()
    fans = [make_user() for _ in range(2)]
    source = create_ok(api, author)["id"]
    for fan in fans:
        response = api.post(
            f"/2/users/{fan['id']}/retweets", auth="none", headers=bearer(fan), json={"tweet_id": source}
        )
        assert response.status_code == 200, response.text
    quotes = [create_ok(api, fan, quote_tweet_id=source)["id"] for fan in fans]
    result = run_redirected_script(
        server.base_url, "twarc_reposts_probe.py", credentials["bearer_token"], source
    )
    assert result["retweeted_by"] == [[fans[1]["id"], fans[0]["id"]]]
    assert result["quotes"] == [list(reversed(quotes))]
