"""requests-oauthlib `OAuth1Session` signed calls, directly and through the `roost run` redirect.

Directly, the signature is over http://127.0.0.1:PORT; through the redirect it is over the public
https://api.twitter.com (or api.x.com) URL, which roost rebuilds from Host and X-Forwarded-Proto.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from requests_oauthlib import OAuth1, OAuth1Session
from tests.clients.helpers import run_redirected_script
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients


@pytest.fixture()
def user(make_user: Any) -> dict[str, Any]:
    return make_user()


@pytest.fixture()
def session(credentials: dict[str, Any], user: dict[str, Any]) -> Iterator[OAuth1Session]:
    signed = OAuth1Session(
        credentials["consumer_key"],
        client_secret=credentials["consumer_secret"],
        resource_owner_key=user["token"],
        resource_owner_secret=user["secret"],
    )
    yield signed
    signed.close()


def test_direct_get_me_with_query(server: LiveServer, session: OAuth1Session, user: dict[str, Any]) -> None:
    response = session.get(f"{server.base_url}/2/users/me", params={"user.fields": "created_at,protected"})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert (data["id"], data["username"], data["protected"]) == (user["id"], user["username"], False)
    assert data["created_at"].endswith("Z")


def test_direct_create_and_delete_json(
    server: LiveServer, session: OAuth1Session, user: dict[str, Any], credentials: dict[str, Any]
) -> None:
    text = f"requests-oauthlib direct {uuid.uuid4().hex[:10]}"
    created = session.post(f"{server.base_url}/2/tweets", json={"text": text})
    assert created.status_code == 201, created.text
    data = created.json()["data"]
    assert data["text"] == text and data["edit_history_tweet_ids"] == [data["id"]]
    looked_up = requests.get(
        f"{server.base_url}/2/tweets/{data['id']}",
        params={"tweet.fields": "author_id"},
        headers={"Authorization": f"Bearer {credentials['bearer_token']}"},
        timeout=30,
    )
    assert looked_up.json()["data"]["author_id"] == user["id"]
    deleted = session.delete(f"{server.base_url}/2/tweets/{data['id']}")
    assert (deleted.status_code, deleted.json()) == (200, {"data": {"deleted": True}})


def test_direct_wrong_secret_is_refused(
    server: LiveServer, credentials: dict[str, Any], user: dict[str, Any]
) -> None:
    forged = OAuth1Session(
        credentials["consumer_key"],
        client_secret=credentials["consumer_secret"],
        resource_owner_key=user["token"],
        resource_owner_secret="not-the-token-secret",
    )
    response = forged.get(f"{server.base_url}/2/users/me")
    assert response.status_code == 401
    assert response.json() == {
        "title": "Unauthorized",
        "type": "about:blank",
        "status": 401,
        "detail": "Unauthorized",
    }


def test_signature_follows_host_and_forwarded_proto(
    server: LiveServer, credentials: dict[str, Any], user: dict[str, Any]
) -> None:
    """A request signed for https://api.twitter.com verifies only when roost sees that origin."""
    auth = OAuth1(
        credentials["consumer_key"],
        client_secret=credentials["consumer_secret"],
        resource_owner_key=user["token"],
        resource_owner_secret=user["secret"],
    )

    def send(headers: dict[str, str]) -> requests.Response:
        prepared = requests.Request("GET", "https://api.twitter.com/2/users/me", auth=auth).prepare()
        prepared.url = f"{server.base_url}/2/users/me"
        prepared.headers.update(headers)
        with requests.Session() as plain:
            return plain.send(prepared, timeout=30)

    public = send({"Host": "api.twitter.com", "X-Forwarded-Proto": "https"})
    assert public.status_code == 200, public.text
    assert public.json()["data"]["id"] == user["id"]
    assert send({}).status_code == 401  # signed for another URL than the one roost was reached at


def test_redirected_calls_to_both_public_hosts(
    server: LiveServer, credentials: dict[str, Any], user: dict[str, Any]
) -> None:
    stamp = uuid.uuid4().hex[:10]
    params = {
        "consumer_key": credentials["consumer_key"],
        "consumer_secret": credentials["consumer_secret"],
        "access_token": user["token"],
        "access_token_secret": user["secret"],
        "text": f"requests-oauthlib redirected {stamp}",
    }
    results = run_redirected_script(
        server.base_url, "oauthlib_probe.py", json.dumps(params), warnings_as_errors=False
    )
    assert sorted(results) == ["https://api.twitter.com", "https://api.x.com"]
    for host, calls in results.items():
        me = calls["me"]
        assert me["status"] == 200, (host, me)
        assert (me["body"]["data"]["id"], me["body"]["data"]["username"]) == (user["id"], user["username"])
        assert "created_at" in me["body"]["data"]
        assert me["url"].startswith(f"{host}/2/users/me?")  # the program still sees the public URL
        created = calls["create"]
        assert created["status"] == 201, (host, created)
        label = "twitter" if host == "https://api.twitter.com" else "x"
        assert created["body"]["data"]["text"] == f"{params['text']} via {label}"
        assert calls["delete"]["status"] == 200
        assert calls["delete"]["body"] == {"data": {"deleted": True}}
        assert calls["forged_me"]["status"] == 401
