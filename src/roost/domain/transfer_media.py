"""Uploaded media in the import/export document (`transfer.py`): the section `media_uploads`, one
item per finalized upload with its bytes in base64 (`data`). The media object itself travels in the
`media` section; importing an upload makes its URL answer again on the importing server."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import iso_ms
from roost.domain.media_files import MEDIA_TYPES
from roost.domain.transfer_values import import_id, import_time
from roost.storage import media_uploads as upload_rows
from roost.storage.db import Database, Executor
from roost.storage.media_uploads import MediaUploadStore

SECTION = "media_uploads"
SEGMENT = 1024 * 1024  # imported bytes are stored in segments of this size


async def export_media_uploads(db: Database) -> dict[str, list[dict[str, Any]]]:
    store = MediaUploadStore(db)
    items = []
    for row in await upload_rows.finalized_uploads(db):
        data = b"".join(
            [
                await store.segment(row["id"], index) or b""
                for index, _ in await store.segment_sizes(row["id"])
            ]
        )
        item: dict[str, Any] = {
            "id": str(row["id"]),
            "media_key": row["media_key"],
            "owner_id": str(row["owner_id"]),
            "media_type": row["media_type"],
            "created_at": iso_ms(row["created_at"]),
            "expires_at": iso_ms(row["expires_at"]),
            "finalized_at": iso_ms(row["finalized_at"] or row["created_at"]),
            "processed": bool(row["processed"]),
            "data": base64.b64encode(data).decode(),
        }
        if row["category"]:
            item["media_category"] = row["category"]
        if row["additional_owners"]:
            item["additional_owners"] = jsonio.loads(row["additional_owners"])
        for name in ("width", "height", "alt_text"):
            if row[name] is not None:
                item[name] = row[name]
        if row["used_at"] is not None:
            item["used_at"] = iso_ms(row["used_at"])
        if row["failure"]:
            item["failure"] = jsonio.loads(row["failure"])
        items.append(item)
    return {SECTION: items}


async def import_media_uploads(tx: Executor, payload: dict[str, Any], now_ms: int) -> dict[str, int]:
    """Import the section when the payload carries it; uploads already present are skipped."""
    if SECTION not in payload:
        return {}
    items = payload.get(SECTION) or []
    if not isinstance(items, list):
        raise errors.invalid_body(f"$.{SECTION}: array expected")
    count = 0
    for item in (i for i in items if isinstance(i, dict)):
        media_id = import_id(item.get("id"), "media_uploads[].id")
        if await upload_rows.upload_tx(tx, media_id) is not None:
            continue
        media_type = item.get("media_type")
        if media_type not in MEDIA_TYPES:
            raise errors.invalid_body(f"media_uploads[].media_type: [{media_type}] is not a media type")
        try:
            data = base64.b64decode(str(item.get("data") or ""), validate=True)
        except (binascii.Error, ValueError):
            raise errors.invalid_body("media_uploads[].data: base64 is expected") from None
        created = import_time(item.get("created_at"), now_ms)
        owners = item.get("additional_owners")
        failure = item.get("failure")
        row = {
            "id": media_id,
            "media_key": str(item.get("media_key") or f"3_{media_id}"),
            "owner_id": import_id(item.get("owner_id"), "media_uploads[].owner_id"),
            "additional_owners": jsonio.dumps([str(o) for o in owners]).decode()
            if isinstance(owners, list)
            else None,
            "shared": 0,
            "media_type": media_type,
            "category": str(item.get("media_category") or ""),
            "processed": 1 if item.get("processed") else 0,
            "total_bytes": len(data),
            "state": "finalized",
            "created_at": created,
            "expires_at": import_time(item.get("expires_at"), created + 86_400_000),
            "finalized_at": import_time(item.get("finalized_at"), created),
            "failure": jsonio.dumps(failure).decode() if isinstance(failure, dict) else None,
            "width": item.get("width") if isinstance(item.get("width"), int) else None,
            "height": item.get("height") if isinstance(item.get("height"), int) else None,
            "used_at": import_time(item["used_at"], now_ms) if item.get("used_at") else None,
            "alt_text": item.get("alt_text") if isinstance(item.get("alt_text"), str) else None,
            "subtitles": None,
        }
        await upload_rows.insert_upload(tx, row)
        view = memoryview(data)
        for index, start in enumerate(range(0, max(len(data), 1), SEGMENT)):
            await upload_rows.put_segment(tx, media_id, index, view[start : start + SEGMENT])
        count += 1
    return {SECTION: count}
