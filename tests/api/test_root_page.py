"""`/` in a browser leads to the console (issue 17); API clients still get the platform's 404."""

from __future__ import annotations

import httpx
from tests.support.server import LiveServer


def test_root_redirects_browsers_to_the_console_only(server: LiveServer) -> None:
    browser = httpx.get(server.base_url + "/", headers={"Accept": "text/html,*/*"}, timeout=30)
    assert browser.status_code == 302
    assert browser.headers["location"] == "/_roost/console"
    client = httpx.get(server.base_url + "/", headers={"Accept": "application/json"}, timeout=30)
    assert client.status_code == 404
    assert client.json() == {"errors": [{"message": "Sorry, that page does not exist", "code": 34}]}
