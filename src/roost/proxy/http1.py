"""Just enough HTTP/1.1 for a relay: read a message head, tell how its body is framed, and copy the
body from one stream to another as it arrives (a chunk of the filtered stream is written on as soon
as it is read; an upload is never held whole)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

MAX_HEAD_BYTES = 64 * 1024
BLOCK = 64 * 1024

# Framings of a body.
NO_BODY = "none"
BY_LENGTH = "length"
CHUNKED = "chunked"
UNTIL_CLOSE = "close"  # a response with neither length nor chunking ends when the server closes


class ProtocolError(Exception):
    """A message the relay cannot pass on; `status` is what the client is answered."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass
class Head:
    """A request or status line and its header fields, names kept as sent."""

    start: str
    headers: list[tuple[str, str]]

    def get(self, name: str) -> str | None:
        name = name.lower()
        for key, value in self.headers:
            if key.lower() == name:
                return value
        return None

    def values(self, name: str) -> list[str]:
        """Every comma-separated token of every field called `name`, lowercased."""
        name = name.lower()
        tokens: list[str] = []
        for key, value in self.headers:
            if key.lower() == name:
                tokens.extend(part.strip().lower() for part in value.split(",") if part.strip())
        return tokens

    def remove(self, *names: str) -> None:
        dropped = {name.lower() for name in names}
        self.headers = [(key, value) for key, value in self.headers if key.lower() not in dropped]

    def put(self, name: str, value: str, *, first: bool = False) -> None:
        """Set `name` to `value`, in place of any fields of that name (`first`: as the first field)."""
        self.remove(name)
        if first:
            self.headers.insert(0, (name, value))
        else:
            self.headers.append((name, value))

    def encode(self) -> bytes:
        lines = [self.start, *(f"{key}: {value}" for key, value in self.headers), "", ""]
        return "\r\n".join(lines).encode("latin-1")

    @property
    def version(self) -> str:
        """HTTP/1.0 or HTTP/1.1, from the request line's end or the status line's start."""
        parts = self.start.split(" ")
        return parts[-1] if parts[-1].startswith("HTTP/") else parts[0]

    def wants_close(self) -> bool:
        tokens = self.values("connection")
        if self.version == "HTTP/1.0":
            return "keep-alive" not in tokens
        return "close" in tokens


async def read_head(reader: asyncio.StreamReader) -> Head | None:
    """The next message head, or None when the peer closed before sending a byte of it."""
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise ProtocolError(400, "the connection closed in the middle of a message head") from None
    except asyncio.LimitOverrunError:
        raise ProtocolError(431, f"message head over {MAX_HEAD_BYTES} bytes") from None
    lines = raw.decode("latin-1").split("\r\n")
    while lines and not lines[0]:  # RFC 9112 2.2: ignore empty lines before a request line
        lines.pop(0)
    if not lines:
        return None
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise ProtocolError(400, f"malformed header line {line[:40]!r}")
        headers.append((name, value.strip()))
    return Head(lines[0], headers)


def request_framing(head: Head) -> tuple[str, int]:
    """How a request's body is delimited: (framing, length)."""
    if head.values("transfer-encoding"):
        if head.values("transfer-encoding")[-1] != "chunked":
            raise ProtocolError(400, "a request's transfer coding must end with chunked")
        return CHUNKED, 0
    length = _content_length(head)
    return (BY_LENGTH, length) if length else (NO_BODY, 0)


def response_framing(head: Head, request_method: str) -> tuple[str, int]:
    """How a response's body is delimited (RFC 9112 6.3)."""
    status = status_of(head)
    if request_method == "HEAD" or 100 <= status < 200 or status in (204, 304):
        return NO_BODY, 0
    if head.values("transfer-encoding"):
        return (CHUNKED, 0) if head.values("transfer-encoding")[-1] == "chunked" else (UNTIL_CLOSE, 0)
    if head.get("content-length") is not None:
        length = _content_length(head)
        return (BY_LENGTH, length) if length else (NO_BODY, 0)
    return UNTIL_CLOSE, 0


def status_of(head: Head) -> int:
    parts = head.start.split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit() or not parts[0].startswith("HTTP/"):
        raise ProtocolError(502, f"the server sent no status line ({head.start[:40]!r})")
    return int(parts[1])


def _content_length(head: Head) -> int:
    values = {value.strip() for key, value in head.headers if key.lower() == "content-length"}
    if not values:
        return 0
    if len(values) != 1 or not next(iter(values)).isdigit():
        raise ProtocolError(400, "conflicting or malformed Content-Length")
    return int(next(iter(values)))


async def relay_body(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, framing: tuple[str, int]
) -> None:
    """Copy one body framed as `framing` from `reader` to `writer`, passing each piece on as it comes."""
    kind, length = framing
    if kind == BY_LENGTH:
        await _copy_exactly(reader, writer, length)
    elif kind == CHUNKED:
        await _copy_chunked(reader, writer)
    elif kind == UNTIL_CLOSE:
        while block := await reader.read(BLOCK):
            writer.write(block)
            await writer.drain()


async def _copy_exactly(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, length: int) -> None:
    remaining = length
    while remaining:
        block = await reader.read(min(remaining, BLOCK))
        if not block:
            raise ConnectionResetError("the body ended before its declared length")
        writer.write(block)
        remaining -= len(block)
        await writer.drain()


async def _copy_chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Chunks go on as they are, size lines included, so the receiver sees the sender's framing."""
    while True:
        size_line = await reader.readline()
        if not size_line.endswith(b"\n"):
            raise ConnectionResetError("the chunked body ended early")
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise ProtocolError(400, "malformed chunk size") from None
        writer.write(size_line)
        if size == 0:
            while True:  # trailer fields, then the empty line that ends the body
                line = await reader.readline()
                if not line.endswith(b"\n"):
                    raise ConnectionResetError("the chunked body ended early")
                writer.write(line)
                if line in (b"\r\n", b"\n"):
                    await writer.drain()
                    return
        await _copy_exactly(reader, writer, size)
        end = await reader.readexactly(2)
        if end != b"\r\n":
            raise ProtocolError(400, "a chunk did not end with CRLF")
        writer.write(end)
        await writer.drain()
