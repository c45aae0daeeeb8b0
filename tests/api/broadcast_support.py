"""Helpers of the broadcast tests: users holding the broadcast scopes, the scheduled-broadcast calls,
and their answers held to the 2.167 document (the only one with broadcasts)."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.helpers import User, new_user, server_clock_ms
from tests.conformance.oracle import assert_conforms
from tests.support.client import Api

SCHEDULED = "/2/broadcasts/scheduled"
SCOPES = "broadcast.read broadcast.write tweet.read users.read"
MINUTE_MS = 60_000


def broadcaster(api: Api, scopes: str = SCOPES) -> User:
    """A new user whose OAuth 2.0 token (`oauth2`) holds `scopes`."""
    user = new_user(api)
    minted = api.http.post(
        "/_roost/tokens",
        json={
            "consumer_key": api.creds["consumer_key"],
            "user_id": user["id"],
            "kind": "oauth2",
            "scopes": scopes,
        },
    )
    assert minted.status_code == 201, minted.text
    user["oauth2"] = minted.json()["access_token"]
    return user


def conforming(response: httpx.Response) -> dict[str, Any]:
    """The body, held to the 2.167 document."""
    body: dict[str, Any] = response.json()
    request = response.request
    content_type = response.headers.get("content-type", "application/json").split(";")[0]
    assert_conforms(request.method, request.url.path, response.status_code, body, "post", content_type)
    return body


def call(api: Api, user: User, method: str, path: str, checked: bool = True, **kwargs: Any) -> httpx.Response:
    """A call with the user's OAuth 2.0 token, its answer held to 2.167 unless `checked` is False (the
    platform-wide 403s for credentials, which 2.167's Problem does not list)."""
    headers = {"Authorization": f"Bearer {user['oauth2']}"}
    response = api.request(method, path, auth="none", headers=headers, conform=False, **kwargs)
    if checked:
        conforming(response)
    return response


def schedule_body(
    api: Api, start_in_ms: int = 10 * MINUTE_MS, length_ms: int = 60 * MINUTE_MS, **fields: Any
) -> dict[str, Any]:
    now = server_clock_ms(api.http)
    return {
        "source_id": "rtmp-key-1",
        "scheduled_start_ms": str(now + start_in_ms),
        "scheduled_end_ms": str(now + start_in_ms + length_ms),
        **fields,
    }


def create(api: Api, user: User, **fields: Any) -> dict[str, Any]:
    response = call(api, user, "POST", SCHEDULED, json=schedule_body(api, **fields))
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def get(api: Api, user: User, broadcast_id: str) -> dict[str, Any]:
    response = call(api, user, "GET", f"{SCHEDULED}/{broadcast_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def advance(api: Api, seconds: float) -> None:
    assert api.http.post("/_roost/clock", json={"advance_seconds": seconds}).status_code == 200


def chat(api: Api, user: User, broadcast_id: str, text: str) -> httpx.Response:
    return call(api, user, "POST", f"/2/broadcasts/{broadcast_id}/chat", json={"text": text})
