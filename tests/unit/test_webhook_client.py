"""The webhook deliveries' HTTP client against raw receivers: framing, keep-alive, failures."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest
import uvloop

from roost.events.webhook_client import WebhookClient

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, "Receiver"], Awaitable[None]]


@dataclass
class Receiver:
    port: int = 0
    connections: int = 0
    requests: list[tuple[bytes, dict[str, str], bytes]] = field(default_factory=list)


async def read_request(reader: asyncio.StreamReader, receiver: Receiver) -> bool:
    """One request off the connection into `receiver.requests`; False at the end of the connection."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return False
    line, *header_lines = head[:-4].split(b"\r\n")
    headers = {}
    for raw in header_lines:
        name, _, value = raw.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    receiver.requests.append((line, headers, body))
    return True


@pytest.fixture()
async def serve() -> AsyncIterator[Callable[[Handler], Awaitable[Receiver]]]:
    servers: list[asyncio.Server] = []

    async def start(handler: Handler) -> Receiver:
        receiver = Receiver()

        async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            receiver.connections += 1
            try:
                await handler(reader, writer, receiver)
            finally:
                writer.close()

        server = await asyncio.start_server(on_connection, "127.0.0.1", 0)
        servers.append(server)
        receiver.port = server.sockets[0].getsockname()[1]
        return receiver

    yield start
    for server in servers:
        server.close()
        await server.wait_closed()


async def keep_alive_ok(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, receiver: Receiver
) -> None:
    while await read_request(reader, receiver):
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        await writer.drain()


async def test_posts_the_body_and_headers_and_reuses_the_connection(serve) -> None:  # type: ignore[no-untyped-def]
    receiver = await serve(keep_alive_ok)
    client = WebhookClient()
    url = f"http://127.0.0.1:{receiver.port}/hook/a b?x=1"
    statuses = [await client.post(url, b'{"n":%d}' % n, [("x-sig", "sha256=abc")], 5.0) for n in range(3)]
    await client.close()
    assert statuses == [200, 200, 200]
    assert receiver.connections == 1  # kept alive and reused
    line, headers, body = receiver.requests[2]
    assert line == b"POST /hook/a%20b?x=1 HTTP/1.1"
    assert headers["host"] == f"127.0.0.1:{receiver.port}"
    assert headers["x-sig"] == "sha256=abc"
    assert headers["content-length"] == "7"
    assert body == b'{"n":2}'


async def test_other_statuses_and_chunked_replies(serve) -> None:  # type: ignore[no-untyped-def]
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, receiver: Receiver) -> None:
        while await read_request(reader, receiver):
            writer.write(b"HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbusy\r\n0\r\n\r\n")
            await writer.drain()

    receiver = await serve(handler)
    client = WebhookClient()
    url = f"http://127.0.0.1:{receiver.port}/"
    assert [await client.post(url, b"{}", [], 5.0) for _ in range(2)] == [503, 503]
    await client.close()
    assert receiver.connections == 1


async def test_a_reply_ended_by_closing_the_connection(serve) -> None:  # type: ignore[no-untyped-def]
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, receiver: Receiver) -> None:
        await read_request(reader, receiver)
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nthanks")
        await writer.drain()

    receiver = await serve(handler)
    client = WebhookClient()
    url = f"http://127.0.0.1:{receiver.port}/"
    assert [await client.post(url, b"{}", [], 5.0) for _ in range(2)] == [200, 200]
    await client.close()
    assert receiver.connections == 2  # not reusable: each post opened its own


async def test_no_reply_in_time_is_a_timeout_and_the_connection_is_dropped(serve) -> None:  # type: ignore[no-untyped-def]
    closed = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, receiver: Receiver) -> None:
        await read_request(reader, receiver)
        await reader.read()  # never answers; returns once the client gives up and closes
        closed.set()

    receiver = await serve(handler)
    client = WebhookClient()
    with pytest.raises(TimeoutError):
        await client.post(f"http://127.0.0.1:{receiver.port}/", b"{}", [], 0.2)
    await asyncio.wait_for(closed.wait(), 5)
    await client.close()


async def test_a_kept_connection_the_receiver_closed_is_replaced(serve) -> None:  # type: ignore[no-untyped-def]
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, receiver: Receiver) -> None:
        await read_request(reader, receiver)
        # Says keep-alive, then closes at once, as a receiver's idle timeout would later.
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()

    receiver = await serve(handler)
    client = WebhookClient()
    url = f"http://127.0.0.1:{receiver.port}/"
    assert await client.post(url, b"{}", [], 5.0) == 200
    for _ in range(50):  # until the client has seen the close of the kept connection, or not
        await asyncio.sleep(0)
    assert await client.post(url, b"{}", [], 5.0) == 200
    await client.close()
    assert len(receiver.requests) == 2 and receiver.connections == 2


async def test_nothing_listening_and_bad_urls_fail_as_errors() -> None:
    client = WebhookClient()
    probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()
    with pytest.raises(OSError):
        await client.post(f"http://127.0.0.1:{port}/", b"{}", [], 5.0)
    with pytest.raises(ValueError):
        await client.post("ftp://example.com/", b"{}", [], 5.0)
    await client.close()


async def test_a_garbled_reply_is_an_error(serve) -> None:  # type: ignore[no-untyped-def]
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, receiver: Receiver) -> None:
        await read_request(reader, receiver)
        writer.write(b"SMTP ready\r\n\r\n")
        await writer.drain()
        await reader.read()

    receiver = await serve(handler)
    client = WebhookClient()
    with pytest.raises(OSError):
        await client.post(f"http://127.0.0.1:{receiver.port}/", b"{}", [], 5.0)
    await client.close()


def test_the_servers_event_loop_uvloop_too() -> None:
    """The server runs on uvloop, whose transports differ from asyncio's: the same posts there."""

    async def scenario() -> list[int]:
        receiver = Receiver()

        async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            receiver.connections += 1
            await keep_alive_ok(reader, writer, receiver)
            writer.close()

        server = await asyncio.start_server(on_connection, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = WebhookClient()
        try:
            return [await client.post(f"http://127.0.0.1:{port}/", b"{}", [], 5.0) for _ in range(3)]
        finally:
            await client.close()
            server.close()
            await server.wait_closed()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        assert runner.run(scenario()) == [200, 200, 200]
