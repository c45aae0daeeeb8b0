"""Media upload, v2: chunked (`/2/media/upload/initialize`, `/{id}/append`, `/{id}/finalize`, the
STATUS read), one-shot (`POST /2/media/upload`, multipart or base64 JSON, also the older command
form), alt text, subtitles. The v1.1 `upload.json` (`platform/v1_media.py`) shares the body parsing."""

from __future__ import annotations

from typing import Any

from roost.core import errors
from roost.core.multipart import Part, RawBody
from roost.core.params import CsvOf, Enum, MediaKey, Param, Snowflake, Timestamp
from roost.domain import media_uploads as uploads
from roost.domain.media_files import SEGMENT_LIMIT
from roost.platform.operations import USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects

SCOPES = ("media.write",)
# A segment's body: the 5 MB of media, base64-encoded in JSON (4/3), with room for the other fields.
SEGMENT_BODY = SEGMENT_LIMIT * 4 // 3 + 64 * 1024
# A one-shot body: up to the GIF limit (15 MB), base64-encoded.
ONE_SHOT_BODY = 15 * 1024 * 1024 * 4 // 3 + 64 * 1024


def _user(call: Call) -> int:
    assert call.principal.user_id is not None
    return call.principal.user_id


def fields_of(body: Any) -> dict[str, Any]:
    """The fields of a raw body: JSON members, or multipart/form parts (as `Part`s)."""
    if not isinstance(body, RawBody) or not body.data:
        return {}
    if body.is_json:
        from roost.core import jsonio

        try:
            value = jsonio.loads(body.data)
        except jsonio.JSONDecodeError:
            raise errors.invalid_body("Request body is not valid JSON.") from None
        if not isinstance(value, dict):
            raise errors.invalid_body("$: a JSON object is expected")
        return value
    try:
        return dict(body.fields())
    except ValueError:
        raise errors.invalid_body("The multipart body could not be read.") from None


def text(fields: dict[str, Any], name: str) -> Any:
    value = fields.get(name)
    return value.text() if isinstance(value, Part) else value


def media_bytes(fields: dict[str, Any]) -> Any:
    """The file of a body: part `media` (raw bytes), or `media` / `media_data` as base64 text."""
    media, encoded = fields.get("media"), fields.get("media_data")
    if media is not None and encoded is not None:
        raise errors.media_refused("media and media_data are mutually exclusive.")
    if isinstance(media, Part):
        return media.data
    if isinstance(media, str):
        return uploads.decode_base64(media)
    if isinstance(encoded, Part):
        return uploads.decode_base64(encoded.text())
    if isinstance(encoded, str):
        return uploads.decode_base64(encoded)
    raise errors.media_refused("media: the media field is required")


def segment_index(fields: dict[str, Any]) -> int:
    value = text(fields, "segment_index")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise errors.media_refused("segment_index: a whole number from 0 to 999 is required")
    return value


def media_id_of(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.isascii() or not value.isdigit() or len(value) > 19:
        raise errors.media_refused(uploads.NOT_FOUND)
    return int(value)


def v2_info(info: dict[str, Any]) -> dict[str, Any]:
    data = {**info, "id": str(info["id"])}
    processing = data.get("processing_info")
    if processing is not None and "error" in processing:
        # The v2 document's processing_info has no `error` (v1.1's STATUS keeps it).
        data["processing_info"] = {k: v for k, v in processing.items() if k != "error"}
    return {"data": data}


async def initialize(call: Call) -> dict[str, Any]:
    body = call.body if isinstance(call.body, dict) else {}
    extra = sorted(set(body) - {"additional_owners", "media_category", "media_type", "shared", "total_bytes"})
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    request = uploads.init_request(
        body.get("media_type"),
        body.get("total_bytes"),
        body.get("media_category"),
        body.get("additional_owners"),
        body.get("shared", False),
    )
    created = await call.domain.media_uploads.initialize(_user(call), request)
    return {"data": {**created, "id": str(created["id"])}}


async def append(call: Call) -> dict[str, Any]:
    fields = fields_of(call.body)
    expires_at = await call.domain.media_uploads.append(
        _user(call), call.params["id"], segment_index(fields), media_bytes(fields)
    )
    return {"data": {"expires_at": expires_at}}


async def finalize(call: Call) -> dict[str, Any]:
    return v2_info(await call.domain.media_uploads.finalize(_user(call), call.params["id"]))


async def status(call: Call) -> dict[str, Any]:
    return v2_info(await call.domain.media_uploads.status(_user(call), call.params["media_id"]))


async def upload(call: Call) -> Any:
    """One-shot upload, or the older command form (`command=INIT|APPEND|FINALIZE`) on the same path."""
    fields = fields_of(call.body)
    command = text(fields, "command")
    service = call.domain.media_uploads
    user = _user(call)
    if command == "INIT":
        request = uploads.init_request(
            text(fields, "media_type"),
            text(fields, "total_bytes"),
            text(fields, "media_category"),
            text(fields, "additional_owners"),
            text(fields, "shared") or False,
        )
        created = await service.initialize(user, request)
        return {"data": {**created, "id": str(created["id"])}}
    if command == "APPEND":
        media_id = media_id_of(text(fields, "media_id"))
        expires_at = await service.append(user, media_id, segment_index(fields), media_bytes(fields))
        return {"data": {"expires_at": expires_at}}
    if command == "FINALIZE":
        return v2_info(await service.finalize(user, media_id_of(text(fields, "media_id"))))
    if command is not None:
        raise errors.media_refused(f"command: [{command}] is not one of [INIT,APPEND,FINALIZE]")
    data = media_bytes(fields)
    request = uploads.init_request(
        text(fields, "media_type"),
        len(data),
        text(fields, "media_category"),
        text(fields, "additional_owners"),
    )
    return v2_info(await service.upload(user, request, data))


async def metadata(call: Call) -> dict[str, Any]:
    body = call.body if isinstance(call.body, dict) else {}
    if "id" not in body:
        raise errors.invalid_body("$.id: is missing but it is required")
    media_id = media_id_of(body["id"])
    meta = body.get("metadata") or {}
    alt = meta.get("alt_text") if isinstance(meta, dict) else None
    alt_text = alt.get("text") if isinstance(alt, dict) else None
    if alt is not None and not isinstance(alt_text, str):
        raise errors.invalid_body("$.metadata.alt_text.text: string expected")
    await call.domain.media_uploads.set_alt_text(_user(call), media_id, alt_text)
    associated: dict[str, Any] = {}
    if alt_text is not None:
        associated["alt_text"] = {"text": alt_text}
    return {"data": {"id": str(media_id), "associated_metadata": associated}}


async def create_subtitles(call: Call) -> dict[str, Any]:
    """`{"id", "media_category", "subtitles": {"id", "language_code", "display_name"}}`."""
    body = call.body if isinstance(call.body, dict) else {}
    if "id" not in body:
        raise errors.invalid_body("$.id: is missing but it is required")
    media_id = media_id_of(body["id"])
    track = body.get("subtitles")
    if not isinstance(track, dict) or "id" not in track or not isinstance(track.get("language_code"), str):
        raise errors.invalid_body("$.subtitles: an object with id and language_code is required")
    subtitle = {
        "id": str(media_id_of(track["id"])),
        "language_code": track["language_code"],
        "display_name": str(track.get("display_name") or track["language_code"]),
    }
    await call.domain.media_uploads.set_subtitles(_user(call), media_id, [subtitle])
    category = str(body.get("media_category") or "TweetVideo")
    return {"data": {"id": str(media_id), "media_category": category, "associated_subtitles": subtitle}}


async def delete_subtitles(call: Call) -> dict[str, Any]:
    body = call.body if isinstance(call.body, dict) else {}
    for name in ("id", "media_category", "language_code"):
        if name not in body:
            raise errors.invalid_body(f"$.{name}: is missing but it is required")
    media_id = media_id_of(body["id"])
    await call.domain.media_uploads.remove_subtitles(_user(call), media_id, [str(body["language_code"])])
    return {"data": {"deleted": True}}


async def analytics(call: Call) -> Objects:
    params = call.params
    rows, problems = await call.domain.media_uploads.analytics(
        _user(call), params["media_keys"], params["start_time"], params["end_time"], params["granularity"]
    )
    return Objects(rows, errors=problems)


MEDIA_ID_IN_PATH = Param("id", Snowflake(), required=True, in_path=True)

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "mediaUpload",
        "POST",
        "/2/media/upload",
        upload,
        USER_AUTH,
        SCOPES,
        write=True,
        raw_body=True,
        max_body=ONE_SHOT_BODY,
        rate_limit=RateLimit(user=415),
        tag="Media",
        summary="Upload media",
    ),
    Operation(
        "getMediaUploadStatus",
        "GET",
        "/2/media/upload",
        status,
        USER_AUTH,
        SCOPES,
        params=(
            Param("media_id", Snowflake(), required=True),
            Param("command", Enum(("STATUS",))),
        ),
        rate_limit=RateLimit(user=1000),
        tag="Media",
        summary="Get Media upload status",
    ),
    Operation(
        "initializeMediaUpload",
        "POST",
        "/2/media/upload/initialize",
        initialize,
        USER_AUTH,
        SCOPES,
        write=True,
        body=True,
        rate_limit=RateLimit(user=200),
        tag="Media",
        summary="Initialize media upload",
    ),
    Operation(
        "appendMediaUpload",
        "POST",
        "/2/media/upload/{id}/append",
        append,
        USER_AUTH,
        SCOPES,
        write=True,
        raw_body=True,
        max_body=SEGMENT_BODY,
        params=(MEDIA_ID_IN_PATH,),
        rate_limit=RateLimit(user=20_000),
        tag="Media",
        summary="Append Media upload",
    ),
    Operation(
        "finalizeMediaUpload",
        "POST",
        "/2/media/upload/{id}/finalize",
        finalize,
        USER_AUTH,
        SCOPES,
        write=True,
        params=(MEDIA_ID_IN_PATH,),
        rate_limit=RateLimit(user=615),
        tag="Media",
        summary="Finalize Media upload",
    ),
    Operation(
        "getMediaAnalytics",
        "GET",
        "/2/media/analytics",
        analytics,
        USER_AUTH,
        ("tweet.read",),
        params=(
            Param("media_keys", CsvOf(MediaKey(), 100), required=True),
            Param("start_time", Timestamp(), required=True),
            Param("end_time", Timestamp(), required=True),
            Param("granularity", Enum(("hourly", "daily", "total")), default="daily"),
        ),
        returns="media_analytics",
        rate_limit=RateLimit(user=300),
        tag="Media",
        summary="Get Media analytics",
    ),
    Operation(
        "createMediaMetadata",
        "POST",
        "/2/media/metadata",
        metadata,
        USER_AUTH,
        SCOPES,
        write=True,
        body=True,
        rate_limit=RateLimit(user=500),
        tag="Media",
        summary="Create Media metadata",
    ),
    Operation(
        "createMediaSubtitles",
        "POST",
        "/2/media/subtitles",
        create_subtitles,
        USER_AUTH,
        SCOPES,
        write=True,
        body=True,
        rate_limit=RateLimit(user=100),
        tag="Media",
        summary="Create Media subtitles",
    ),
    Operation(
        "deleteMediaSubtitles",
        "DELETE",
        "/2/media/subtitles",
        delete_subtitles,
        USER_AUTH,
        SCOPES,
        write=True,
        body=True,
        rate_limit=RateLimit(user=100),
        tag="Media",
        summary="Delete Media subtitles",
    ),
)
