"""Small real media files for upload tests, made in code (no image library needed)."""

from __future__ import annotations

import struct
import zlib


def png(width: int, height: int, extra: int = 0) -> bytes:
    """A valid grey PNG of the given size; `extra` bytes of an ancillary chunk make it larger."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    body = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    if extra:
        body += chunk(b"tEXt", b"c\x00" + b"x" * extra)
    body += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def gif(width: int, height: int, extra: int = 0) -> bytes:
    """A 1-colour GIF89a of the given size, padded with a comment extension of `extra` bytes."""
    head = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    comment = b""
    remaining = extra
    if remaining:
        comment = b"\x21\xfe"
        while remaining > 0:
            size = min(255, remaining)
            comment += bytes([size]) + b"c" * size
            remaining -= size
        comment += b"\x00"
    image = b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0) + b"\x02\x02\x44\x01\x00"
    return head + comment + image + b"\x3b"


def jpeg_header(width: int, height: int) -> bytes:
    """The start of a baseline JPEG (SOI, APP0, SOF0) naming its size, then filler: enough for the
    size to be read from the header."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"


def mp4(size: int) -> bytes:
    """Bytes that start like an MP4 file (an `ftyp` box), padded to `size`."""
    ftyp = struct.pack(">I", 24) + b"ftypisom" + b"\x00\x00\x02\x00" + b"isomiso2"
    return ftyp + b"\x00" * max(0, size - len(ftyp))
