"""Request bodies that are not JSON: multipart/form-data and url-encoded forms, for the operations
that take files (media upload). The body has been read under the operation's size cap; parts are
views into it, so a file part is never copied before it is stored."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl


@dataclass(frozen=True, slots=True)
class Part:
    name: str
    data: memoryview
    filename: str | None = None
    content_type: str | None = None

    def text(self) -> str:
        return bytes(self.data).decode("utf-8", "replace")


@dataclass(slots=True)
class RawBody:
    """A body handed to a handler as it came: its content type and bytes."""

    content_type: str
    data: bytes
    _parts: dict[str, Part] | None = field(default=None, repr=False)

    @property
    def media_type(self) -> str:
        return self.content_type.split(";", 1)[0].strip().lower()

    @property
    def is_multipart(self) -> bool:
        return self.media_type == "multipart/form-data"

    @property
    def is_form(self) -> bool:
        return self.media_type == "application/x-www-form-urlencoded"

    @property
    def is_json(self) -> bool:
        return self.media_type.endswith("json")

    def fields(self) -> dict[str, Part]:
        """The body's fields by name (multipart parts or form pairs); the first of a repeated name wins.
        Raises ValueError on a malformed multipart body."""
        if self._parts is None:
            if self.is_multipart:
                self._parts = parse_multipart(self.data, boundary_of(self.content_type))
            elif self.is_form:
                pairs = parse_qsl(self.data.decode("utf-8", "replace"), keep_blank_values=True)
                parts: dict[str, Part] = {}
                for name, value in pairs:
                    parts.setdefault(name, Part(name, memoryview(value.encode())))
                self._parts = parts
            else:
                self._parts = {}
        return self._parts


def boundary_of(content_type: str) -> bytes:
    for item in content_type.split(";")[1:]:
        name, _, value = item.strip().partition("=")
        if name.strip().lower() == "boundary":
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            if value:
                return value.encode("latin-1")
    raise ValueError("multipart body without a boundary")


def parse_multipart(body: bytes, boundary: bytes) -> dict[str, Part]:
    view = memoryview(body)
    delimiter = b"--" + boundary
    parts: dict[str, Part] = {}
    start = body.find(delimiter)
    if start < 0:
        raise ValueError("multipart body without its boundary")
    position = start + len(delimiter)
    while True:
        if body[position : position + 2] == b"--":
            return parts  # the closing delimiter
        if body[position : position + 2] != b"\r\n":
            raise ValueError("malformed multipart delimiter line")
        head_end = body.find(b"\r\n\r\n", position + 2)
        if head_end < 0:
            raise ValueError("multipart part without a blank line after its headers")
        headers = _part_headers(body[position + 2 : head_end])
        data_start = head_end + 4
        data_end = body.find(b"\r\n" + delimiter, data_start)
        if data_end < 0:
            raise ValueError("multipart part without its closing delimiter")
        disposition = headers.get("content-disposition", "")
        params = _disposition(disposition)
        name = params.get("name")
        if name is not None and name not in parts:
            parts[name] = Part(
                name, view[data_start:data_end], params.get("filename"), headers.get("content-type")
            )
        position = data_end + 2 + len(delimiter)


def _part_headers(raw: bytes) -> dict[str, str]:
    headers: dict[str, str] = {}
    for line in raw.decode("utf-8", "replace").split("\r\n"):
        name, _, value = line.partition(":")
        if value:
            headers[name.strip().lower()] = value.strip()
    return headers


def _disposition(value: str) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in value.split(";")[1:]:
        name, _, raw = item.strip().partition("=")
        raw = raw.strip()
        if len(raw) >= 2 and raw[0] == raw[-1] == '"':
            raw = raw[1:-1].replace('\\"', '"')
        params[name.strip().lower()] = raw
    return params
