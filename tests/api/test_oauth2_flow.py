"""OAuth 2.0 authorization code with PKCE against a live roost of this module's own (its clock moves).

Every refusal is checked with the platform's status and body.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from tests.support.server import LiveServer

CALLBACK = "http://127.0.0.1:9/cb"
CODE_INVALID = {
    "error": "invalid_request",
    "error_description": "Value passed for the authorization code was invalid.",
}
TOKEN_INVALID = {"error": "invalid_request", "error_description": "Value passed for the token was invalid."}
MISSING_AUTH = {"error": "unauthorized_client", "error_description": "Missing valid authorization header"}
UNAUTHORIZED = {"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"}
READ = "tweet.read users.read"
OFFLINE = "tweet.read users.read offline.access"


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    server = LiveServer(tag="oauth2", rate_limits=False).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def http(live: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live.base_url, timeout=30) as client:
        yield client


def make_app(http: httpx.Client, client_type: str = "confidential", **extra: Any) -> dict[str, Any]:
    body = {"name": f"app-{uuid.uuid4().hex[:8]}", "callback_urls": [CALLBACK], "client_type": client_type}
    response = http.post("/_roost/apps", json={**body, **extra})
    assert response.status_code == 201, response.text
    return response.json()


@pytest.fixture(scope="module")
def confidential(http: httpx.Client) -> dict[str, Any]:
    return make_app(http)


@pytest.fixture(scope="module")
def public(http: httpx.Client) -> dict[str, Any]:
    return make_app(http, "public")


def challenge_of(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def authorize_params(app: dict[str, Any], scope: str, verifier: str, method: str = "S256") -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": app["client_id"],
        "redirect_uri": CALLBACK,
        "scope": scope,
        "state": "st-" + uuid.uuid4().hex,
        "code_challenge": challenge_of(verifier) if method.upper() == "S256" else verifier,
        "code_challenge_method": method,
    }


def redirected(response: httpx.Response) -> dict[str, str]:
    assert response.status_code == 302, response.text
    location = response.headers["location"]
    return {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}


def get_code(
    http: httpx.Client,
    app: dict[str, Any],
    scope: str = OFFLINE,
    method: str = "S256",
    user: str = "roost_dev",
    path: str = "/i/oauth2/authorize",
) -> tuple[str, str]:
    """(code, verifier) through the test-mode approval."""
    verifier = secrets.token_urlsafe(64)
    params = authorize_params(app, scope, verifier, method)
    query = redirected(http.get(path, params=params, headers={"X-Roost-Approve": user}))
    assert query["state"] == params["state"]
    return query["code"], verifier


def exchange(
    http: httpx.Client, app: dict[str, Any], code: str, verifier: str, **overrides: Any
) -> httpx.Response:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CALLBACK,
        "code_verifier": verifier,
        "client_id": app["client_id"],
    }
    auth = overrides.pop("auth", (app["client_id"], app["client_secret"]))
    form.update(overrides)
    return http.post("/2/oauth2/token", data=form, auth=auth)


def refresh(http: httpx.Client, app: dict[str, Any], token: str, auth: Any = "basic") -> httpx.Response:
    basic = (app["client_id"], app["client_secret"]) if auth == "basic" else auth
    form = {"grant_type": "refresh_token", "refresh_token": token}
    if basic is None:
        form["client_id"] = app["client_id"]
    return http.post("/2/oauth2/token", data=form, auth=basic)


def me(http: httpx.Client, token: str) -> httpx.Response:
    return http.get("/2/users/me", headers={"Authorization": f"Bearer {token}"})


def decoded(token: str) -> list[str]:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode().split(":")


# ---- happy paths ---------------------------------------------------------------------------------


def test_confidential_client_full_flow(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential)
    response = exchange(http, confidential, code, verifier)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["token_type"] == "bearer"
    assert body["expires_in"] == 7200
    assert body["scope"] == OFFLINE
    assert set(body) == {"token_type", "expires_in", "access_token", "scope", "refresh_token"}
    assert decoded(body["access_token"])[-3:] == ["1", "at", "1"]
    assert decoded(body["refresh_token"])[-3:] == ["1", "rt", "1"]
    assert decoded(code)[-2] == "ac"
    user = me(http, body["access_token"])
    assert user.status_code == 200, user.text
    assert user.json()["data"]["username"] == "roost_dev"

    rotated = refresh(http, confidential, body["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()
    assert new["refresh_token"] != body["refresh_token"] and new["scope"] == OFFLINE
    assert me(http, new["access_token"]).status_code == 200

    revoked = http.post(
        "/2/oauth2/revoke",
        data={"token": new["access_token"], "token_type_hint": "access_token"},
        auth=(confidential["client_id"], confidential["client_secret"]),
    )
    assert (revoked.status_code, revoked.json()) == (200, {"revoked": True})
    after = me(http, new["access_token"])
    assert (after.status_code, after.json()) == (401, UNAUTHORIZED)


def test_public_client_plain_challenge_and_no_offline(http: httpx.Client, public: dict[str, Any]) -> None:
    code, verifier = get_code(http, public, scope=READ, method="plain", path="/2/oauth2/authorize")
    response = exchange(http, public, code, verifier, auth=None)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["scope"] == READ and "refresh_token" not in body
    assert me(http, body["access_token"]).status_code == 200


def test_public_client_refresh_and_revoke_refresh_token(http: httpx.Client, public: dict[str, Any]) -> None:
    code, verifier = get_code(http, public, method="s256")  # lower case, as twitter-api-v2 sends it
    body = exchange(http, public, code, verifier, auth=None).json()
    rotated = refresh(http, public, body["refresh_token"], auth=None)
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()
    revoked = http.post(
        "/2/oauth2/revoke", data={"token": new["refresh_token"], "client_id": public["client_id"]}
    )
    assert (revoked.status_code, revoked.json()) == (200, {"revoked": True})
    # Revoking the refresh token ends the grant: its access token and the refresh token stop working.
    assert me(http, new["access_token"]).status_code == 401
    assert refresh(http, public, new["refresh_token"], auth=None).json() == TOKEN_INVALID


def test_json_token_body(http: httpx.Client, confidential: dict[str, Any]) -> None:
    """twitter-api-v2 posts the token request as JSON (with the secret in the body too) plus Basic."""
    code, verifier = get_code(http, confidential, scope=READ)
    response = http.post(
        "/2/oauth2/token",
        json={
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": CALLBACK,
            "grant_type": "authorization_code",
            "client_id": confidential["client_id"],
            "client_secret": confidential["client_secret"],
        },
        auth=(confidential["client_id"], confidential["client_secret"]),
    )
    assert response.status_code == 200, response.text
    assert response.json()["scope"] == READ


# ---- authorize refusals --------------------------------------------------------------------------


def test_deny_redirects_with_access_denied(http: httpx.Client, confidential: dict[str, Any]) -> None:
    params = authorize_params(confidential, READ, "v" * 50)
    query = redirected(
        http.get("/i/oauth2/authorize", params=params, headers={"X-Roost-Approve": "deny:roost_dev"})
    )
    assert query == {"error": "access_denied", "state": params["state"]}


def test_unregistered_redirect_uri_shows_error_page(http: httpx.Client, confidential: dict[str, Any]) -> None:
    params = {**authorize_params(confidential, READ, "v" * 50), "redirect_uri": "https://evil.example/cb"}
    response = http.get("/i/oauth2/authorize", params=params, headers={"X-Roost-Approve": "roost_dev"})
    assert response.status_code == 400 and "location" not in response.headers
    assert "text/html" in response.headers["content-type"]


def test_unknown_client_shows_error_page(http: httpx.Client, confidential: dict[str, Any]) -> None:
    params = {**authorize_params(confidential, READ, "v" * 50), "client_id": "nope"}
    assert http.get("/i/oauth2/authorize", params=params).status_code == 400


@pytest.mark.parametrize("uri", ["myapp://oauth-callback", "http://example.com/cb"])
def test_registered_custom_scheme_and_plain_http_redirect_uris_are_used(http: httpx.Client, uri: str) -> None:
    """Native apps register custom schemes (the platform's iOS guide); the match is exact."""
    app = make_app(http, callback_urls=[uri])
    params = {**authorize_params(app, READ, "v" * 50), "redirect_uri": uri}
    response = http.get("/i/oauth2/authorize", params=params, headers={"X-Roost-Approve": "roost_dev"})
    assert response.status_code == 302 and response.headers["location"].startswith(uri + "?")
    assert "code=" in response.headers["location"]


def test_script_scheme_redirect_uri_is_refused_even_if_registered(http: httpx.Client) -> None:
    app = make_app(http, callback_urls=["javascript:alert(1)"])
    params = {**authorize_params(app, READ, "v" * 50), "redirect_uri": "javascript:alert(1)"}
    response = http.get("/i/oauth2/authorize", params=params, headers={"X-Roost-Approve": "roost_dev"})
    assert response.status_code == 400 and "location" not in response.headers


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"scope": "tweet.read bogus.scope"}, "invalid_scope"),
        ({"scope": ""}, "invalid_request"),
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"code_challenge_method": "md5"}, "invalid_request"),
        ({"code_challenge": ""}, "invalid_request"),
    ],
)
def test_bad_authorize_parameters_redirect_with_error(
    http: httpx.Client, confidential: dict[str, Any], change: dict[str, str], error: str
) -> None:
    params = {**authorize_params(confidential, READ, "v" * 50), **change}
    query = redirected(
        http.get("/i/oauth2/authorize", params=params, headers={"X-Roost-Approve": "roost_dev"})
    )
    assert query == {"error": error, "state": params["state"]}


# ---- token refusals ------------------------------------------------------------------------------


def test_wrong_code_verifier(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, _ = get_code(http, confidential)
    response = exchange(http, confidential, code, secrets.token_urlsafe(64))
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_request",
        "error_description": "Value passed for the code verifier did not match the code challenge.",
    }


def test_missing_code_verifier(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, _ = get_code(http, confidential)
    response = exchange(http, confidential, code, "")
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_request",
        "error_description": "Missing required parameter [code_verifier].",
    }


def test_reused_code_fails_and_revokes_what_it_gave(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential)
    first = exchange(http, confidential, code, verifier)
    assert first.status_code == 200
    second = exchange(http, confidential, code, verifier)
    assert (second.status_code, second.json()) == (400, CODE_INVALID)
    assert me(http, first.json()["access_token"]).status_code == 401


def test_expired_code(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential)
    http.post("/_roost/clock", json={"advance_seconds": 31})
    response = exchange(http, confidential, code, verifier)
    assert (response.status_code, response.json()) == (400, CODE_INVALID)


def test_mismatched_redirect_uri(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential)
    response = exchange(http, confidential, code, verifier, redirect_uri="http://127.0.0.1:9/other")
    assert (response.status_code, response.json()) == (400, CODE_INVALID)


def test_code_of_another_client(
    http: httpx.Client, confidential: dict[str, Any], public: dict[str, Any]
) -> None:
    code, verifier = get_code(http, confidential)
    response = exchange(http, public, code, verifier, auth=None)
    assert (response.status_code, response.json()) == (400, CODE_INVALID)


def test_bad_client_secret(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential)
    response = exchange(http, confidential, code, verifier, auth=(confidential["client_id"], "wrong"))
    assert (response.status_code, response.json()) == (401, MISSING_AUTH)
    # The code is still good: a refused client did not consume it.
    assert exchange(http, confidential, code, verifier).status_code == 200


def test_confidential_exchange_without_basic(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential)
    response = exchange(http, confidential, code, verifier, auth=None)
    assert (response.status_code, response.json()) == (401, MISSING_AUTH)


def test_confidential_refresh_without_basic(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential)
    body = exchange(http, confidential, code, verifier).json()
    response = refresh(http, confidential, body["refresh_token"], auth=None)
    assert (response.status_code, response.json()) == (401, MISSING_AUTH)


def test_unsupported_grant(http: httpx.Client, confidential: dict[str, Any]) -> None:
    response = http.post(
        "/2/oauth2/token",
        data={"grant_type": "password"},
        auth=(confidential["client_id"], confidential["client_secret"]),
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": "unsupported_grant_type",
        "error_description": "Value passed for the grant type was invalid.",
    }


def test_reused_refresh_token_revokes_family(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential)
    first = exchange(http, confidential, code, verifier).json()
    second = refresh(http, confidential, first["refresh_token"]).json()
    reuse = refresh(http, confidential, first["refresh_token"])
    assert (reuse.status_code, reuse.json()) == (400, TOKEN_INVALID)
    # The whole family is gone: the current pair too.
    assert me(http, second["access_token"]).status_code == 401
    assert refresh(http, confidential, second["refresh_token"]).json() == TOKEN_INVALID


# ---- scopes and lifetimes ------------------------------------------------------------------------


def test_token_without_tweet_write_cannot_post(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential, scope=READ)
    token = exchange(http, confidential, code, verifier).json()["access_token"]
    response = http.post("/2/tweets", json={"text": "hello"}, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 403
    assert response.json() == {
        "title": "Forbidden",
        "type": "about:blank",
        "status": 403,
        "detail": "Forbidden",
    }
    assert response.headers["content-type"].startswith("application/problem+json")


def test_token_with_tweet_write_posts(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential, scope="tweet.read tweet.write users.read")
    token = exchange(http, confidential, code, verifier).json()["access_token"]
    text = f"from oauth2 {uuid.uuid4().hex}"
    response = http.post("/2/tweets", json={"text": text}, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 201, response.text


def test_access_token_expires_after_7200_seconds(http: httpx.Client, confidential: dict[str, Any]) -> None:
    code, verifier = get_code(http, confidential)
    body = exchange(http, confidential, code, verifier).json()
    http.post("/_roost/clock", json={"advance_seconds": 7190})
    assert me(http, body["access_token"]).status_code == 200
    http.post("/_roost/clock", json={"advance_seconds": 11})
    assert me(http, body["access_token"]).status_code == 401
    # The refresh token outlives it and yields a working pair.
    renewed = refresh(http, confidential, body["refresh_token"])
    assert renewed.status_code == 200 and me(http, renewed.json()["access_token"]).status_code == 200


# ---- the HTML page, driven by plain HTTP ---------------------------------------------------------


def test_sign_in_and_approve_through_the_page(live: LiveServer, confidential: dict[str, Any]) -> None:
    verifier = secrets.token_urlsafe(64)
    params = authorize_params(confidential, "tweet.read users.read like.read", verifier)
    with httpx.Client(base_url=live.base_url, timeout=30) as browser:
        page = browser.get("/i/oauth2/authorize", params=params)
        assert page.status_code == 200
        assert confidential["name"] in page.text and 'data-scope="like.read"' in page.text
        assert 'name="password"' in page.text
        form = {**params, "action": "sign_in", "username": "roost_dev", "password": "wrong"}
        assert "did not match" in browser.post("/i/oauth2/authorize", data=form).text
        signed = browser.post("/i/oauth2/authorize", data={**form, "password": "roost"})
        assert signed.status_code == 303 and "roost_session" in signed.cookies
        again = browser.get(signed.headers["location"])
        assert again.status_code == 200 and 'value="authorize"' in again.text and "@roost_dev" in again.text
        query = redirected(browser.post("/i/oauth2/authorize", data={**params, "action": "authorize"}))
        assert query["state"] == params["state"]
    response = exchange(httpx.Client(base_url=live.base_url), confidential, query["code"], verifier)
    assert response.status_code == 200 and response.json()["scope"] == "tweet.read users.read like.read"


def test_cancel_on_the_page(http: httpx.Client, confidential: dict[str, Any]) -> None:
    params = authorize_params(confidential, READ, "v" * 50)
    query = redirected(http.post("/i/oauth2/authorize", data={**params, "action": "cancel"}))
    assert query == {"error": "access_denied", "state": params["state"]}
