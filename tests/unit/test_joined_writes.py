"""The server's joined-writes transport: what one loop step writes leaves in one `write`, in order;
closing sends what is pending, aborting drops it; everything else is the transport's own."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from tests.support.server import serving_app

from roost.serving import JoinedWrites


class FakeTransport:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.buffered = 0
        self.closing = False

    def is_closing(self) -> bool:
        return self.closing

    def write(self, data: bytes) -> None:
        self.calls.append(("write", data))

    def close(self) -> None:
        self.calls.append(("close", None))

    def abort(self) -> None:
        self.calls.append(("abort", None))

    def write_eof(self) -> None:
        self.calls.append(("write_eof", None))

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def get_extra_info(self, name: str) -> str:
        return f"info:{name}"


async def _step() -> None:
    await asyncio.sleep(0)


def test_one_step_leaves_in_one_write() -> None:
    async def scenario() -> list[tuple[str, Any]]:
        real = FakeTransport()
        joined = JoinedWrites(real, asyncio.get_running_loop())  # type: ignore[arg-type]
        joined.write(b"HTTP/1.1 200 OK\r\n\r\n")
        joined.writelines([b"{", b"}"])
        assert real.calls == []  # nothing leaves before the step ends
        assert joined.get_write_buffer_size() == 21
        await _step()
        joined.write(b"next")
        await _step()
        return real.calls

    assert asyncio.run(scenario()) == [("write", b"HTTP/1.1 200 OK\r\n\r\n{}"), ("write", b"next")]


def test_close_sends_what_is_pending_and_abort_drops_it() -> None:
    async def scenario() -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        closed, aborted = FakeTransport(), FakeTransport()
        loop = asyncio.get_running_loop()
        first = JoinedWrites(closed, loop)  # type: ignore[arg-type]
        first.write(b"last words")
        first.close()
        second = JoinedWrites(aborted, loop)  # type: ignore[arg-type]
        second.write(b"never sent")
        second.abort()
        await _step()  # the scheduled flushes find nothing left
        return closed.calls, aborted.calls

    closed, aborted = asyncio.run(scenario())
    assert closed == [("write", b"last words"), ("close", None)]
    assert aborted == [("abort", None)]


def test_a_connection_lost_before_the_step_ends_gets_no_write() -> None:
    async def scenario() -> list[tuple[str, Any]]:
        real = FakeTransport()
        joined = JoinedWrites(real, asyncio.get_running_loop())  # type: ignore[arg-type]
        joined.write(b"too late")
        real.closing = True  # uvloop would raise on a write now
        await _step()
        return real.calls

    assert asyncio.run(scenario()) == []


def test_eof_follows_the_pending_bytes_and_other_calls_pass_through() -> None:
    async def scenario() -> tuple[list[tuple[str, Any]], str]:
        real = FakeTransport()
        joined = JoinedWrites(real, asyncio.get_running_loop())  # type: ignore[arg-type]
        joined.write(b"tail")
        joined.write_eof()
        return real.calls, joined.get_extra_info("peername")

    calls, info = asyncio.run(scenario())
    assert calls == [("write", b"tail"), ("write_eof", None)]
    assert info == "info:peername"


@pytest.mark.parametrize("keep_alive", [True, False])
def test_a_live_server_answers_whole_responses(keep_alive: bool) -> None:
    body = b"x" * 100_000

    async def app(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body[:10], "more_body": True})
        await send({"type": "http.response.body", "body": body[10:]})

    async def scenario() -> list[bytes]:
        headers = {} if keep_alive else {"connection": "close"}
        async with serving_app(app) as port, httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            return [(await client.get("/", headers=headers)).content for _ in range(3)]

    assert asyncio.run(scenario()) == [body] * 3
