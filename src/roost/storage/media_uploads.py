"""Media uploads: the session rows and their segments (`schema_media`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete, func, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import media
from roost.storage.schema_media import media_segments, media_uploads
from roost.storage.statements import insert_all

_insert_upload = insert_all(media_uploads)
_upload = select(media_uploads).where(media_uploads.c.id == bindparam("id"))
_insert_segment = insert_all(media_segments)
_delete_segment = delete(media_segments).where(
    media_segments.c.media_id == bindparam("media_id"),
    media_segments.c.segment_index == bindparam("segment_index"),
)
# (count, highest index, bytes) of an upload's segments: what finalize checks against total_bytes.
_segment_totals = select(
    func.count().label("count"),
    func.coalesce(func.max(media_segments.c.segment_index), -1).label("last"),
    func.coalesce(func.sum(media_segments.c.size), 0).label("bytes"),
).where(media_segments.c.media_id == bindparam("media_id"))
_segment_indexes = (
    select(media_segments.c.segment_index, media_segments.c.size)
    .where(media_segments.c.media_id == bindparam("media_id"))
    .order_by(media_segments.c.segment_index)
)
_segment_data = select(media_segments.c.data).where(
    media_segments.c.media_id == bindparam("media_id"),
    media_segments.c.segment_index == bindparam("segment_index"),
)
_first_segment = (
    select(media_segments.c.data)
    .where(media_segments.c.media_id == bindparam("media_id"))
    .order_by(media_segments.c.segment_index)
    .limit(1)
)
_set_media_alt = (
    update(media).where(media.c.id == bindparam("media_id")).values(alt_text=bindparam("alt_text"))
)


def _set(*names: str) -> Any:
    return (
        update(media_uploads)
        .where(media_uploads.c.id == bindparam("id"))
        .values({name: bindparam(name) for name in names})
    )


_finalize = _set("state", "finalized_at", "expires_at", "failure", "width", "height")
_alt = _set("alt_text")
_subtitles = _set("subtitles")
_used = (
    update(media_uploads)
    .where(media_uploads.c.id == bindparam("id"), media_uploads.c.used_at.is_(None))
    .values(used_at=bindparam("used_at"))
)


class MediaUploadStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def upload(self, media_id: int) -> Row | None:
        return await self._db.fetch_one(_upload, {"id": media_id})

    async def segment(self, media_id: int, index: int) -> bytes | None:
        """One segment's bytes (the unit a download streams)."""
        value = await self._db.fetch_value(_segment_data, {"media_id": media_id, "segment_index": index})
        return None if value is None else bytes(value)

    async def segment_sizes(self, media_id: int) -> list[tuple[int, int]]:
        rows = await self._db.fetch_all(_segment_indexes, {"media_id": media_id})
        return [(row["segment_index"], row["size"]) for row in rows]

    async def first_segment(self, media_id: int) -> bytes | None:
        value = await self._db.fetch_value(_first_segment, {"media_id": media_id})
        return None if value is None else bytes(value)


async def upload_tx(tx: Executor, media_id: int) -> Row | None:
    return await tx.fetch_one(_upload, {"id": media_id})


async def insert_upload(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_upload, row)


async def put_segment(tx: Executor, media_id: int, index: int, data: Any) -> None:
    """Store a segment; a segment sent again replaces the earlier one (clients retry)."""
    await tx.execute(_delete_segment, {"media_id": media_id, "segment_index": index})
    await tx.execute(
        _insert_segment, {"media_id": media_id, "segment_index": index, "size": len(data), "data": data}
    )


async def segment_totals(tx: Executor, media_id: int) -> tuple[int, int, int]:
    row = await tx.fetch_one(_segment_totals, {"media_id": media_id})
    assert row is not None
    return int(row["count"]), int(row["last"]), int(row["bytes"])


async def segment_tx(tx: Executor, media_id: int, index: int) -> bytes | None:
    value = await tx.fetch_value(_segment_data, {"media_id": media_id, "segment_index": index})
    return None if value is None else bytes(value)


async def first_segment_tx(tx: Executor, media_id: int) -> bytes | None:
    value = await tx.fetch_value(_first_segment, {"media_id": media_id})
    return None if value is None else bytes(value)


async def finalize(tx: Executor, media_id: int, values: dict[str, Any]) -> None:
    await tx.execute(_finalize, {"id": media_id, **values})


async def set_alt_text(tx: Executor, media_id: int, alt_text: str | None) -> None:
    await tx.execute(_alt, {"id": media_id, "alt_text": alt_text})
    await tx.execute(_set_media_alt, {"media_id": media_id, "alt_text": alt_text})


async def set_subtitles(tx: Executor, media_id: int, subtitles: str | None) -> None:
    await tx.execute(_subtitles, {"id": media_id, "subtitles": subtitles})


async def mark_used(tx: Executor, media_id: int, now_ms: int) -> None:
    await tx.execute(_used, {"id": media_id, "used_at": now_ms})


_finalized = select(media_uploads).where(media_uploads.c.state == "finalized").order_by(media_uploads.c.id)


async def finalized_uploads(db: Database) -> list[Row]:
    return await db.fetch_all(_finalized)
