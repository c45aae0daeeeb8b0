"""The little of Thrift's binary protocol X Chat's wire needs: reading a client's struct far enough to
know it is whole (and to read a signature's strings), and writing the platform's `MessageEvent` around
the clients' blobs. Pure; no IDL, no generated code.

The platform's `MessageEvent` (as X Chat's published Thrift definitions number it): 1 sequence_id,
2 message_id, 3 sender_id, 4 conversation_id, 5 conversation_token, 6 created_at_msec, 7 detail (the
`MessageEventDetail` union: 1 a message, 3 a key change, 4 a group change), 9 message_event_signature
(1 signature, 2 public_key_version, 3 signature_version, 4 signing_public_key, 5 the signing keys
list of {1 member_id, 2 public_key_version, 3 signing_public_key}), 10 previous_sequence_id."""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Mapping, Sequence
from typing import Any

STOP, BOOL, BYTE, DOUBLE, I16, I32, I64, STRING, STRUCT, MAP, SET, LIST = (
    0,
    2,
    3,
    4,
    6,
    8,
    10,
    11,
    12,
    13,
    14,
    15,
)
_FIXED = {BOOL: 1, BYTE: 1, DOUBLE: 8, I16: 2, I32: 4, I64: 8}
MAX_DEPTH = 32

DETAIL_MESSAGE_CREATE = 1
SIGNATURE_FIELDS = {1: "signature", 2: "public_key_version", 3: "signature_version", 4: "signing_public_key"}
SIGNING_KEY_FIELDS = {1: "member_id", 2: "public_key_version", 3: "signing_public_key"}


class Malformed(ValueError):
    """Bytes that are not one whole Thrift struct."""


def b64decode(value: str) -> bytes:
    """Standard or URL-safe base64, padded or not (clients send either)."""
    text = value.strip().replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise Malformed("not base64") from None


def b64encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# ---- reading --------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, count: int) -> bytes:
        if count < 0 or self.at + count > len(self.data):
            raise Malformed("truncated")
        out = self.data[self.at : self.at + count]
        self.at += count
        return out

    def i32(self) -> int:
        return int(struct.unpack(">i", self.take(4))[0])

    def value(self, kind: int, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise Malformed("nested too deep")
        if kind in _FIXED:
            raw = self.take(_FIXED[kind])
            return raw[0] != 0 if kind == BOOL else raw
        if kind == STRING:
            return self.take(self.i32())
        if kind == STRUCT:
            return self.struct(depth + 1)
        if kind in (LIST, SET):
            item, size = self.take(1)[0], self.i32()
            return [self.value(item, depth + 1) for _ in range(self._count(size))]
        if kind == MAP:
            key, item = self.take(1)[0], self.take(1)[0]
            size = self._count(self.i32())
            return [(self.value(key, depth + 1), self.value(item, depth + 1)) for _ in range(size)]
        raise Malformed(f"unknown type {kind}")

    def _count(self, size: int) -> int:
        if size < 0 or size > len(self.data) - self.at:  # every element takes at least a byte
            raise Malformed("bad size")
        return size

    def struct(self, depth: int = 0) -> dict[int, Any]:
        fields: dict[int, Any] = {}
        while True:
            kind = self.take(1)[0]
            if kind == STOP:
                return fields
            (field_id,) = struct.unpack(">h", self.take(2))
            fields[int(field_id)] = self.value(kind, depth)


def read_struct(data: bytes) -> dict[int, Any]:
    """The fields of one whole struct (`Malformed` when the bytes are anything else)."""
    reader = _Reader(data)
    fields = reader.struct()
    if reader.at != len(data):
        raise Malformed("trailing bytes")
    return fields


def _text(value: Any) -> str | None:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else None


def signature_fields(data: bytes) -> dict[str, Any]:
    """A `MessageEventSignature` as the JSON the activity events show it (strings present only)."""
    fields = read_struct(data)
    out: dict[str, Any] = {}
    for number, name in SIGNATURE_FIELDS.items():
        text = _text(fields.get(number))
        if text is not None:
            out[name] = text
    keys = fields.get(5)
    if isinstance(keys, list):
        out["message_signing_key_info_list"] = [
            {
                name: _text(item.get(n))
                for n, name in SIGNING_KEY_FIELDS.items()
                if _text(item.get(n)) is not None
            }
            for item in keys
            if isinstance(item, dict)
        ]
    return out


# ---- writing --------------------------------------------------------------------------------------


def _header(kind: int, field_id: int) -> bytes:
    return struct.pack(">bh", kind, field_id)


def string_field(field_id: int, value: str) -> bytes:
    raw = value.encode("utf-8")
    return _header(STRING, field_id) + struct.pack(">i", len(raw)) + raw


def struct_field(field_id: int, body: bytes) -> bytes:
    """A struct-valued field from a struct's serialized bytes (its fields and STOP)."""
    return _header(STRUCT, field_id) + body


def signature_struct(signature: Mapping[str, Any]) -> bytes:
    """A `MessageEventSignature` from its JSON form (an action signature's `message_event_signature`)."""
    out = b""
    for number, name in SIGNATURE_FIELDS.items():
        if isinstance(signature.get(name), str):
            out += string_field(number, signature[name])
    keys = signature.get("message_signing_key_info_list")
    if isinstance(keys, list):
        items = b""
        for item in keys:
            entry = b"".join(
                string_field(n, item[name])
                for n, name in SIGNING_KEY_FIELDS.items()
                if isinstance(item, dict) and isinstance(item.get(name), str)
            )
            items += entry + bytes([STOP])
        out += _header(LIST, 5) + bytes([STRUCT]) + struct.pack(">i", len(keys)) + items
    return out + bytes([STOP])


def message_event(
    *,
    sequence_id: int,
    message_id: str,
    sender_id: int,
    conversation_id: str,
    created_at_ms: int,
    detail: bytes,
    signature: bytes | None,
    conversation_token: str | None = None,
    previous_sequence_id: int | None = None,
) -> bytes:
    """The platform's `MessageEvent`: `detail` and `signature` are whole structs, spliced as sent."""
    parts: Sequence[bytes] = (
        string_field(1, str(sequence_id)),
        string_field(2, message_id),
        string_field(3, str(sender_id)),
        string_field(4, conversation_id),
        string_field(5, conversation_token) if conversation_token else b"",
        string_field(6, str(created_at_ms)),
        struct_field(7, detail),
        struct_field(9, signature) if signature is not None else b"",
        string_field(10, str(previous_sequence_id)) if previous_sequence_id is not None else b"",
    )
    return b"".join(parts) + bytes([STOP])


def message_create_detail(create_event: bytes) -> bytes:
    """The `MessageEventDetail` union holding a client's `MessageCreateEvent`."""
    return struct_field(DETAIL_MESSAGE_CREATE, create_event) + bytes([STOP])
