"""Encrypted chat media: uploads of a conversation's members through the media upload machinery
(`domain/media_uploads.py`: the same sessions, segments and expiry; the bytes are ciphertext, so no
type is checked), addressed by a `media_hash_key` that only the conversation's members can download."""

from __future__ import annotations

import hashlib
from typing import Any

from roost.core import errors
from roost.core.clock import Clock
from roost.domain import media_files as rules
from roost.domain.chat import canonical, member_conversation
from roost.domain.media_uploads import NOT_FOUND, MediaFile, MediaUploads
from roost.storage import chat as chat_rows
from roost.storage.db import Database

CHAT_MEDIA_LIMIT = rules.VIDEO_LIMIT  # not published; the largest upload roost takes (docs/chat.md)
FIELDS_INIT = frozenset({"conversation_id", "total_bytes"})
FIELDS_FINALIZE = frozenset({"conversation_id", "media_hash_key", "message_id", "num_parts", "ttl_msec"})
FIELDS_APPEND = frozenset({"conversation_id", "media", "media_hash_key", "segment_index"})


def _closed(body: dict[str, Any], allowed: frozenset[str], required: tuple[str, ...]) -> None:
    extra = sorted(set(body) - allowed)
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    for name in required:
        if name not in body:
            raise errors.invalid_body(f"$.{name}: is missing but it is required")


def _conversation_text(body: dict[str, Any]) -> str:
    value = body["conversation_id"]
    if not isinstance(value, str):
        raise errors.invalid_body("$.conversation_id: string expected")
    return value


def _media_not_found(hash_key: str) -> errors.ApiError:
    return errors.problem(
        "resource-not-found",
        "Not Found Error",
        f"Could not find media with media_hash_key: [{hash_key}].",
        404,
        value=hash_key,
        resource_type="media",
        parameter="media_hash_key",
        resource_id=hash_key,
    )


class ChatMedia:
    def __init__(self, db: Database, clock: Clock, uploads: MediaUploads) -> None:
        self._db = db
        self._clock = clock
        self._uploads = uploads

    async def initialize(self, caller: int, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise errors.invalid_body("$: a JSON object is expected")
        _closed(body, FIELDS_INIT, ("conversation_id", "total_bytes"))
        total = body["total_bytes"]
        if not isinstance(total, int) or isinstance(total, bool) or total < 0:
            raise errors.invalid_body("$.total_bytes: a whole number of bytes is required")
        raw = _conversation_text(body)
        async with self._db.transaction() as tx:
            conversation = await member_conversation(tx, caller, raw)
        session = await self._uploads.initialize_encrypted(caller, total, CHAT_MEDIA_LIMIT)
        # A key naming the upload: letters and digits, as the download path's pattern wants.
        hash_key = hashlib.sha256(f"{conversation['id']}/{session['id']}".encode()).hexdigest()[:40]
        async with self._db.transaction() as tx:
            row = {
                "media_hash_key": hash_key,
                "conversation_id": conversation["id"],
                "upload_id": session["id"],
                "owner_id": caller,
                "created_at": self._clock.now_ms(),
            }
            await chat_rows.insert_media(tx, row)
        return {
            "data": {
                "session_id": str(session["id"]),
                "media_hash_key": hash_key,
                "conversation_id": conversation["id"],
            }
        }

    async def _session(self, caller: int, session: str, body: dict[str, Any]) -> int:
        """The upload a session id names, if the body's conversation and hash key are its own."""
        raw, hash_key = _conversation_text(body), body["media_hash_key"]
        if (
            not session.isascii()
            or not session.isdigit()
            or len(session) > 19
            or not isinstance(hash_key, str)
        ):
            raise errors.media_refused(NOT_FOUND)
        async with self._db.transaction() as tx:
            conversation_id = canonical(caller, raw)
            row = await chat_rows.media(tx, hash_key)
            if row is None or row["upload_id"] != int(session) or row["owner_id"] != caller:
                raise errors.media_refused(NOT_FOUND)
            if row["conversation_id"] != conversation_id:
                raise errors.media_refused(NOT_FOUND)
            await member_conversation(tx, caller, raw)
        return int(session)

    async def append(self, caller: int, session: str, fields: dict[str, Any], index: int, data: Any) -> int:
        _closed(fields, FIELDS_APPEND, ("conversation_id", "media_hash_key"))
        upload_id = await self._session(caller, session, fields)
        return await self._uploads.append(caller, upload_id, index, data)

    async def finalize(self, caller: int, session: str, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise errors.invalid_body("$: a JSON object is expected")
        _closed(body, FIELDS_FINALIZE, ("conversation_id", "media_hash_key", "num_parts"))
        parts = body["num_parts"]
        if not isinstance(parts, str) or not parts.isascii() or not parts.isdigit():
            raise errors.invalid_body("$.num_parts: a numeric string is expected")
        upload_id = await self._session(caller, session, body)
        await self._uploads.finalize_encrypted(caller, upload_id, int(parts))
        return {"data": {"success": True}}

    async def download(self, caller: int, raw: str, hash_key: str) -> MediaFile:
        async with self._db.transaction() as tx:
            conversation = await member_conversation(tx, caller, raw)
            row = await chat_rows.media(tx, hash_key)
        if row is None or row["conversation_id"] != conversation["id"]:
            raise _media_not_found(hash_key)
        file = await self._uploads.attached_file(int(row["upload_id"]))
        if file is None:
            raise _media_not_found(hash_key)
        return file
