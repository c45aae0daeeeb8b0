"""`confirmed_email`: only on the caller's own user object, only for an OAuth 2.0 user token holding
the `users.email` scope; omitted in every other case."""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from tests.support.client import Api

READ = "tweet.read users.read"
WITH_EMAIL = "tweet.read users.read users.email"
CALLBACK = "http://127.0.0.1:9/email-cb"
FIELDS = {"user.fields": "confirmed_email,created_at"}


def user_with_email(api: Api, email: str | None = "owner@example.org") -> dict[str, Any]:
    body: dict[str, Any] = {"username": f"e_{uuid.uuid4().hex[:12]}"}
    if email is not None:
        body["email"] = email
    created = api.http.post("/_roost/users", json=body)
    assert created.status_code == 201, created.text
    user: dict[str, Any] = created.json()
    return user


def oauth2_token(api: Api, user: dict[str, Any], scopes: str) -> dict[str, str]:
    issued = api.http.post(
        "/_roost/tokens",
        json={
            "consumer_key": api.creds["consumer_key"],
            "user_id": user["id"],
            "kind": "oauth2",
            "scopes": scopes,
        },
    )
    assert issued.status_code == 201, issued.text
    assert issued.json()["scope"] == scopes
    return {"Authorization": f"Bearer {issued.json()['access_token']}"}


def oauth1_token(api: Api, user: dict[str, Any]) -> tuple[str, str]:
    issued = api.http.post(
        "/_roost/tokens", json={"consumer_key": api.creds["consumer_key"], "user_id": user["id"]}
    )
    assert issued.status_code == 201, issued.text
    return issued.json()["access_token"], issued.json()["access_token_secret"]


def data_of(api: Api, path: str, headers: dict[str, str], **params: str) -> Any:
    response = api.get(path, auth="none", headers=headers, params={**FIELDS, **params})
    assert response.status_code == 200, response.text
    return response.json()["data"]


def test_own_user_with_email_scope(api: Api) -> None:
    owner = user_with_email(api)
    headers = oauth2_token(api, owner, WITH_EMAIL)
    assert data_of(api, "/2/users/me", headers)["confirmed_email"] == "owner@example.org"
    # Any operation rendering the caller's own user object, in either vocabulary.
    assert data_of(api, f"/2/users/{owner['id']}", headers)["confirmed_email"] == "owner@example.org"
    by_name = data_of(api, "/2/users/by", headers, usernames=owner["username"])
    assert by_name[0]["confirmed_email"] == "owner@example.org"
    post_vocab = data_of(api, "/2/users/me", headers, **{"user.fields": "confirmed_email,pinned_post_id"})
    assert post_vocab["confirmed_email"] == "owner@example.org"


@pytest.mark.parametrize("scopes", [READ, "tweet.read users.read offline.access"])
def test_own_user_without_email_scope(api: Api, scopes: str) -> None:
    owner = user_with_email(api)
    data = data_of(api, "/2/users/me", oauth2_token(api, owner, scopes))
    assert "confirmed_email" not in data
    assert "created_at" in data  # the rest of the selection is still rendered


def test_other_users_never_show_email(api: Api) -> None:
    owner = user_with_email(api)
    other = user_with_email(api, "other@example.org")
    headers = oauth2_token(api, owner, WITH_EMAIL)
    assert "confirmed_email" not in data_of(api, f"/2/users/{other['id']}", headers)
    listed = data_of(api, "/2/users", headers, ids=f"{owner['id']},{other['id']}")
    emails = {item["id"]: item.get("confirmed_email") for item in listed}
    assert emails == {owner["id"]: "owner@example.org", other["id"]: None}


def test_user_without_email(api: Api) -> None:
    owner = user_with_email(api, email=None)
    assert "confirmed_email" not in data_of(api, "/2/users/me", oauth2_token(api, owner, WITH_EMAIL))


def test_app_only_and_oauth1_never_show_email(api: Api) -> None:
    owner = user_with_email(api)
    assert "confirmed_email" not in data_of(api, f"/2/users/{owner['id']}", api.bearer())
    token, secret = oauth1_token(api, owner)
    path = "/2/users/me?user.fields=confirmed_email"
    response = api.get(path, auth="none", headers=api.oauth1("GET", path, token=token, secret=secret))
    assert response.status_code == 200, response.text
    assert response.json()["data"]["username"] == owner["username"]
    assert "confirmed_email" not in response.json()["data"]


def test_email_through_the_pkce_flow(api: Api) -> None:
    """A token from the real authorize → token exchange with `users.email` granted shows the email."""
    app = api.http.post(
        "/_roost/apps", json={"name": f"email-{uuid.uuid4().hex[:8]}", "callback_urls": [CALLBACK]}
    )
    assert app.status_code == 201, app.text
    client = app.json()
    owner = user_with_email(api, "flow@example.org")
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    params = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": CALLBACK,
        "scope": WITH_EMAIL,
        "state": "s1",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    approved = api.http.get(
        "/i/oauth2/authorize", params=params, headers={"X-Roost-Approve": owner["username"]}
    )
    assert approved.status_code == 302, approved.text
    code = parse_qs(urlsplit(approved.headers["location"]).query)["code"][0]
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CALLBACK,
        "code_verifier": verifier,
    }
    token = api.http.post("/2/oauth2/token", data=form, auth=(client["client_id"], client["client_secret"]))
    assert token.status_code == 200, token.text
    assert token.json()["scope"] == WITH_EMAIL
    headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
    assert data_of(api, "/2/users/me", headers)["confirmed_email"] == "flow@example.org"
