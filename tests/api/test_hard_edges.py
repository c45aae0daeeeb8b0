"""Hard edges of the server (issue 16): credentials that are not even ASCII, bodies over the cap,
requests that never finish, clients that go away, and `dry_run` on stream rules."""

from __future__ import annotations

import base64
import json
import logging
import select
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

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


# ---- body caps -------------------------------------------------------------------------------

CAP = 1_048_576  # the server's body cap (Settings.max_body_bytes)
HUGE = 300_000_000
TOO_LARGE = {
    "title": "Payload Too Large",
    "detail": "Payload Too Large",
    "type": "about:blank",
    "status": 413,
}
# A failure guard only: every wait below ends on something the server does, long before this.
SOCKET_TIMEOUT_S = 30.0
PAGES = [
    "/oauth2/token",
    "/oauth2/invalidate_token",
    "/oauth/request_token",
    "/oauth/access_token",
    "/2/oauth2/token",
    "/2/oauth2/revoke",
    "/i/oauth2/authorize",
    "/i/oauth/authorize",
    "/_roost/users",
    "/_roost/clock",
]


def _connect(base_url: str) -> socket.socket:
    host, port = base_url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=SOCKET_TIMEOUT_S)
    return sock


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk


def _head(method: str, path: str, *headers: str) -> bytes:
    return "\r\n".join([f"{method} {path} HTTP/1.1", "Host: roost", *headers, "", ""]).encode()


def _status_and_body(raw: bytes) -> tuple[int, bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.one_process  # the server's own reading of bodies: a proxy reads them first
def test_a_declared_length_above_the_cap_is_refused_before_the_body(server: LiveServer, path: str) -> None:
    with _connect(server.base_url) as sock:
        sock.sendall(_head("POST", path, f"Content-Length: {HUGE}", "Content-Type: application/json"))
        raw = _until_closed(sock)  # answered and closed with not a byte of the body sent
    status, body = _status_and_body(raw)
    assert status == 413
    assert json.loads(body) == TOO_LARGE
    assert b"\r\nconnection: close\r\n" in raw.lower()


@pytest.mark.parametrize("path", ["/oauth2/token", "/2/oauth2/token", "/_roost/users"])
@pytest.mark.one_process  # the server's own reading of bodies: a proxy reads them first
def test_a_chunked_body_is_cut_at_the_cap(server: LiveServer, path: str) -> None:
    piece = b"x" * 65536
    with _connect(server.base_url) as sock:
        sock.sendall(_head("POST", path, "Transfer-Encoding: chunked", "Content-Type: application/json"))
        sent = 0
        while sent <= CAP:  # no last chunk: the body never ends by itself
            sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            sent += len(piece)
        raw = _until_closed(sock)
    status, body = _status_and_body(raw)
    assert status == 413
    assert json.loads(body) == TOO_LARGE


def test_a_body_at_the_cap_still_reaches_the_page(http: httpx.Client) -> None:
    body = b'{"advance_seconds": 0}'
    body += b" " * (CAP - len(body))
    answer = http.post("/_roost/clock", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 200, answer.text


def test_a_data_import_takes_more_than_the_server_cap(http: httpx.Client) -> None:
    body = b'{"users": []' + b" " * (2 * CAP) + b"}"
    answer = http.post("/_roost/import", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 200, answer.text


@pytest.mark.one_process  # the server's own reading of bodies: a proxy reads them first
def test_compliance_uploads_take_more_than_the_server_cap_up_to_their_own(
    server: LiveServer, http: httpx.Client
) -> None:
    url = "/storage/twttr-tweet-compliance/123/submission/1_123?X-Goog-Signature=x"
    answer = http.put(url, content=b"1\n" * CAP, headers={"Content-Type": "text/plain"})
    assert answer.status_code == 404  # no such job: the body itself was taken in
    assert b"<Code>NoSuchKey</Code>" in answer.content
    with _connect(server.base_url) as sock:
        sock.sendall(_head("PUT", url, f"Content-Length: {HUGE}", "Content-Type: text/plain"))
        raw = _until_closed(sock)
    status, body = _status_and_body(raw)
    assert status == 413
    assert b"<Code>EntityTooLarge</Code>" in body


# ---- requests that never finish, clients that go away -------------------------------------------


@pytest.fixture(scope="module")
def impatient() -> Iterator[LiveServer]:
    """A server that gives a request one second to arrive."""
    live = LiveServer(tag="impatient", rate_limits=False, extra={"request_timeout_s": "1"}).start()
    yield live
    live.stop()


@pytest.mark.parametrize(
    "sent",
    [
        b"",  # connected, then nothing
        b"POST /2/tweets HTTP/1.1\r\nHost: roost\r\n",  # a head that never ends
        # bodies short of their length, or without their last chunk
        b'POST /2/tweets HTTP/1.1\r\nHost: roost\r\nContent-Length: 100\r\n\r\n{"te',
        b'POST /_roost/users HTTP/1.1\r\nHost: roost\r\nContent-Length: 100\r\n\r\n{"us',
        b"POST /oauth2/token HTTP/1.1\r\nHost: roost\r\nTransfer-Encoding: chunked\r\n\r\n4\r\ngran",
    ],
)
def test_a_request_that_never_arrives_whole_is_closed_in_time(impatient: LiveServer, sent: bytes) -> None:
    with _connect(impatient.base_url) as sock:
        sock.sendall(sent)
        assert _until_closed(sock) == b""  # closed by the server, unanswered


def test_trickling_a_head_does_not_extend_the_deadline(impatient: LiveServer) -> None:
    """A byte every tenth of a second keeps an idle timer from firing; the deadline fires anyway."""
    head = b"GET /_roost/health HTTP/1.1\r\nHost: roost\r\nX-Padding: " + b"a" * 300
    with _connect(impatient.base_url) as sock:
        for byte in head:
            readable, _, _ = select.select([sock], [], [], 0.1)  # paces the bytes; ends on the close
            if readable:
                break
            try:
                sock.send(bytes([byte]))
            except OSError:
                break
        assert _until_closed(sock) == b""


def test_a_connection_is_reused_after_a_whole_request(impatient: LiveServer) -> None:
    with httpx.Client(base_url=impatient.base_url, timeout=SOCKET_TIMEOUT_S) as client:
        for _ in range(3):
            assert client.get("/_roost/health").status_code == 200


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def records() -> Iterator[Records]:
    handler = Records()
    loggers = [logging.getLogger(name) for name in ("roost", "uvicorn.error")]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)


@pytest.mark.parametrize(
    "path", ["/_roost/users", "/oauth2/token", "/2/oauth2/token", "/2/tweets", "/12/accounts"]
)
@pytest.mark.one_process  # the server's own reading of bodies: a proxy reads them first
def test_a_client_gone_mid_body_is_one_line_without_a_traceback(
    server: LiveServer, records: Records, path: str
) -> None:
    with _connect(server.base_url) as sock:
        # Its own address: an earlier test's client may be noted as gone while this one runs.
        host, port = sock.getsockname()[:2]
        address = f"{host}:{port}"
        sock.sendall(_head("POST", path, "Content-Length: 100", "Content-Type: application/json") + b'{"a')
    deadline = time.monotonic() + SOCKET_TIMEOUT_S
    while not any(f"{address} went away" in record.getMessage() for record in records.records):
        assert time.monotonic() < deadline, "the disconnect was never noted"
        time.sleep(0.01)
    lines = [record for record in records.records if address in record.getMessage()]
    assert path in lines[0].getMessage()
    assert len(lines) == 1
    assert lines[0].levelno == logging.WARNING and lines[0].exc_info is None
    assert not [record for record in records.records if record.levelno >= logging.ERROR]


# ---- dry_run on stream rules ---------------------------------------------------------------------

RULES = "/2/tweets/search/stream/rules"
PADDING = "&" * 70_000  # a query longer than the URL parser takes: it reaches the app another way


@pytest.fixture
def rules_client(server: LiveServer, credentials: dict[str, Any]) -> Iterator[httpx.Client]:
    bearer = {"Authorization": f"Bearer {credentials['bearer_token']}"}
    with httpx.Client(base_url=server.base_url, timeout=SOCKET_TIMEOUT_S, headers=bearer) as client:
        kept = client.post(RULES, json={"add": [{"value": f"kept {uuid.uuid4().hex[:8]}"}]})
        assert kept.status_code == 201, kept.text
        yield client
        client.post(RULES, json={"delete": {"ids": [kept.json()["data"][0]["id"]]}})


def _rules(client: httpx.Client) -> list[dict[str, Any]]:
    answer = client.get(RULES)
    assert answer.status_code == 200, answer.text
    return sorted(answer.json()["data"], key=lambda rule: rule["id"])


def _raw_post(server: LiveServer, credentials: dict[str, Any], target: str, body: bytes) -> int:
    with _connect(server.base_url) as sock:
        sock.sendall(
            _head(
                "POST",
                target,
                f"Authorization: Bearer {credentials['bearer_token']}",
                "Content-Type: application/json",
                f"Content-Length: {len(body)}",
                "Connection: close",
            )
            + body
        )
        status, _ = _status_and_body(_until_closed(sock))
    return status


@pytest.mark.parametrize(
    ("query", "body", "status"),
    [
        ("dry_run=true", {"add": [{"value": "dry one"}]}, 201),
        ("dry_run=tru%65", {"add": [{"value": "dry two"}]}, 201),
        ("dry_run=TRUE", {"add": [{"value": "dry three"}]}, 400),
        ("dry_run=1", {"add": [{"value": "dry four"}]}, 400),
        ("dry_run=", {"add": [{"value": "dry five"}]}, 400),
        ("dry_run=true&dry_run=false", {"add": [{"value": "dry six"}]}, 400),
        ("dry_run=false&dry_run=true", {"add": [{"value": "dry seven"}]}, 400),
        ("dry_run=true", {"add": [{"value": "dry eight"}], "delete": {"values": ["dry eight"]}}, 400),
        ("dry_run=true", {"add": [{"value": "dry nine"}, {"value": "(("}]}, 201),  # one bad: none
        ("dry_run=true", {"add": [{"value": "dry ten"}, {"value": "dry ten"}]}, 201),
        ("dry_run=true", {"add": [{"value": "dry eleven"}], "dry_run": False}, 400),
        ("dry_run=true&delete_all=true", None, 200),
        ("dry_run=true", "delete the kept rule", 200),
    ],
)
def test_dry_run_never_writes_a_rule(
    server: LiveServer,
    credentials: dict[str, Any],
    rules_client: httpx.Client,
    query: str,
    body: Any,
    status: int,
) -> None:
    before = _rules(rules_client)
    if body == "delete the kept rule":
        body = {"delete": {"ids": [before[0]["id"]], "values": [before[0]["value"]]}}
    content = b"" if body is None else json.dumps(body).encode()
    for target in (f"{RULES}?{query}", f"{RULES}?{query}{PADDING}"):
        assert _raw_post(server, credentials, target, content) == status
        assert _rules(rules_client) == before
