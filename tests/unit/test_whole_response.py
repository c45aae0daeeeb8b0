"""The server's whole-response extension: one call writes what uvicorn's `send` writes for a start and a
body message (status line, its date and server headers, the app's headers, content-length, body), and
hands back to `send` whatever needs its care (a header that would split the head, a paused writer, a
response already started, a pipelined request)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import pytest
from tests.support.server import serving_app

from roost import serving
from roost.core.wire import send_raw
from roost.serving import write_whole

BODY = b'{"data":{"id":"1"}}'


def _app(value: bytes = b"yes") -> Callable[..., Awaitable[None]]:
    """An app answering every request through `send_raw`, which takes the extension when offered."""

    async def app(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        path = scope["path"].encode()
        headers = [(b"content-type", b"application/json"), (b"x-path", path), (b"x-value", value)]
        await send_raw(scope, send, 200, BODY + path, headers)

    return app


# Sent on a connection once the request under test is answered: its answer shows the connection stayed
# open, and that nothing else came after the answers under test.
MARKER = b"GET /marker HTTP/1.1\r\nHost: x\r\n\r\n"
MARKER_BODY = BODY + b"/marker"
READ_DEADLINE_S = 10.0


@pytest.fixture
def outcomes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each call of the whole-response writer answered (True: it wrote the response); the marker
    request's own answer is left out."""
    answers: list[bool] = []

    def noted(cycle: Any, status: int, headers: Any, body: bytes) -> bool:
        written = write_whole(cycle, status, headers, body)
        if body != MARKER_BODY:
            answers.append(written)
        return written

    monkeypatch.setattr(serving, "write_whole", noted)
    return answers


def _whole_responses(raw: bytes, head_only: bool) -> tuple[int, bool]:
    """How many whole responses `raw` starts with, and whether the last of them closes the connection."""
    count, closing = 0, False
    while raw.startswith(b"HTTP/1.1") and b"\r\n\r\n" in raw:
        head, rest = raw.split(b"\r\n\r\n", 1)
        headers = dict(line.split(": ", 1) for line in head.decode("latin-1").split("\r\n")[1:])
        length = 0 if head_only else int(headers.get("content-length", "0"))
        if len(rest) < length:
            break
        count, closing, raw = count + 1, headers.get("connection") == "close", rest[length:]
    return count, closing


def _exchange(app: Callable[..., Awaitable[None]], request: bytes, answers: int = 1) -> bytes:
    """Send raw bytes to a live server running `app` and read `answers` whole responses, or until the
    server closes the connection ("<closed>" ends the result then). If it stays open, the marker request
    follows and its answer is read: what came before it is everything the request got, and "<open>"
    ends the result."""
    head_only = request.startswith(b"HEAD ")

    async def scenario() -> bytes:
        async with serving_app(app) as port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request)
            received = b""
            marker_sent = False
            while not received.endswith(MARKER_BODY):
                count, closing = _whole_responses(received, head_only)
                if count >= answers and not closing and not marker_sent:
                    writer.write(MARKER)
                    marker_sent = True
                try:
                    chunk = await asyncio.wait_for(reader.read(65536), READ_DEADLINE_S)
                except TimeoutError:
                    pytest.fail(f"nothing more within {READ_DEADLINE_S:g} s after {received!r}")
                if not chunk:
                    writer.close()
                    return received + b"<closed>"
                received += chunk
            writer.close()
            return received[: received.rindex(b"HTTP/1.1 ")] + b"<open>"

    return asyncio.run(scenario())


def _responses(raw: bytes) -> list[tuple[str, dict[str, str], bytes]]:
    out = []
    while raw.startswith(b"HTTP/1.1"):
        head, raw = raw.split(b"\r\n\r\n", 1)
        status, *lines = head.decode().split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines)
        length = int(headers["content-length"])
        out.append((status, headers, raw[:length]))
        raw = raw[length:]
    return out


def test_kept_alive_requests_are_each_written_whole(outcomes: list[bool]) -> None:
    raw = _exchange(_app(), b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
    [(status, headers, body)] = _responses(raw)
    assert outcomes == [True]
    assert status == "HTTP/1.1 200 OK"
    assert list(headers) == [
        "date",
        "server",
        "content-type",
        "x-path",
        "x-value",
        "content-length",
    ]
    assert headers["server"] == "uvicorn" and headers["date"].endswith(" GMT")
    assert headers["content-length"] == str(len(BODY) + 2) and body == BODY + b"/a"
    assert raw.endswith(b"<open>")  # the connection stays open


def test_pipelined_requests_are_answered_in_order(outcomes: list[bool]) -> None:
    raw = _exchange(_app(), b"".join(b"GET /%d HTTP/1.1\r\nHost: x\r\n\r\n" % n for n in range(3)), answers=3)
    # Those parsed while another was answered go through `send`, which keeps them in order.
    assert [body for _, _, body in _responses(raw)] == [BODY + b"/0", BODY + b"/1", BODY + b"/2"]
    assert outcomes == [True]  # the last one, the connection's current request


@pytest.mark.parametrize(
    "request_line",
    [b"GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", b"GET /c HTTP/1.0\r\n\r\n"],
)
def test_a_closing_connection_says_so_and_closes(request_line: bytes, outcomes: list[bool]) -> None:
    raw = _exchange(_app(), request_line)
    assert outcomes == [True]
    [(_, headers, body)] = _responses(raw.removesuffix(b"<closed>"))
    assert headers["connection"] == "close" and body == BODY + b"/c"
    assert raw.endswith(b"<closed>")


def test_head_gets_the_length_without_the_body(outcomes: list[bool]) -> None:
    raw = _exchange(_app(), b"HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n")
    assert outcomes == [True]
    head, rest = raw.split(b"\r\n\r\n", 1)
    assert b"\r\ncontent-length: %d" % (len(BODY) + 2) in head
    assert rest == b"<open>"  # no body, and the connection stays open


@pytest.mark.parametrize("value", [b"a\r\nset-cookie: injected=1", b"a\nb", b"nul\x00", b"del\x7f"])
def test_a_header_that_would_split_the_head_is_left_to_the_servers_own_checks(
    value: bytes, outcomes: list[bool]
) -> None:
    raw = _exchange(_app(value), b"GET /bad HTTP/1.1\r\nHost: x\r\n\r\n")
    assert outcomes == [False]
    assert raw == b"<closed>"  # uvicorn refuses the header and drops the connection, as without it


def test_a_tab_in_a_value_is_allowed(outcomes: list[bool]) -> None:
    raw = _exchange(_app(b"a\tb"), b"GET /t HTTP/1.1\r\nHost: x\r\n\r\n")
    assert outcomes == [True]
    assert _responses(raw)[0][1]["x-value"] == "a\tb"


def _cycle(**state: Any) -> SimpleNamespace:
    written: list[bytes] = []
    defaults = {
        "response_started": False,
        "disconnected": False,
        "access_log": False,
        "flow": SimpleNamespace(write_paused=False),
        "transport": SimpleNamespace(write=written.append),
        "written": written,
    }
    return SimpleNamespace(**{**defaults, **state})


@pytest.mark.parametrize(
    "state",
    [
        {"flow": SimpleNamespace(write_paused=True)},  # a slow reader: `send` waits for the drain
        {"access_log": True},  # `send` logs the response
        {"response_started": True},  # `send` reports the app's mistake
    ],
)
def test_what_needs_sends_care_is_handed_back_unwritten(state: dict[str, Any]) -> None:
    cycle = _cycle(**state)
    assert write_whole(cycle, 200, [(b"content-type", b"application/json")], BODY) is False  # type: ignore[arg-type]
    assert cycle.written == []


def test_a_client_gone_is_answered_with_nothing() -> None:
    cycle = _cycle(disconnected=True)
    assert write_whole(cycle, 200, [], BODY) is True  # type: ignore[arg-type]
    assert cycle.written == [] and cycle.response_started is False
