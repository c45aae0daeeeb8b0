"""Small helpers shared by the HTTP API tests: acting as a user, creating posts, importing objects."""

from __future__ import annotations

import itertools
import random
import uuid
from datetime import datetime
from typing import Any

import httpx
from tests.support.client import Api

User = dict[str, Any]

# Imported objects carry ids far below the snowflakes roost hands out, so importing them never moves
# the id generator (an imported id above "now" would shift every later id into the future).
_import_ids = itertools.count(random.randrange(10**11, 9 * 10**11, 10**6))
PROBLEMS = "https://api.x.com/2/problems/"


def new_user(api: Api, premium: bool = False, **fields: Any) -> User:
    """Like the `make_user` fixture, usable from module-scoped fixtures and other servers."""
    body = {
        "username": f"t_{uuid.uuid4().hex[:12]}",
        "subscription_type": "Premium" if premium else "None",
        **fields,
    }
    created = api.http.post("/_roost/users", json=body)
    assert created.status_code == 201, created.text
    user: User = created.json()
    key = api.creds["consumer_key"]
    oauth1 = api.http.post("/_roost/tokens", json={"consumer_key": key, "user_id": user["id"]}).json()
    oauth2 = api.http.post(
        "/_roost/tokens", json={"consumer_key": key, "user_id": user["id"], "kind": "oauth2"}
    ).json()
    return {
        **user,
        "token": oauth1["access_token"],
        "secret": oauth1["access_token_secret"],
        "oauth2": oauth2["access_token"],
    }


def bearer(user: User) -> dict[str, str]:
    """The OAuth 2.0 user-token header of a user made by `make_user`."""
    return {"Authorization": f"Bearer {user['oauth2']}"}


def server_clock_ms(http: httpx.Client) -> int:
    """The server's clock (`GET /_roost/clock`), epoch ms: what its rate-limit windows are reckoned by.
    Read before and after a request, it brackets the instant the server handled it."""
    response = http.get("/_roost/clock")
    assert response.status_code == 200, response.text
    now = datetime.strptime(response.json()["now"], "%Y-%m-%dT%H:%M:%S.%f%z")
    return int(now.timestamp() * 1000)


def unique_text(prefix: str = "post") -> str:
    return f"{prefix} {uuid.uuid4().hex[:10]}"


def next_import_id() -> str:
    return str(next(_import_ids))


def create(api: Api, user: User, body: dict[str, Any] | None = None, **fields: Any) -> httpx.Response:
    """POST /2/tweets as `user` (OAuth 2.0); a unique text unless the body names one."""
    payload = {"text": unique_text(), **(body or {}), **fields}
    return api.post("/2/tweets", auth="none", headers=bearer(user), json=payload)


def create_ok(api: Api, user: User, body: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    response = create(api, user, body, **fields)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def delete_as(api: Api, user: User, post_id: str) -> httpx.Response:
    return api.delete(f"/2/tweets/{post_id}", auth="none", headers=bearer(user))


def lookup(api: Api, post_id: str, **params: str) -> dict[str, Any]:
    response = api.get(f"/2/tweets/{post_id}", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def user_view(api: Api, user_id: str, fields: str = "public_metrics,most_recent_tweet_id") -> dict[str, Any]:
    response = api.get(f"/2/users/{user_id}", params={"user.fields": fields})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def import_objects(api: Api, payload: dict[str, Any]) -> dict[str, int]:
    response = api.http.post("/_roost/import", json=payload)
    assert response.status_code == 200, response.text
    counts: dict[str, int] = response.json()["imported"]
    return counts


def import_user(api: Api, **fields: Any) -> dict[str, Any]:
    user = {"id": next_import_id(), "username": f"i_{uuid.uuid4().hex[:10]}", "name": "Imported", **fields}
    assert import_objects(api, {"users": [user]})["users"] == 1
    return user


def import_media(api: Api, kind: str = "photo", **fields: Any) -> dict[str, Any]:
    media_id = next_import_id()
    prefix = {"photo": "3", "video": "7", "animated_gif": "16"}[kind]
    media = {"media_key": f"{prefix}_{media_id}", "type": kind, **fields}
    assert import_objects(api, {"media": [media]})["media"] == 1
    return {**media, "id": media_id}


def not_found_item(resource_type: str, parameter: str, value: str) -> dict[str, Any]:
    """The resource-not-found partial error roost documents (and the platform sends)."""
    return {
        "value": value,
        "detail": f"Could not find {resource_type} with {parameter}: [{value}].",
        "title": "Not Found Error",
        "resource_type": resource_type,
        "parameter": parameter,
        "resource_id": value,
        "type": PROBLEMS + "resource-not-found",
    }


def invalid_request(*items: dict[str, Any]) -> dict[str, Any]:
    """The whole 400 invalid-request body for the given errors[] items."""
    return {
        "errors": list(items),
        "title": "Invalid Request",
        "detail": "One or more parameters to your request was invalid.",
        "type": PROBLEMS + "invalid-request",
    }
