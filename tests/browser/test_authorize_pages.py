"""The OAuth 1.0a and OAuth 2.0 authorize pages driven by a real headless Chromium (Debian's package)
through Playwright: sign in, approve or cancel, follow the redirect back to the app's callback, then
finish the flow over plain HTTP. Full-page screenshots of each page are kept under tests/artifacts/.

`scripts/test` installs Chromium when it can; without it (or without Playwright, or when the browser
will not start) every test here is skipped with the reason shown in pytest's summary.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

import httpx
import pytest
from tests.support.server import LiveServer

from roost.auth.oauth1 import sign_request

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright, Route

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is absent (scripts/test installs Debian's chromium when run as root with apt)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e .[dev])"
)

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Nothing listens here: the browser's requests to it are answered by `page.route`.
CALLBACK_ORIGIN = "http://127.0.0.1:9"
CALLBACK = CALLBACK_ORIGIN + "/cb"
USERNAME = "roost_dev"
PASSWORD = "roost"
SCOPES = "tweet.read users.read offline.access"
WAIT_MS = 10_000


# ---- browser ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    playwright: Playwright = sync_api.sync_playwright().start()
    try:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=30_000
        )
    except Exception as exc:  # any launch failure means "no usable browser here", not a test failure
        playwright.stop()
        pytest.skip(f"headless Chromium failed to launch: {exc}".splitlines()[0], allow_module_level=True)
    yield launched
    launched.close()
    playwright.stop()


@dataclass
class Callback:
    """The requests the browser made to the app's callback URL (intercepted, never sent)."""

    urls: list[str] = field(default_factory=list)

    def handle(self, route: Route) -> None:
        self.urls.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<h1>callback reached</h1>")

    def query(self) -> dict[str, str]:
        assert self.urls, "the browser was not redirected to the callback"
        assert self.urls[-1].startswith(CALLBACK + "?"), self.urls[-1]
        return {key: values[0] for key, values in parse_qs(urlsplit(self.urls[-1]).query).items()}


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    """A fresh browser context (no cookies) per test."""
    context = browser.new_context(viewport={"width": 800, "height": 900})
    context.set_default_timeout(WAIT_MS)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture()
def callback(page: Page) -> Callback:
    received = Callback()
    page.route(CALLBACK_ORIGIN + "/**", received.handle)
    return received


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    data = path.read_bytes()
    assert len(data) > 1000 and data.startswith(PNG_MAGIC), f"{path} is not a PNG screenshot"
    return path


def arrived(page: Page, callback: Callback) -> dict[str, str]:
    page.wait_for_url(CALLBACK + "?**")
    assert "callback reached" in page.inner_text("h1")
    return callback.query()


# ---- the server side of the flows ---------------------------------------------------------------


@pytest.fixture()
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        yield client


@pytest.fixture()
def app(http: httpx.Client) -> dict[str, Any]:
    """A fresh app whose only callback URL is CALLBACK."""
    body = {"name": f"Browser app {uuid.uuid4().hex[:8]}", "callback_urls": [CALLBACK]}
    response = http.post("/_roost/apps", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def signed_post(
    http: httpx.Client,
    app: dict[str, Any],
    path: str,
    token: str | None = None,
    secret: str = "",
    **oauth: str,
) -> httpx.Response:
    header = sign_request(
        "POST",
        str(http.base_url).rstrip("/") + path,
        app["consumer_key"],
        app["consumer_secret"],
        token=token,
        token_secret=secret,
        **oauth,
    )
    return http.post(path, headers={"Authorization": header})


def request_token(http: httpx.Client, app: dict[str, Any]) -> dict[str, str]:
    response = signed_post(http, app, "/oauth/request_token", callback=CALLBACK)
    assert response.status_code == 200, response.text
    return dict(parse_qsl(response.text))


def access_token(http: httpx.Client, app: dict[str, Any], request: dict[str, str], verifier: str) -> str:
    """Exchange the verifier, then prove the token works: the username /2/users/me answers."""
    token = request["oauth_token"]
    response = signed_post(
        http, app, "/oauth/access_token", token, request["oauth_token_secret"], verifier=verifier
    )
    assert response.status_code == 200, response.text
    issued = dict(parse_qsl(response.text))
    assert issued["screen_name"] == USERNAME
    header = sign_request(
        "GET",
        str(http.base_url).rstrip("/") + "/2/users/me",
        app["consumer_key"],
        app["consumer_secret"],
        token=issued["oauth_token"],
        token_secret=issued["oauth_token_secret"],
    )
    me = http.get("/2/users/me", headers={"Authorization": header})
    assert me.status_code == 200, me.text
    return str(me.json()["data"]["username"])


@dataclass
class Pkce:
    url: str
    state: str
    verifier: str


def oauth2_start(server: LiveServer, app: dict[str, Any]) -> Pkce:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    state = "st-" + uuid.uuid4().hex
    params = {
        "response_type": "code",
        "client_id": app["client_id"],
        "redirect_uri": CALLBACK,
        "scope": SCOPES,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    return Pkce(f"{server.base_url}/i/oauth2/authorize?{urlencode(params)}", state, verifier)


# ---- OAuth 1.0a ---------------------------------------------------------------------------------


def test_oauth1_sign_in_and_authorize(
    server: LiveServer, http: httpx.Client, app: dict[str, Any], page: Page, callback: Callback
) -> None:
    request = request_token(http, app)
    page.goto(f"{server.base_url}/oauth/authorize?oauth_token={request['oauth_token']}")
    assert app["name"] in page.inner_text("h1")
    page.fill("#username", USERNAME)
    page.fill("#password", PASSWORD)
    screenshot(page, "oauth1-sign-in")
    page.click("#allow")
    query = arrived(page, callback)
    assert query["oauth_token"] == request["oauth_token"]
    assert query["oauth_verifier"]
    assert access_token(http, app, request, query["oauth_verifier"]) == USERNAME

    # Signed in now (session cookie): the next request shows the approval page without the form.
    second = request_token(http, app)
    page.goto(f"{server.base_url}/oauth/authorize?oauth_token={second['oauth_token']}")
    assert page.locator("#password").count() == 0
    assert f"Signed in as @{USERNAME}" in page.inner_text("form")
    assert page.inner_text("#allow") == "Authorize app"
    screenshot(page, "oauth1-approval")
    page.click("#allow")
    query = arrived(page, callback)
    assert query["oauth_token"] == second["oauth_token"]
    assert access_token(http, app, second, query["oauth_verifier"]) == USERNAME


def test_oauth1_wrong_password_shows_an_error(
    server: LiveServer, http: httpx.Client, app: dict[str, Any], page: Page, callback: Callback
) -> None:
    request = request_token(http, app)
    page.goto(f"{server.base_url}/oauth/authorize?oauth_token={request['oauth_token']}")
    page.fill("#username", USERNAME)
    page.fill("#password", "not-the-password")
    with page.expect_navigation() as navigation:
        page.click("#allow")
    response = navigation.value
    assert response is not None and response.status == 401
    assert "did not match our records" in page.inner_text(".error")
    assert page.input_value("#username") == USERNAME
    assert page.input_value("#password") == ""
    screenshot(page, "oauth1-wrong-password")
    assert callback.urls == []


def test_oauth1_cancel_redirects_with_the_denial(
    server: LiveServer, http: httpx.Client, app: dict[str, Any], page: Page, callback: Callback
) -> None:
    request = request_token(http, app)
    page.goto(f"{server.base_url}/oauth/authorize?oauth_token={request['oauth_token']}")
    page.click("#cancel")
    query = arrived(page, callback)
    assert query == {"denied": request["oauth_token"]}
    refused = signed_post(
        http, app, "/oauth/access_token", request["oauth_token"], request["oauth_token_secret"], verifier="x"
    )
    assert refused.status_code == 401


# ---- OAuth 2.0 with PKCE ------------------------------------------------------------------------


def test_oauth2_sign_in_and_authorize(
    server: LiveServer, http: httpx.Client, app: dict[str, Any], page: Page, callback: Callback
) -> None:
    start = oauth2_start(server, app)
    page.goto(start.url)
    assert app["name"] in page.inner_text("h1")
    scopes = page.locator("#scopes li").all_inner_texts()
    assert scopes == SCOPES.split()
    page.fill("#username", USERNAME)
    page.fill("#password", PASSWORD)
    screenshot(page, "oauth2-sign-in")
    page.click("#sign-in")
    page.wait_for_selector("#authorize")
    assert f"Signed in as @{USERNAME}" in page.inner_text("main")
    screenshot(page, "oauth2-approval")
    page.click("#authorize")
    query = arrived(page, callback)
    assert query["state"] == start.state
    assert query["code"]

    form = {
        "grant_type": "authorization_code",
        "code": query["code"],
        "redirect_uri": CALLBACK,
        "code_verifier": start.verifier,
        "client_id": app["client_id"],
    }
    token = http.post("/2/oauth2/token", data=form, auth=(app["client_id"], app["client_secret"]))
    assert token.status_code == 200, token.text
    assert token.json()["token_type"] == "bearer"
    me = http.get("/2/users/me", headers={"Authorization": f"Bearer {token.json()['access_token']}"})
    assert me.status_code == 200, me.text
    assert me.json()["data"]["username"] == USERNAME


def test_oauth2_wrong_password_shows_an_error(
    server: LiveServer, app: dict[str, Any], page: Page, callback: Callback
) -> None:
    page.goto(oauth2_start(server, app).url)
    page.fill("#username", USERNAME)
    page.fill("#password", "not-the-password")
    page.click("#sign-in")
    page.wait_for_selector(".error")
    assert "did not match our records" in page.inner_text(".error")
    assert page.locator("#authorize").count() == 0
    screenshot(page, "oauth2-wrong-password")
    assert callback.urls == []


def test_oauth2_cancel_redirects_with_the_denial(
    server: LiveServer, app: dict[str, Any], page: Page, callback: Callback
) -> None:
    start = oauth2_start(server, app)
    page.goto(start.url)
    page.fill("#username", USERNAME)
    page.fill("#password", PASSWORD)
    page.click("#sign-in")
    page.click("#cancel")
    query = arrived(page, callback)
    assert query == {"error": "access_denied", "state": start.state}
