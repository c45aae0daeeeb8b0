"""The console's pages over plain HTTP (issue 17): each page answers HTML, a bad parameter a 400
page (never a 500), `/_roost` leads to the console, and with `--admin-token` the sign-in page sets a
cookie that opens the console and the control plane (and only the right token does)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from tests.support.server import LiveServer

PAGES = [
    "/_roost/console",
    "/_roost/console/apps",
    "/_roost/console/data",
    "/_roost/console/data?kind=users",
    "/_roost/console/data?kind=dms",
    "/_roost/console/data?kind=spaces",
    "/_roost/console/data?kind=lists&q=a",
    "/_roost/console/requests",
    "/_roost/console/requests?status=4xx&path=/2/&method=GET",
    "/_roost/console/webhooks",
    "/_roost/console/streams",
    "/_roost/console/limits",
    "/_roost/console/clock",
    "/_roost/console/login",
]

BAD = [
    "/_roost/console?x=1",
    "/_roost/console/apps?before=abc",
    "/_roost/console/apps?limit=0",
    "/_roost/console/data?kind=nope",
    "/_roost/console/data?before=-1",
    "/_roost/console/data?limit=100000",
    "/_roost/console/data?unknown=1",
    "/_roost/console/data/posts/notanid",
    "/_roost/console/data/users/99999999999999999999999",
    "/_roost/console/requests?status=abc",
    "/_roost/console/requests?method=BREW",
    "/_roost/console/requests?app=x",
    "/_roost/console/requests/abc",
    "/_roost/console/webhooks/abc",
    "/_roost/console/webhooks?x=%3Cscript%3E",
]


@pytest.fixture(scope="module")
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        yield client


@pytest.mark.parametrize("path", PAGES)
def test_each_page_answers_html(http: httpx.Client, path: str) -> None:
    response = http.get(path)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    assert "<nav>" in response.text and "</html>" in response.text


@pytest.mark.parametrize("path", BAD)
def test_bad_parameters_get_a_400_page(http: httpx.Client, path: str) -> None:
    response = http.get(path)
    assert response.status_code == 400, (path, response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("text/html")
    assert 'id="error-message"' in response.text
    assert "<script>" not in response.text.split("</head>", 1)[1]  # whatever was sent is escaped


def test_everything_shown_is_escaped(http: httpx.Client) -> None:
    response = http.get("/_roost/console/requests", params={"path": "<b>x</b>"})
    assert response.status_code == 200
    assert "<b>x</b>" not in response.text and "&lt;b&gt;x&lt;/b&gt;" in response.text


def test_missing_objects_are_404_pages(http: httpx.Client) -> None:
    for path in (
        "/_roost/console/data/posts/1",
        "/_roost/console/data/users/1",
        "/_roost/console/webhooks/1",
    ):
        response = http.get(path)
        assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")


def test_roost_leads_to_the_console(http: httpx.Client) -> None:
    for path in ("/_roost", "/_roost/"):
        response = http.get(path)
        assert response.status_code in (302, 307) and response.headers["location"].endswith("/_roost/console")


def test_static_files(http: httpx.Client) -> None:
    assert http.get("/_roost/console/static/console.js").headers["content-type"].startswith("text/javascript")
    assert http.get("/_roost/console/static/console.css").headers["content-type"].startswith("text/css")
    assert http.get("/_roost/console/static/secret.py").status_code == 404


def test_a_form_with_a_bad_field_is_a_400_page(http: httpx.Client) -> None:
    response = http.post("/_roost/console/apps/create", data={"name": "x", "permission": "root"})
    assert response.status_code == 400 and "permission must be one of" in response.text
    response = http.post("/_roost/console/tokens/issue", data={"consumer_key": "nope", "user_id": "1"})
    assert response.status_code == 400 and response.headers["content-type"].startswith("text/html")


def test_the_apps_page_creates_an_app_on_a_package_and_changes_it(http: httpx.Client) -> None:
    made = http.post(
        "/_roost/console/apps/create", data={"name": "console self-serve", "package": "pay-per-use"}
    )
    assert made.status_code == 201
    app_id = re.search(r'id="made-app">\s*<h2>App “console self-serve” \((\d+)\)', made.text)
    assert app_id is not None
    selected = re.compile(rf'id="app-{app_id[1]}-package">.*?<option selected>([a-z-]+)</option>', re.S)
    assert selected.search(made.text)[1] == "pay-per-use"  # type: ignore[index]
    key = re.search(r'id="new-consumer_key">([^<]+)<', made.text)
    assert key is not None
    changed = http.post(
        "/_roost/console/apps/package", data={"consumer_key": key[1], "package": "enterprise"}
    )
    assert changed.status_code == 200
    assert selected.search(changed.text)[1] == "enterprise"  # type: ignore[index]
    refused = http.post("/_roost/console/apps/package", data={"consumer_key": key[1], "package": "gold"})
    assert (
        refused.status_code == 400
        and "package must be one of pay-per-use, enterprise, essential, elevated" in refused.text
    )


def test_retry_and_replay_endpoints_refuse_what_they_cannot_do(http: httpx.Client) -> None:
    assert http.post("/_roost/deliveries/123456/retry").status_code == 404
    assert http.post("/_roost/deliveries/x/retry").status_code == 400
    response = http.post("/_roost/webhooks/1/replay", json={"from": "yesterday", "to": "now"})
    assert response.status_code == 400
    response = http.post(
        "/_roost/webhooks/1/replay", json={"from": "2024-01-01T00:00:00Z", "to": "2024-01-01T00:10:00Z"}
    )
    assert response.status_code == 400 and "no webhook" in response.text


# ---- the admin token's cookie --------------------------------------------------------------------


@pytest.fixture(scope="module")
def guarded() -> Iterator[LiveServer]:
    live = LiveServer(tag="console_admin", admin_token="t").start()
    yield live
    live.stop()


def test_sign_in_sets_a_cookie_that_opens_the_console(guarded: LiveServer) -> None:
    with httpx.Client(base_url=guarded.base_url, timeout=30) as client:
        assert client.get("/_roost/console").status_code == 401  # an API client: today's JSON 401
        browser = client.get("/_roost/console", headers={"Accept": "text/html"})
        assert browser.status_code == 303 and browser.headers["location"] == "/_roost/console/login"
        login = client.get("/_roost/console/login")
        assert login.status_code == 200 and 'name="token"' in login.text
        assert client.get("/_roost/console/static/console.css").status_code == 200

        wrong = client.post("/_roost/console/login", data={"token": "not-t"})
        assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
        assert client.get("/_roost/credentials").status_code == 401

        right = client.post("/_roost/console/login", data={"token": "t"})
        assert right.status_code == 303
        cookie = right.headers["set-cookie"]
        assert "HttpOnly" in cookie and re.search("SameSite=strict", cookie, re.IGNORECASE)
        assert "=t;" not in cookie  # the cookie holds a value derived from the token, not the token
        assert client.get("/_roost/console").status_code == 200
        assert client.get("/_roost/credentials").status_code == 200  # the JSON the page's script calls

        client.cookies.set("roost_console", "forged")
        assert client.get("/_roost/console").status_code == 401
    # The header still works on its own, as before.
    headers = {"X-Roost-Admin-Token": "t"}
    assert httpx.get(guarded.base_url + "/_roost/console", headers=headers, timeout=30).status_code == 200


def test_without_a_token_the_login_page_says_the_console_is_open(http: httpx.Client) -> None:
    response = http.get("/_roost/console/login")
    assert response.status_code == 200 and "console is open" in response.text


def test_the_requests_page_links_to_older_entries_keeping_its_filters(http: httpx.Client) -> None:
    for n in range(3):
        http.get(f"/2/users/by/username/older_link_{n}")
    page = http.get(
        "/_roost/console/requests", params={"path": "/2/users/by/username/older_link_", "limit": 1}
    )
    assert page.status_code == 200, page.text
    assert 'id="older"' in page.text
    assert "path=%2F2%2Fusers%2Fby%2Fusername%2Folder_link_" in page.text
