"""OAuth 1.0a three-legged flow and app-only bearer tokens over plain HTTP, with the platform's bodies."""

from __future__ import annotations

import base64
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlsplit

import httpx
import pytest
from tests.api.helpers import server_clock_ms
from tests.support.server import LiveServer

from roost.auth.oauth1 import sign_request

CALLBACK = "http://127.0.0.1:9/cb?keep=1"
CALLBACK_XML = (
    '<?xml version="1.0" encoding="UTF-8"?><errors><error code="415">Callback URL not approved for this '
    "client application. Approved callback URLs can be adjusted in your application settings</error></errors>"
)
CODE_99 = {
    "errors": [
        {"code": 99, "label": "authenticity_token_error", "message": "Unable to verify your credentials"}
    ]
}


def coded(code: int, message: str) -> dict[str, Any]:
    return {"errors": [{"code": code, "message": message}]}


@dataclass
class App:
    http: httpx.Client
    base: str
    key: str
    secret: str
    bearer: str
    owner_id: str
    owner_name: str
    owner_token: str
    owner_secret: str

    def signed(
        self,
        method: str,
        path: str,
        token: str | None = None,
        token_secret: str = "",
        form: list[tuple[str, str]] | None = None,
        consumer_secret: str | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        header = sign_request(
            method,
            self.base + path,
            self.key,
            consumer_secret or self.secret,
            token=token,
            token_secret=token_secret,
            extra_params=form,
            **kwargs,
        )
        return self.http.request(method, path, headers={"Authorization": header}, data=dict(form or []))

    def request_token(self, callback: str = CALLBACK, query: str = "") -> dict[str, str]:
        response = self.signed("POST", "/oauth/request_token" + query, callback=callback)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/html")
        return dict(parse_qsl(response.text))

    def approve(self, token: str, who: str | None = None, path: str = "/oauth/authorize") -> httpx.Response:
        return self.http.get(
            path, params={"oauth_token": token}, headers={"X-Roost-Approve": who or self.owner_name}
        )

    def access_token(self, request: dict[str, str], verifier: str | None) -> httpx.Response:
        return self.signed(
            "POST",
            "/oauth/access_token",
            token=request["oauth_token"],
            token_secret=request["oauth_token_secret"],
            verifier=verifier,
        )

    def full_flow(self, query: str = "") -> dict[str, str]:
        request = self.request_token(query=query)
        location = self.approve(request["oauth_token"]).headers["location"]
        verifier = parse_qs(urlsplit(location).query)["oauth_verifier"][0]
        response = self.access_token(request, verifier)
        assert response.status_code == 200, response.text
        return dict(parse_qsl(response.text))

    def me(self, token: str, secret: str) -> httpx.Response:
        return self.signed("GET", "/2/users/me", token=token, token_secret=secret)


@pytest.fixture()
def app(server: LiveServer) -> Iterator[App]:
    """A fresh app (own throttle counters) owned by a fresh user who can sign in."""
    http = httpx.Client(base_url=server.base_url, timeout=30)
    name = f"o_{uuid.uuid4().hex[:10]}"
    owner = http.post("/_roost/users", json={"username": name, "password": "pw-" + name}).json()
    created = http.post(
        "/_roost/apps",
        json={
            "name": f"App {name}",
            "owner_user_id": owner["id"],
            "callback_urls": [CALLBACK, "http://example.com/cb", "oob"],
        },
    ).json()
    token = http.post(
        "/_roost/tokens", json={"consumer_key": created["consumer_key"], "user_id": owner["id"]}
    )
    yield App(
        http,
        server.base_url,
        created["consumer_key"],
        created["consumer_secret"],
        created["bearer_token"],
        owner["id"],
        name,
        token.json()["access_token"],
        token.json()["access_token_secret"],
    )
    http.close()


# ---- three-legged flow ------------------------------------------------------------------------


def test_full_flow_gives_a_working_user_token(app: App) -> None:
    request = app.request_token()
    assert set(request) == {"oauth_token", "oauth_token_secret", "oauth_callback_confirmed"}
    assert request["oauth_callback_confirmed"] == "true"
    redirect = app.approve(request["oauth_token"])
    assert redirect.status_code == 302
    location = urlsplit(redirect.headers["location"])
    query = parse_qs(location.query)
    assert location.path == "/cb" and query["keep"] == ["1"]  # the callback's own query is kept
    assert query["oauth_token"] == [request["oauth_token"]]
    response = app.access_token(request, query["oauth_verifier"][0])
    assert response.status_code == 200, response.text
    granted = dict(parse_qsl(response.text))
    assert list(granted) == ["oauth_token", "oauth_token_secret", "user_id", "screen_name"]
    assert granted["oauth_token"].startswith(app.owner_id + "-")
    assert granted["user_id"] == app.owner_id and granted["screen_name"] == app.owner_name
    me = app.me(granted["oauth_token"], granted["oauth_token_secret"])
    assert me.status_code == 200 and me.json()["data"]["id"] == app.owner_id
    assert me.headers["x-access-level"] == "read-write-directmessages"
    assert "x-rate-limit-limit" in redirect.headers


def test_read_access_type_lowers_the_level(app: App) -> None:
    granted = app.full_flow(query="?x_auth_access_type=read")
    me = app.me(granted["oauth_token"], granted["oauth_token_secret"])
    assert me.headers["x-access-level"] == "read"
    post = app.http.post(
        "/2/tweets",
        json={"text": "no write"},
        headers={
            "Authorization": sign_request(
                "POST",
                app.base + "/2/tweets",
                app.key,
                app.secret,
                granted["oauth_token"],
                granted["oauth_token_secret"],
            )
        },
    )
    assert post.status_code == 403 and post.json()["type"].endswith("/oauth1-permissions")


def test_write_access_type_and_the_brand_alias(app: App) -> None:
    granted = app.full_flow(query="?service_auth_access_type=write")
    me = app.me(granted["oauth_token"], granted["oauth_token_secret"])
    assert me.headers["x-access-level"] == "read-write"


def test_wrong_consumer_secret_and_tampered_signature(app: App) -> None:
    wrong = app.signed("POST", "/oauth/request_token", callback=CALLBACK, consumer_secret="nope")
    assert wrong.status_code == 401 and wrong.json() == coded(32, "Could not authenticate you.")
    header = sign_request("POST", app.base + "/oauth/request_token", app.key, app.secret, callback=CALLBACK)
    tampered = header.replace('oauth_signature="', 'oauth_signature="x')
    bad = app.http.post("/oauth/request_token", headers={"Authorization": tampered})
    assert bad.status_code == 401 and bad.json() == coded(32, "Could not authenticate you.")
    unsigned = app.http.post("/oauth/request_token")
    assert unsigned.status_code == 400 and unsigned.json() == coded(215, "Bad Authentication data.")


def test_stale_timestamp_and_replayed_nonce(app: App) -> None:
    stale = app.signed("POST", "/oauth/request_token", callback=CALLBACK, timestamp=int(time.time()) - 3600)
    assert stale.status_code == 401 and stale.json() == coded(135, "Timestamp out of bounds.")
    header = sign_request(
        "POST",
        app.base + "/oauth/request_token",
        app.key,
        app.secret,
        callback=CALLBACK,
        nonce="n" + uuid.uuid4().hex,
    )
    first = app.http.post("/oauth/request_token", headers={"Authorization": header})
    assert first.status_code == 200
    again = app.http.post("/oauth/request_token", headers={"Authorization": header})
    assert again.status_code == 401 and again.json() == coded(32, "Could not authenticate you.")


def test_callback_rules(app: App) -> None:
    unknown = app.signed("POST", "/oauth/request_token", callback="https://evil.example/cb")
    assert unknown.status_code == 403 and unknown.text == CALLBACK_XML
    assert unknown.headers["content-type"].startswith("application/xml")
    # Registered plain http to a public host is used as registered (the platform's own examples do).
    plain = app.signed("POST", "/oauth/request_token", callback="http://example.com/cb")
    assert plain.status_code == 200 and "oauth_callback_confirmed=true" in plain.text
    missing = app.signed("POST", "/oauth/request_token")
    assert missing.status_code == 400 and missing.json() == coded(215, "Bad Authentication data.")


def test_verifier_missing_wrong_and_token_single_use(app: App) -> None:
    request = app.request_token()
    location = app.approve(request["oauth_token"]).headers["location"]
    verifier = parse_qs(urlsplit(location).query)["oauth_verifier"][0]
    missing = app.access_token(request, None)
    assert missing.status_code == 401
    assert (
        missing.text == "Error processing your OAuth request: Required oauth_verifier parameter not provided"
    )
    wrong = app.access_token(request, "not-the-verifier")
    assert wrong.status_code == 401
    assert wrong.text == "Error processing your OAuth request: Invalid oauth_verifier parameter"
    # The verifier may also travel in the form body.
    body = app.signed(
        "POST",
        "/oauth/access_token",
        token=request["oauth_token"],
        token_secret=request["oauth_token_secret"],
        form=[("oauth_verifier", verifier)],
    )
    assert body.status_code == 200, body.text
    reused = app.access_token(request, verifier)
    assert reused.status_code == 401 and reused.json() == coded(89, "Invalid or expired token.")


def test_unapproved_request_token_has_no_valid_verifier(app: App) -> None:
    request = app.request_token()
    response = app.access_token(request, "1234567")
    assert response.status_code == 401
    assert response.text == "Error processing your OAuth request: Invalid oauth_verifier parameter"


def test_denial_redirects_with_denied(app: App) -> None:
    request = app.request_token()
    redirect = app.approve(request["oauth_token"], "deny:" + app.owner_name)
    assert redirect.status_code == 302
    query = parse_qs(urlsplit(redirect.headers["location"]).query)
    assert query == {"keep": ["1"], "denied": [request["oauth_token"]]}
    after = app.access_token(request, "x")
    assert after.status_code == 401 and after.json() == coded(89, "Invalid or expired token.")


def test_oob_shows_a_pin(app: App) -> None:
    request = app.request_token(callback="oob")
    page = app.approve(request["oauth_token"])
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    pin = re.search(r'id="pin"><code>(\d{7})</code>', page.text)
    assert pin is not None, page.text
    granted = app.access_token(request, pin.group(1))
    assert granted.status_code == 200 and "screen_name=" in granted.text


@pytest.mark.parametrize("path", ["/1.1/oauth/invalidate_token", "/1.1/oauth/invalidate_token.json"])
def test_invalidate_token_then_401_code_89(app: App, path: str) -> None:
    granted = app.full_flow()
    token, secret = granted["oauth_token"], granted["oauth_token_secret"]
    response = app.signed("POST", path, token=token, token_secret=secret)
    assert response.status_code == 200 and response.json() == {"access_token": token}
    me = app.me(token, secret)
    assert me.status_code == 401 and me.json() == coded(89, "Invalid or expired token.")
    again = app.signed("POST", "/1.1/oauth/invalidate_token", token=token, token_secret=secret)
    assert again.status_code == 401 and again.json() == coded(89, "Invalid or expired token.")


# ---- the HTML pages -------------------------------------------------------------------------


def test_html_sign_in_authenticate_skip_force_login_and_prefill(app: App) -> None:
    request = app.request_token()
    page = app.http.get(
        "/oauth/authorize", params={"oauth_token": request["oauth_token"], "screen_name": "@someone"}
    )
    assert page.status_code == 200
    assert f"App {app.owner_name}" in page.text and "Read and write and Direct Messages" in page.text
    assert 'name="username" value="someone"' in page.text and 'name="password"' in page.text
    bad = app.http.post(
        "/oauth/authorize",
        data={"oauth_token": request["oauth_token"], "username": app.owner_name, "password": "wrong"},
    )
    assert bad.status_code == 401 and "did not match" in bad.text
    signed_in = app.http.post(
        "/oauth/authorize",
        data={
            "oauth_token": request["oauth_token"],
            "username": app.owner_name,
            "password": "pw-" + app.owner_name,
        },
    )
    assert signed_in.status_code == 302 and "oauth_verifier=" in signed_in.headers["location"]
    assert "roost_session" in app.http.cookies  # the client keeps the session cookie from here on

    # authenticate: already approved and signed in → straight back to the callback.
    second = app.request_token()
    skip = app.http.get("/oauth/authenticate", params={"oauth_token": second["oauth_token"]})
    assert skip.status_code == 302 and "oauth_verifier=" in skip.headers["location"]

    # authorize always asks, showing who is signed in; approving needs no password then.
    third = app.request_token()
    ask = app.http.get("/oauth/authorize", params={"oauth_token": third["oauth_token"]})
    assert ask.status_code == 200 and f"@{app.owner_name}" in ask.text and 'name="password"' not in ask.text
    approve = app.http.post("/oauth/authorize", data={"oauth_token": third["oauth_token"], "authorize": "1"})
    assert approve.status_code == 302

    # force_login asks for credentials even with a session.
    fourth = app.request_token()
    forced = app.http.get(
        "/oauth/authenticate", params={"oauth_token": fourth["oauth_token"], "force_login": "true"}
    )
    assert forced.status_code == 200 and 'name="password"' in forced.text
    cancel = app.http.post("/oauth/authenticate", data={"oauth_token": fourth["oauth_token"], "cancel": "1"})
    assert cancel.status_code == 302 and "denied=" + fourth["oauth_token"] in cancel.headers["location"]


def test_unknown_request_token_page(app: App) -> None:
    page = app.http.get("/oauth/authorize", params={"oauth_token": "nope"})
    assert page.status_code == 403 and "invalid" in page.text


# ---- app-only bearer ------------------------------------------------------------------------


def basic(key: str, secret: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{key}:{secret}".encode()).decode()}


def test_bearer_token_same_until_invalidated(app: App) -> None:
    form = {"grant_type": "client_credentials"}
    first = app.http.post("/oauth2/token", data=form, headers=basic(app.key, app.secret))
    assert first.status_code == 200, first.text
    assert first.json() == {"token_type": "bearer", "access_token": app.bearer}
    assert (
        app.http.post("/oauth2/token", data=form, headers=basic(app.key, app.secret)).json() == first.json()
    )
    owner = f"/2/users/{app.owner_id}"
    assert app.http.get(owner, headers={"Authorization": f"Bearer {app.bearer}"}).status_code == 200

    # Signed by someone other than the owner: refused.
    stranger = app.http.post("/_roost/users", json={"username": f"s_{uuid.uuid4().hex[:10]}"}).json()
    other = app.http.post("/_roost/tokens", json={"consumer_key": app.key, "user_id": stranger["id"]}).json()
    query = "?" + str(httpx.QueryParams({"access_token": app.bearer}))
    refused = app.signed(
        "POST", "/oauth2/invalidate_token" + query, other["access_token"], other["access_token_secret"]
    )
    assert refused.status_code == 403 and refused.json() == CODE_99

    done = app.signed("POST", "/oauth2/invalidate_token" + query, app.owner_token, app.owner_secret)
    assert done.status_code == 200 and done.json() == {"access_token": app.bearer}
    old = app.http.get(owner, headers={"Authorization": f"Bearer {app.bearer}"})
    assert old.status_code == 401
    fresh = app.http.post("/oauth2/token", data=form, headers=basic(app.key, app.secret)).json()
    assert fresh["access_token"] != app.bearer and fresh["access_token"].startswith("AAAA")
    assert (
        app.http.get(owner, headers={"Authorization": f"Bearer {fresh['access_token']}"}).status_code == 200
    )


def test_bearer_token_refusals_are_code_99(app: App) -> None:
    wrong = app.http.post(
        "/oauth2/token", data={"grant_type": "client_credentials"}, headers=basic(app.key, "x")
    )
    assert wrong.status_code == 403 and wrong.json() == CODE_99
    no_grant = app.http.post("/oauth2/token", data={}, headers=basic(app.key, app.secret))
    assert no_grant.status_code == 403 and no_grant.json() == CODE_99
    other_grant = app.http.post(
        "/oauth2/token", data={"grant_type": "password"}, headers=basic(app.key, app.secret)
    )
    assert other_grant.status_code == 403 and other_grant.json() == CODE_99
    as_json = app.http.post(
        "/oauth2/token", json={"grant_type": "client_credentials"}, headers=basic(app.key, app.secret)
    )
    assert as_json.status_code == 403 and as_json.json() == CODE_99
    nothing = app.http.post("/oauth2/token", data={"grant_type": "client_credentials"})
    assert nothing.status_code == 403 and nothing.json() == CODE_99


@pytest.mark.one_process  # three requests at the throttle's edge: processes merge counts each 0.1 s
def test_too_frequent_bearer_requests(server: LiveServer, app: App) -> None:
    extra = server.settings.extra
    extra["bearer_token_max_requests"] = "2"
    try:
        form = {"grant_type": "client_credentials"}
        codes = [
            app.http.post("/oauth2/token", data=form, headers=basic(app.key, app.secret)).status_code
            for _ in range(3)
        ]
        assert codes == [200, 200, 403]
        last = app.http.post("/oauth2/token", data=form, headers=basic(app.key, app.secret))
        assert last.json() == CODE_99
    finally:
        del extra["bearer_token_max_requests"]


# ---- regeneration and rate limits -----------------------------------------------------------


def test_regenerating_app_keys_and_user_tokens(app: App) -> None:
    keys = app.http.post("/_roost/apps/regenerate", json={"consumer_key": app.key})
    assert keys.status_code == 200, keys.text
    new = keys.json()
    assert new["consumer_key"] != app.key and new["bearer_token"] != app.bearer
    old = app.signed("POST", "/oauth/request_token", callback=CALLBACK)
    assert old.status_code == 401 and old.json() == coded(32, "Could not authenticate you.")
    assert app.http.get("/2/users/me", headers={"Authorization": f"Bearer {app.bearer}"}).status_code == 401
    app.key, app.secret = new["consumer_key"], new["consumer_secret"]
    assert app.signed("POST", "/oauth/request_token", callback=CALLBACK).status_code == 200

    granted = app.full_flow()
    rotated = app.http.post("/_roost/tokens/regenerate", json={"access_token": granted["oauth_token"]})
    assert rotated.status_code == 200, rotated.text
    pair = rotated.json()
    assert pair["access_token"].startswith(app.owner_id + "-")
    stale = app.me(granted["oauth_token"], granted["oauth_token_secret"])
    assert stale.status_code == 401 and stale.json() == coded(89, "Invalid or expired token.")
    assert app.me(pair["access_token"], pair["access_token_secret"]).status_code == 200


def test_oauth_endpoints_are_rate_limited() -> None:
    live = LiveServer(tag="oauthrl", demo=False, limits={"oauth2BearerToken": {"app": 2}}).start()
    try:
        with httpx.Client(base_url=live.base_url, timeout=30) as http:
            before = server_clock_ms(http) // 1000
            replies = [
                http.post("/oauth2/token", data={"grant_type": "client_credentials"}) for _ in range(3)
            ]
            after = server_clock_ms(http) // 1000
            assert [r.status_code for r in replies] == [403, 403, 429]
            assert replies[2].json() == coded(88, "Rate limit exceeded")
            assert replies[2].headers["x-rate-limit-limit"] == "2"
            assert replies[2].headers["x-rate-limit-remaining"] == "0"
            # The first request opened the 15-minute window.
            assert before + 900 <= int(replies[2].headers["x-rate-limit-reset"]) <= after + 900
    finally:
        live.stop()
