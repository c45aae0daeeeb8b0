"""The ads SDK's user lookup (twitter-ads 11.0.0 `restapi.UserIdLookup`: `GET /1.1/users/show.json`
on api.twitter.com, OAuth 1.0a) against roost's v1.1 surface."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.clients.test_twitter_ads_sdk import DEMO_ACCOUNT, _client
from tests.support.server import LiveServer
from twitter_ads.account import Account
from twitter_ads.error import NotFound
from twitter_ads.http import Request
from twitter_ads.restapi import UserIdLookup

pytestmark = pytest.mark.clients


@pytest.fixture()
def hosts(server: LiveServer) -> Iterator[None]:
    """Point the SDK's ads host and the lookup's api.twitter.com at the live server, then restore."""
    saved = (Request._DEFAULT_DOMAIN, UserIdLookup.DOMAIN)
    Request._DEFAULT_DOMAIN = server.base_url
    UserIdLookup.DOMAIN = server.base_url
    try:
        yield
    finally:
        Request._DEFAULT_DOMAIN, UserIdLookup.DOMAIN = saved


def test_user_id_lookup(hosts: None, credentials: dict[str, Any], make_user: Any) -> None:
    client = _client(credentials, credentials["access_token"], credentials["access_token_secret"], False)
    account = Account.load(client, DEMO_ACCOUNT)
    user = make_user()
    found = UserIdLookup.load(account, user["username"])
    assert (found.id_str, found.screen_name) == (user["id"], user["username"])
    assert found.id == int(user["id"])
    with pytest.raises(NotFound):
        UserIdLookup.load(account, "nobody_by_that_name")
