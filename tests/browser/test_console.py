"""The console (`/_roost/console`) in a real headless Chromium (Debian's package) through Playwright:
every page renders with the demo data; an app made with the console's form works with the API; a
refused request shows in the request log with its reason; the Retry button sends a delivery to a
webhook receiver again; a fault rule added on the page makes the API answer it.

Each test writes screenshots into $ROOST_SCREENSHOTS (default: pytest's temporary directory);
`ROOST_SCREENSHOTS=docs/images` refreshes the README's pictures. Skipped, with the reason shown, when
Chromium or Playwright is missing or the browser will not start.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from tests.support.counting_receiver import CountingReceiver
from tests.support.server import LiveServer

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

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
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WAIT_MS = 10_000
CONSOLE = "/_roost/console"


# ---- the server, the browser, screenshots ---------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    """A server of this module's own: the tests add webhooks and fault rules."""
    live = LiveServer(tag="console", rate_limits=False).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def credentials(http: httpx.Client) -> dict[str, Any]:
    creds: dict[str, Any] = http.get("/_roost/credentials").json()
    return creds


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


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    """A fresh browser context at a laptop's size."""
    context = browser.new_context(viewport={"width": 1366, "height": 800})
    context.set_default_timeout(WAIT_MS)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    named = os.environ.get("ROOST_SCREENSHOTS")
    directory = Path(named) if named else tmp_path_factory.mktemp("console-screenshots")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def screenshot(page: Page, shots: Path, name: str) -> None:
    path = shots / f"console-{name}.png"
    page.screenshot(path=str(path), full_page=False)
    data = path.read_bytes()
    assert len(data) > 1000 and data.startswith(PNG_MAGIC), f"{path} is not a PNG screenshot"


def wait_for(check: Callable[[], Any], timeout: float = 15.0) -> Any:
    """`check()` once it is truthy, or its last (falsy) value after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


# ---- every page ------------------------------------------------------------------------------------


def test_every_page_renders_with_the_demo_data(
    server: LiveServer, page: Page, shots: Path, credentials: dict[str, Any]
) -> None:
    page.goto(server.base_url + CONSOLE)
    assert page.inner_text("h1") == "Start"
    assert page.get_attribute("#cred-consumer_key .value", "data-value") == credentials["consumer_key"]
    page.click("#cred-bearer_token .reveal")
    assert page.inner_text("#cred-bearer_token .value") == credentials["bearer_token"]
    assert server.base_url in page.inner_text("#snippet-curl")
    assert credentials["bearer_token"] in page.inner_text("#snippet-curl")
    screenshot(page, shots, "start")

    page.click("nav >> text=Apps, users, tokens")
    assert page.locator("#apps tbody tr").count() >= 1
    assert page.locator("#users tbody tr").count() >= 1
    screenshot(page, shots, "apps")

    page.click("nav >> text=Data")
    assert page.locator("#objects .object").count() >= 1
    assert '"text"' in page.inner_text("#objects .object pre")
    page.click("#objects .object >> text=/^author /")
    assert page.inner_text("h1").startswith("User @")
    screenshot(page, shots, "data")

    page.click("nav >> text=Streams")
    assert page.locator("section[data-app]").count() >= 1
    page.click("#live-toggle")  # follows the event log; a write shows up in the view
    httpx.post(
        server.base_url + "/2/tweets",
        json={"text": f"live {uuid.uuid4().hex[:6]}"},
        headers={"Authorization": f"Bearer {credentials['oauth2_user_token']}"},
        timeout=30,
    )
    page.wait_for_selector("#live .line >> text=post.create")
    screenshot(page, shots, "streams")
    page.click("#live-toggle")

    page.click("nav >> text=Limits and cost")
    page.wait_for_function("!document.querySelector('#limits').innerText.includes('Loading')")
    page.wait_for_function("!document.querySelector('#usage').innerText.includes('Loading')")
    screenshot(page, shots, "limits")

    page.click("nav >> text=Clock and faults")
    page.wait_for_function("!document.querySelector('#faults').innerText.includes('Loading')")
    before = page.inner_text("#clock-now")
    page.fill("#advance-seconds", "3600")
    page.click("#advance button[type=submit]")
    page.wait_for_function(f"document.querySelector('#clock-now').innerText !== {before!r}")
    assert page.inner_text("#clock-now") > before


# ---- apps ------------------------------------------------------------------------------------------


def test_an_app_created_in_the_console_works_with_the_api(
    server: LiveServer, http: httpx.Client, page: Page, shots: Path
) -> None:
    name = f"Console app {uuid.uuid4().hex[:6]}"
    page.goto(server.base_url + CONSOLE + "/apps")
    page.fill("#app-name", name)
    page.select_option("#app-permission", "read")
    page.fill("#app-callbacks", "http://127.0.0.1:9/cb")
    page.click("#create-app-submit")
    page.wait_for_selector("#made-app")
    assert name in page.inner_text("#made-app h2")
    bearer = page.inner_text("#new-bearer_token")
    consumer_key = page.inner_text("#new-consumer_key")
    consumer_secret = page.inner_text("#new-consumer_secret")
    assert name in page.inner_text("#apps")
    screenshot(page, shots, "app-created")

    found = http.get(
        "/2/tweets/search/recent", params={"query": "hello"}, headers={"Authorization": f"Bearer {bearer}"}
    )
    assert found.status_code == 200, found.text
    # The app's key and secret are good for the app-only token too.
    token = http.post(
        "/oauth2/token", data={"grant_type": "client_credentials"}, auth=(consumer_key, consumer_secret)
    )
    assert token.status_code == 200, token.text
    assert token.json()["access_token"] == bearer


# ---- the request log -------------------------------------------------------------------------------


def test_a_refused_request_shows_in_the_log_with_its_reason(
    server: LiveServer, http: httpx.Client, page: Page, shots: Path
) -> None:
    refused = http.get("/2/users/me", headers={"Authorization": "Bearer not-a-real-token"})
    assert refused.status_code == 401
    page.goto(server.base_url + CONSOLE + "/requests?status=401&path=/2/users/me")
    row = page.locator("#requests tbody tr[data-entry]").first
    assert "/2/users/me" in row.inner_text() and "401" in row.inner_text()
    reason = row.locator(".reason").inner_text()
    assert reason, "the entry shows no reason"
    screenshot(page, shots, "requests")
    row.locator("a").first.click()
    page.wait_for_selector("#reason")
    assert page.inner_text("#reason").startswith(reason[:40])
    assert "401" in page.inner_text("#entry")
    screenshot(page, shots, "request-entry")


# ---- webhooks: retry ---------------------------------------------------------------------------------


def test_the_retry_button_delivers_again(
    server: LiveServer, http: httpx.Client, credentials: dict[str, Any], page: Page, shots: Path
) -> None:
    receiver = CountingReceiver()
    receiver.secret = credentials["consumer_secret"]
    app_only = {"Authorization": f"Bearer {credentials['bearer_token']}"}
    user = {"Authorization": f"Bearer {credentials['oauth2_user_token']}"}
    hook = http.post("/2/webhooks", json={"url": receiver.url}, headers=app_only)
    assert hook.status_code == 200, hook.text
    webhook_id = hook.json()["data"]["id"]
    try:
        path = f"/2/account_activity/webhooks/{webhook_id}/subscriptions/all"
        subscribed = http.post(path, json={}, headers=user)
        assert subscribed.status_code == 200, subscribed.text
        posted = http.post("/2/tweets", json={"text": f"retry me {uuid.uuid4().hex[:6]}"}, headers=user)
        assert posted.status_code == 201, posted.text
        post_id = posted.json()["data"]["id"]
        assert wait_for(lambda: receiver.posts[post_id] == 1), "the post was not delivered"

        rows = http.get("/_roost/deliveries", params={"webhook_id": webhook_id}).json()["data"]
        [delivery] = [row for row in rows if post_id in str(row["payload"])]

        page.goto(server.base_url + CONSOLE + "/webhooks")
        page.click(f"a.webhook-link >> text={webhook_id}")
        delivery_id = delivery["id"]
        row = page.locator(f'#deliveries tr[data-delivery="{delivery_id}"]')
        assert "delivered" in row.inner_text()
        screenshot(page, shots, "webhooks")
        row.locator("button.retry").click()
        assert wait_for(lambda: receiver.posts[post_id] == 2), "the retry did not reach the receiver"
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#result").startswith("200")
    finally:
        http.delete(f"/2/webhooks/{webhook_id}", headers=app_only)
        receiver.httpd.shutdown()


def test_the_replay_button_delivers_the_window_again(
    server: LiveServer, http: httpx.Client, credentials: dict[str, Any], page: Page, shots: Path
) -> None:
    receiver = CountingReceiver()
    receiver.secret = credentials["consumer_secret"]
    app_only = {"Authorization": f"Bearer {credentials['bearer_token']}"}
    user = {"Authorization": f"Bearer {credentials['oauth2_user_token']}"}
    hook = http.post("/2/webhooks", json={"url": receiver.url}, headers=app_only)
    assert hook.status_code == 200, hook.text
    webhook_id = hook.json()["data"]["id"]
    try:
        path = f"/2/account_activity/webhooks/{webhook_id}/subscriptions/all"
        assert http.post(path, json={}, headers=user).status_code == 200
        before = http.get("/_roost/clock").json()["now"]
        posted = http.post("/2/tweets", json={"text": f"replay me {uuid.uuid4().hex[:6]}"}, headers=user)
        assert posted.status_code == 201, posted.text
        post_id = posted.json()["data"]["id"]
        assert wait_for(lambda: receiver.posts[post_id] == 1), "the post was not delivered"
        # Replay windows are whole minutes: move the clock past the post's minute.
        after = http.post("/_roost/clock", json={"advance_seconds": 120}).json()["now"]

        page.goto(server.base_url + CONSOLE + f"/webhooks/{webhook_id}")
        page.fill("#replay-from", before)
        page.fill("#replay-to", after)
        page.click("#replay-submit")
        assert wait_for(lambda: receiver.posts[post_id] == 2, timeout=30), "the replay did not redeliver"
        page.wait_for_selector("#result:not([hidden])")
        assert page.inner_text("#result").startswith("200")
        screenshot(page, shots, "webhook-replayed")
    finally:
        http.delete(f"/2/webhooks/{webhook_id}", headers=app_only)
        receiver.httpd.shutdown()


# ---- fault rules -------------------------------------------------------------------------------------


def test_a_fault_rule_added_in_the_console_is_answered(
    server: LiveServer, http: httpx.Client, credentials: dict[str, Any], page: Page, shots: Path
) -> None:
    if http.get("/_roost/faults").status_code == 404:
        pytest.xfail("faults endpoint pending")
    page.goto(server.base_url + CONSOLE + "/clock")
    page.select_option("#fault-method", "GET")
    page.fill("#fault-path", "/2/users/me")
    page.fill("#fault-status", "503")
    page.fill("#fault-times", "1")
    page.click("#add-fault-submit")
    page.wait_for_selector('#faults table >> text="/2/users/me"')
    screenshot(page, shots, "clock")

    me = http.get("/2/users/me", headers={"Authorization": f"Bearer {credentials['oauth2_user_token']}"})
    assert me.status_code == 503, me.text
    again = http.get("/2/users/me", headers={"Authorization": f"Bearer {credentials['oauth2_user_token']}"})
    assert again.status_code == 200, again.text  # `times` 1: spent
    page.reload()
    page.wait_for_selector("#faults table")
    assert re.search(r"\b1\b", page.inner_text("#faults table tbody"))  # one hit
    page.click("#clear-faults")
    page.wait_for_selector("#faults >> text=No fault rules.")


def test_the_clock_freezes_and_runs_again_from_the_console(
    server: LiveServer, http: httpx.Client, page: Page
) -> None:
    page.goto(server.base_url + CONSOLE + "/clock")
    page.wait_for_selector("#clock-state >> text=running")
    page.click("#freeze-submit")
    page.wait_for_selector("#clock-state >> text=frozen")
    assert http.get("/_roost/clock").json()["frozen"] is True
    page.click("#freeze-submit")
    page.wait_for_selector("#clock-state >> text=running")
    assert http.get("/_roost/clock").json()["frozen"] is False
