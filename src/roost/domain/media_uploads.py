"""Media upload: chunked sessions (INIT → APPEND… → FINALIZE → STATUS), one-shot uploads, alt text
and subtitles, the bytes served back, and whether a media id may be attached to a post or message.

The bytes go to the database one segment at a time and are read back the same way. Video and
animated GIFs uploaded with their category are processed after FINALIZE: the state follows the
roost clock (`pending` for a second, then `in_progress` with a percentage, then `succeeded`, or
`failed` when the bytes are not of the declared type)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock, iso_ms
from roost.core.ids import MAX_SNOWFLAKE, SnowflakeGenerator
from roost.core.records import Row
from roost.domain import media_files as rules
from roost.domain.media_objects import analytics_row
from roost.storage import media_uploads as upload_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor
from roost.storage.media_uploads import MediaUploadStore

NOT_FOUND = "BadRequest: Not found"
SIZE_MISMATCH = "Segments do not add up to provided total file size."
UNRECOGNIZED = "media type unrecognized."
DM_MAX_AGE_MS = 86_400_000
# X Chat's uploads are ciphertext: no media type to check, never a post's or a DM's media.
ENCRYPTED_TYPE = "application/octet-stream"
ENCRYPTED_CATEGORY = "chat_encrypted"
PENDING_S = 1  # seconds a processed upload waits before processing starts
ONE_SHOT_SEGMENT = 1024 * 1024  # a one-shot upload is stored in segments of this size
# A video's preview: the platform makes one from a frame; roost answers a 1×1 grey PNG.
PREVIEW_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a0a5c4a30000000049454e44ae426082"
)


def too_large(limit: int) -> errors.ApiError:
    return errors.media_refused(f"File size exceeds {limit} bytes.")


@dataclass(frozen=True, slots=True)
class InitRequest:
    media_type: str | None
    total_bytes: int
    category: str | None = None
    additional_owners: tuple[int, ...] = ()
    shared: bool = False


@dataclass(frozen=True, slots=True)
class MediaFile:
    content_type: str
    size: int
    chunks: AsyncIterator[bytes]

    @classmethod
    def whole(cls, content_type: str, data: bytes) -> MediaFile:
        """A file already in memory, as one chunk."""
        return cls(content_type, len(data), _once(data))


def _owners(value: Any) -> tuple[int, ...]:
    """additional_owners: a list of id strings (v2 JSON) or one comma-separated string (forms)."""
    if value is None or value == "":
        return ()
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or len(items) > 100:
        raise errors.media_refused("additional_owners: up to 100 user ids are expected")
    owners = []
    for item in items:
        text = str(item).strip()
        if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) > MAX_SNOWFLAKE:
            raise errors.media_refused(f"additional_owners: [{text}] is not a user id")
        owners.append(int(text))
    return tuple(owners)


def init_request(
    media_type: Any, total_bytes: Any, category: Any, additional_owners: Any, shared: Any = False
) -> InitRequest:
    """An INIT request from loosely typed values (JSON, form or multipart fields), checked."""
    if isinstance(total_bytes, str):
        total_bytes = int(total_bytes) if total_bytes.strip().isdigit() else None
    if not isinstance(total_bytes, int) or isinstance(total_bytes, bool) or total_bytes < 0:
        raise errors.media_refused("total_bytes: a whole number of bytes is required")
    if media_type is not None and (not isinstance(media_type, str) or media_type not in rules.MEDIA_TYPES):
        raise errors.media_refused(UNRECOGNIZED)
    normal = None
    if category not in (None, ""):
        normal = rules.category_of(str(category))
        if normal is None:
            raise errors.media_refused(f"media_category: [{category}] is not a media category")
    if isinstance(shared, str):
        shared = shared.lower() in ("true", "1", "t")
    return InitRequest(media_type, total_bytes, normal, _owners(additional_owners), bool(shared))


def decode_base64(value: str) -> bytes:
    try:
        return base64.b64decode(value, validate=False)
    except (binascii.Error, ValueError):
        raise errors.media_refused("media: the value is not valid base64") from None


class MediaUploads:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        store: MediaUploadStore,
        base_url: str,
        processing_s: float = 3.0,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._store = store
        self._base_url = base_url.rstrip("/")
        self._processing_ms = int(processing_s * 1000)

    # ---- the session ------------------------------------------------------------------------

    async def initialize(self, user_id: int, request: InitRequest) -> dict[str, Any]:
        media_type = request.media_type
        if media_type is None:
            raise errors.media_refused(UNRECOGNIZED)
        category = request.category
        if category is not None and not rules.fits_category(media_type, category):
            raise errors.media_refused(UNRECOGNIZED)
        kind = rules.kind_of(media_type, request.category)
        if request.total_bytes > kind.limit:
            raise too_large(kind.limit)
        now = self._clock.now_ms()
        media_id = self._ids.next_id()
        row = {
            "id": media_id,
            "media_key": f"{kind.key_prefix}_{media_id}",
            "owner_id": user_id,
            "additional_owners": jsonio.dumps([str(i) for i in request.additional_owners]).decode()
            if request.additional_owners
            else None,
            "shared": 1 if request.shared else 0,
            "media_type": media_type,
            "category": category or "",  # as named at INIT ("": none named)
            "processed": 1 if kind.processed else 0,
            "total_bytes": request.total_bytes,
            "state": "uploading",
            "created_at": now,
            "expires_at": now + rules.EXPIRES_AFTER_S * 1000,
            "finalized_at": None,
            "failure": None,
            "width": None,
            "height": None,
            "used_at": None,
            "alt_text": None,
            "subtitles": None,
        }
        async with self._db.transaction() as tx:
            await upload_rows.insert_upload(tx, row)
        return {"id": media_id, "media_key": row["media_key"], "expires_after_secs": rules.EXPIRES_AFTER_S}

    async def append(self, user_id: int, media_id: int, index: int, data: Any) -> int:
        """Store one segment; returns the session's expiry (epoch seconds)."""
        if not 0 <= index <= rules.MAX_SEGMENT_INDEX:
            raise errors.media_refused("Segment index must be between 0 and 999 inclusive.")
        if len(data) > rules.SEGMENT_LIMIT:
            raise too_large(rules.SEGMENT_LIMIT)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await self._session(tx, user_id, media_id, now)
            if row["state"] != "uploading":
                raise errors.media_refused("BadRequest: Media id is already finalized.")
            await upload_rows.put_segment(tx, media_id, index, data)
        return int(row["expires_at"] // 1000)

    async def finalize(self, user_id: int, media_id: int) -> dict[str, Any]:
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await self._session(tx, user_id, media_id, now)
            if row["state"] != "uploading":
                raise errors.media_refused("BadRequest: Media id is already finalized.")
            count, last, size = await upload_rows.segment_totals(tx, media_id)
            if count == 0 or count != last + 1 or size != row["total_bytes"]:
                raise errors.media_refused(SIZE_MISMATCH)
            row = await self._complete(tx, row, now)
        return self._info(row, now)

    async def status(self, user_id: int, media_id: int) -> dict[str, Any]:
        now = self._clock.now_ms()
        row = await self._store.upload(media_id)
        if row is None or not self._may_read(row, user_id) or self._expired(row, now):
            raise errors.media_refused(NOT_FOUND)
        if row["state"] != "finalized" or not self._processed(row):
            raise errors.media_refused(NOT_FOUND)  # only processed media have a status
        return self._info(row, now)

    async def upload(self, user_id: int, request: InitRequest, data: Any) -> dict[str, Any]:
        """A one-shot upload: the session, its bytes and FINALIZE in one transaction."""
        media_type = request.media_type or rules.sniff_type(bytes(data[:64]))
        if media_type is None and request.category == "subtitles":
            media_type = "text/vtt" if bytes(data[:6]) == b"WEBVTT" else "text/srt"
        if media_type is None:
            raise errors.media_refused(UNRECOGNIZED)
        request = InitRequest(
            media_type, len(data), request.category, request.additional_owners, request.shared
        )
        created = await self.initialize(user_id, request)
        media_id = created["id"]
        now = self._clock.now_ms()
        view = memoryview(data)
        async with self._db.transaction() as tx:
            row = await self._session(tx, user_id, media_id, now)
            for index, start in enumerate(range(0, max(len(view), 1), ONE_SHOT_SEGMENT)):
                await upload_rows.put_segment(tx, media_id, index, view[start : start + ONE_SHOT_SEGMENT])
            row = await self._complete(tx, row, now)
        return self._info(row, now)

    async def initialize_encrypted(self, user_id: int, total_bytes: int, limit: int) -> dict[str, Any]:
        """A session for an encrypted chat upload: the same segments, no type (the bytes are ciphertext)."""
        if total_bytes > limit:
            raise too_large(limit)
        now = self._clock.now_ms()
        media_id = self._ids.next_id()
        expires_at = now + rules.EXPIRES_AFTER_S * 1000
        row = {
            **dict.fromkeys(("additional_owners", "finalized_at", "failure", "width", "height", "used_at")),
            **dict.fromkeys(("alt_text", "subtitles")),
            "id": media_id,
            "media_key": f"0_{media_id}",
            "owner_id": user_id,
            "shared": 0,
            "media_type": ENCRYPTED_TYPE,
            "category": ENCRYPTED_CATEGORY,
            "processed": 0,
            "total_bytes": total_bytes,
            "state": "uploading",
            "created_at": now,
            "expires_at": expires_at,
        }
        async with self._db.transaction() as tx:
            await upload_rows.insert_upload(tx, row)
        return {"id": media_id, "expires_at": expires_at // 1000}

    async def finalize_encrypted(self, user_id: int, media_id: int, parts: int) -> None:
        """FINALIZE of an encrypted upload: `parts` segments adding up to the declared size; kept (a
        message may name it any time later)."""
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await self._session(tx, user_id, media_id, now)
            if row["state"] != "uploading":
                raise errors.media_refused("BadRequest: Media id is already finalized.")
            count, last, size = await upload_rows.segment_totals(tx, media_id)
            if count != parts or count != last + 1 or size != row["total_bytes"]:
                raise errors.media_refused(SIZE_MISMATCH)
            await upload_rows.finalize(
                tx,
                media_id,
                {
                    "state": "finalized",
                    "finalized_at": now,
                    "expires_at": row["expires_at"],
                    **dict.fromkeys(("failure", "width", "height")),
                },
            )
            await upload_rows.mark_used(tx, media_id, now)

    # ---- metadata ---------------------------------------------------------------------------

    async def set_alt_text(self, user_id: int, media_id: int, text: str | None) -> None:
        if text is not None and len(text) > rules.ALT_TEXT_MAX:
            raise errors.media_refused(f"alt_text: must be at most {rules.ALT_TEXT_MAX} characters long")
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            await self._session(tx, user_id, media_id, now, finalized_too=True)
            await upload_rows.set_alt_text(tx, media_id, text)

    async def set_subtitles(self, user_id: int, media_id: int, subtitles: list[dict[str, Any]]) -> None:
        """Attach subtitle uploads to a video (the list replaces entries of the same language)."""
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            video = await self._session(tx, user_id, media_id, now, finalized_too=True)
            kept = [s for s in jsonio.loads(video["subtitles"] or "[]")]
            for item in subtitles:
                track = await self._session(tx, user_id, int(item["id"]), now, finalized_too=True)
                if not track["media_type"].startswith("text/"):
                    raise errors.media_refused(f"id: [{item['id']}] is not a subtitles upload")
                kept = [s for s in kept if s["language_code"] != item["language_code"]]
                kept.append(item)
            await upload_rows.set_subtitles(tx, media_id, jsonio.dumps(kept).decode())

    async def remove_subtitles(self, user_id: int, media_id: int, language_codes: Sequence[str]) -> None:
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            video = await self._session(tx, user_id, media_id, now, finalized_too=True)
            kept = [
                s
                for s in jsonio.loads(video["subtitles"] or "[]")
                if s["language_code"] not in language_codes
            ]
            await upload_rows.set_subtitles(tx, media_id, jsonio.dumps(kept).decode() if kept else None)

    async def named_category(self, media_id: int) -> bool:
        """Whether the upload named its category at INIT (v1.1 shows a media_key only then)."""
        row = await self._store.upload(media_id)
        return row is not None and bool(row["category"])

    async def analytics(
        self, user_id: int, keys: Sequence[str], start_ms: int, end_ms: int, granularity: str
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Analytics rows for the user's own media among `keys`, with not-found items for the rest."""
        if end_ms <= start_ms:
            message = "The `end_time` must be after the `start_time`"
            raise errors.invalid_request([errors.param_error("end_time", iso_ms(end_ms), message)])
        rows, problems = [], []
        for key in dict.fromkeys(keys):
            media_id = int(key.split("_", 1)[1])
            row = await self._store.upload(media_id) if media_id <= MAX_SNOWFLAKE else None
            if row is None or row["media_key"] != key or not self._may_read(row, user_id):
                problems.append(errors.resource_not_found_item("media", "media_keys", key))
                continue
            rows.append(analytics_row(key, start_ms, end_ms, granularity))
        return rows, problems

    # ---- attaching --------------------------------------------------------------------------

    async def attachable(self, tx: Executor, media_id: int, user_id: int) -> bool | None:
        """Whether the user may attach this uploaded media now (owner or additional owner, not
        expired, processing succeeded); marks it used, so it no longer expires. None: the media were
        not uploaded (imported, demo), so not this service's to judge."""
        row = await upload_rows.upload_tx(tx, media_id)
        if row is None:
            return None
        if row["category"] == ENCRYPTED_CATEGORY:
            return False
        now = self._clock.now_ms()
        owners = jsonio.loads(row["additional_owners"]) if row["additional_owners"] else []
        if row["owner_id"] != user_id and str(user_id) not in owners and not row["shared"]:
            return False
        if row["state"] != "finalized" or self._expired(row, now):
            return False
        if self._processed(row) and self._processing(row, now)["state"] != "succeeded":
            return False
        await upload_rows.mark_used(tx, media_id, now)
        return True

    async def dm_attachable(self, media_id: int, sender_id: int) -> bool:
        """A message attachment must be the sender's own upload, less than 24 hours old, processed.
        Media that were not uploaded (imported, demo) pass."""
        row = await self._store.upload(media_id)
        if row is None:
            return True
        if row["category"] == ENCRYPTED_CATEGORY:
            return False
        now = self._clock.now_ms()
        if row["owner_id"] != sender_id or row["state"] != "finalized":
            return False
        if now - row["created_at"] >= DM_MAX_AGE_MS:
            return False
        return not self._processed(row) or self._processing(row, now)["state"] == "succeeded"

    # ---- the bytes --------------------------------------------------------------------------

    async def file(self, name: str) -> MediaFile | None:
        """The file a media URL names (`{id}.{ext}`, `{id}_preview.png`), or None."""
        stem, _, extension = name.partition(".")
        preview = stem.endswith("_preview")
        stem = stem.removesuffix("_preview")
        if not stem.isdigit() or len(stem) > 19:
            return None
        row = await self._store.upload(int(stem))
        if row is None or row["state"] != "finalized" or self._expired(row, self._clock.now_ms()):
            return None
        if preview:
            return MediaFile.whole("image/png", PREVIEW_PNG) if extension == "png" else None
        if extension != rules.EXTENSIONS.get(row["media_type"]):
            return None
        return MediaFile(row["media_type"], row["total_bytes"], self._chunks(row["id"]))

    async def attached_file(self, media_id: int) -> MediaFile | None:
        """The bytes of an uploaded media attached somewhere (a DM), or None when the media is not an
        upload (the demo's and imported media have no bytes)."""
        row = await self._store.upload(media_id)
        if row is None or row["state"] != "finalized":
            return None
        return MediaFile(row["media_type"], row["total_bytes"], self._chunks(row["id"]))

    async def _chunks(self, media_id: int) -> AsyncIterator[bytes]:
        for index, _ in await self._store.segment_sizes(media_id):
            data = await self._store.segment(media_id, index)
            if data is not None:
                yield data

    # ---- helpers ----------------------------------------------------------------------------

    async def _session(
        self, tx: Executor, user_id: int, media_id: int, now: int, finalized_too: bool = False
    ) -> Row:
        row = await upload_rows.upload_tx(tx, media_id)
        if row is None or row["owner_id"] != user_id or self._expired(row, now):
            raise errors.media_refused(NOT_FOUND)
        if not finalized_too and row["state"] not in ("uploading", "finalized"):
            raise errors.media_refused(NOT_FOUND)
        return row

    @staticmethod
    def _expired(row: Row, now: int) -> bool:
        return row["used_at"] is None and now >= row["expires_at"]

    @staticmethod
    def _processed(row: Row) -> bool:
        return bool(row["processed"])

    async def _head(self, tx: Executor, media_id: int) -> bytes:
        """The first bytes of the file (up to `HEADER_BYTES`), segment by segment."""
        head = b""
        index = 0
        while len(head) < rules.HEADER_BYTES:
            value = await upload_rows.segment_tx(tx, media_id, index)
            if value is None:
                break
            head += bytes(value[: rules.HEADER_BYTES - len(head)])
            index += 1
        return head

    async def _complete(self, tx: Executor, row: Row, now: int) -> Row:
        """FINALIZE: check the bytes, keep the image's size, record the media object."""
        head = await self._head(tx, row["id"])
        kind = rules.kind_of(row["media_type"], row["category"] or None)
        processed = bool(row["processed"])
        failure = None
        width = height = None
        if not rules.matches_type(row["media_type"], head):
            if not processed:
                raise errors.media_refused(UNRECOGNIZED)
            message = "Unsupported video format" if kind.media_type == "video" else "file is invalid"
            failure = jsonio.dumps({"code": 1, "name": "InvalidMedia", "message": message}).decode()
        elif row["media_type"].startswith("image/"):
            size = rules.image_size(head)
            if size is not None:
                width, height = size
        values = {
            "state": "finalized",
            "finalized_at": now,
            "expires_at": now + rules.EXPIRES_AFTER_S * 1000,
            "failure": failure,
            "width": width,
            "height": height,
        }
        await upload_rows.finalize(tx, row["id"], values)
        row = {**row, **values}
        if kind.media_type is not None:
            await user_rows.insert_media(tx, self._media_object(row, kind.media_type))
        return row

    def _media_object(self, row: Row, media_type: str) -> dict[str, Any]:
        base = f"{self._base_url}/media/{row['id']}"
        url = f"{base}.{rules.EXTENSIONS[row['media_type']]}"
        preview = url if media_type != "video" else f"{base}_preview.png"
        variants = None
        if media_type != "photo":
            variant: dict[str, Any] = {"content_type": row["media_type"], "url": url}
            if media_type == "animated_gif":
                variant = {"bit_rate": 0, **variant}
            variants = jsonio.dumps([variant]).decode()
        return {
            "media_key": row["media_key"],
            "id": row["id"],
            "type": media_type,
            "url": url if media_type == "photo" else None,
            "preview_image_url": None if media_type == "photo" else preview,
            "width": row["width"],
            "height": row["height"],
            "duration_ms": None,
            "alt_text": row["alt_text"],
            "variants": variants,
            "view_count": None,
            "owner_id": row["owner_id"],
            "created_at": row["created_at"],
        }

    def _may_read(self, row: Row, user_id: int) -> bool:
        owners = jsonio.loads(row["additional_owners"]) if row["additional_owners"] else []
        return row["owner_id"] == user_id or str(user_id) in owners

    def _processing(self, row: Row, now: int) -> dict[str, Any]:
        elapsed = now - (row["finalized_at"] or now)
        if elapsed < PENDING_S * 1000:
            return {"state": "pending", "check_after_secs": PENDING_S}
        working = elapsed - PENDING_S * 1000
        if working < self._processing_ms:
            percent = min(99, max(1, working * 100 // max(self._processing_ms, 1)))
            return {"state": "in_progress", "check_after_secs": 1, "progress_percent": int(percent)}
        if row["failure"]:
            return {"state": "failed", "progress_percent": 100, "error": jsonio.loads(row["failure"])}
        return {"state": "succeeded", "progress_percent": 100}

    def _info(self, row: Row, now: int) -> dict[str, Any]:
        """What FINALIZE, STATUS and a one-shot upload answer (the dialects shape it)."""
        info: dict[str, Any] = {
            "id": row["id"],
            "media_key": row["media_key"],
            "size": row["total_bytes"],
            "expires_after_secs": max(0, (row["expires_at"] - now) // 1000),
        }
        media_type = row["media_type"]
        if media_type.startswith("image/"):
            image: dict[str, Any] = {"image_type": media_type}
            if row["width"] is not None:
                image.update(w=row["width"], h=row["height"])
            info["image"] = image
        elif media_type.startswith("video/"):
            info["video"] = {"video_type": media_type}
        if self._processed(row):
            processing = self._processing(row, now)
            info["processing_info"] = processing
            if processing["state"] == "failed":
                info.pop("expires_after_secs")
        return info


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data
