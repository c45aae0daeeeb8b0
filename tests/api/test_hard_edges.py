"""Hard edges of the server (issue 16): credentials that are not even ASCII, bodies over the cap,
requests that never finish, clients that go away, and `dry_run` on stream rules."""

from __future__ import annotations

import base64

import httpx
import pytest
from tests.support.server import LiveServer

CODE_99 = {
    "errors": [
        {"code": 99, "label": "authenticity_token_error", "message": "Unable to verify your credentials"}
    ]
}
# What a client gets on the wire for `Basic é`: one byte per character (latin-1), or UTF-8's two.
NOT_ASCII = [b"Basic \xe9", "Basic é".encode(), b"Basic \xff\xfe=="]
WELL_FORMED_BUT_WRONG = "Basic " + base64.b64encode(b"nobody:nothing").decode()


@pytest.fixture
def http(server: LiveServer) -> httpx.Client:
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        yield client


@pytest.mark.parametrize("value", NOT_ASCII)
def test_bearer_token_with_basic_credentials_not_in_ascii_is_code_99(
    http: httpx.Client, value: bytes
) -> None:
    answer = http.post(
        "/oauth2/token", data={"grant_type": "client_credentials"}, headers={"Authorization": value}
    )
    assert answer.status_code == 403
    assert answer.json() == CODE_99


@pytest.mark.parametrize("value", NOT_ASCII)
def test_invalidate_bearer_with_basic_credentials_not_in_ascii_is_refused_as_wrong_ones_are(
    http: httpx.Client, value: bytes
) -> None:
    wrong = http.post(
        "/oauth2/invalidate_token",
        data={"access_token": "x"},
        headers={"Authorization": WELL_FORMED_BUT_WRONG},
    )
    answer = http.post(
        "/oauth2/invalidate_token", data={"access_token": "x"}, headers={"Authorization": value}
    )
    assert (answer.status_code, answer.json()) == (wrong.status_code, wrong.json())
    assert answer.status_code == 401
