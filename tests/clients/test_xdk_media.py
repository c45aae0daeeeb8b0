"""xdk's media upload against roost (in process, `base_url`): `initialize_upload`, `append_upload`
(base64 JSON segments), `finalize_upload`, `get_upload_status`, the one-shot `upload`,
`create_metadata`, `create_subtitles` / `delete_subtitles`, with an OAuth 2.0 user token."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest
from tests.support.media_files import mp4, png
from tests.support.server import LiveServer
from xdk import Client
from xdk.media.models import (
    AppendUploadRequest,
    CreateMetadataRequest,
    CreateSubtitlesRequest,
    DeleteSubtitlesRequest,
    InitializeUploadRequest,
    UploadRequest,
)

pytestmark = pytest.mark.clients


def client(server: LiveServer, credentials: dict[str, Any]) -> Client:
    return Client(base_url=server.base_url, access_token=credentials["oauth2_user_token"])


def test_chunked_upload_and_status(server: LiveServer, credentials: dict[str, Any]) -> None:
    media = client(server, credentials).media
    data = mp4(5000)
    started = media.initialize_upload(
        InitializeUploadRequest(media_type="video/mp4", total_bytes=len(data), media_category="tweet_video")
    )
    assert started.data is not None
    media_id = started.data.id
    assert started.data.media_key == f"7_{media_id}"
    for index, start in enumerate(range(0, len(data), 2000)):
        chunk = base64.b64encode(data[start : start + 2000]).decode()
        appended = media.append_upload(media_id, AppendUploadRequest(media=chunk, segment_index=index))
        assert appended.data is not None and appended.data.expires_at is not None
    done = media.finalize_upload(media_id)
    assert done.data is not None and done.data.size == len(data)
    assert done.data.processing_info is not None and done.data.processing_info.state == "pending"
    httpx.post(server.base_url + "/_roost/clock", json={"advance_seconds": 30})
    status = media.get_upload_status(media_id, command="STATUS")
    assert status.data is not None and status.data.processing_info is not None
    assert status.data.processing_info.state == "succeeded"
    subtitles_file = b"1\n00:00:00,000 --> 00:00:01,000\nhello\n"
    track = media.upload(
        UploadRequest(media=base64.b64encode(subtitles_file).decode(), media_category="subtitles")
    )
    assert track.data is not None
    made = media.create_subtitles(
        CreateSubtitlesRequest(
            id=media_id,
            media_category="TweetVideo",
            subtitles={"id": track.data.id, "language_code": "EN", "display_name": "English"},
        )
    )
    assert made.data is not None and made.data.id == media_id
    removed = media.delete_subtitles(
        DeleteSubtitlesRequest(id=media_id, media_category="TweetVideo", language_code="EN")
    )
    assert removed.data is not None and removed.data.deleted is True


def test_one_shot_upload_and_alt_text(server: LiveServer, credentials: dict[str, Any]) -> None:
    media = client(server, credentials).media
    data = png(64, 48)
    uploaded = media.upload(
        UploadRequest(media=base64.b64encode(data).decode(), media_category="tweet_image")
    )
    assert uploaded.data is not None
    assert uploaded.data.image is not None
    assert (uploaded.data.image.w, uploaded.data.image.h) == (64, 48)
    media_id = uploaded.data.id
    meta = media.create_metadata(
        CreateMetadataRequest(id=media_id, metadata={"alt_text": {"text": "xdk alt"}})
    )
    assert meta.data is not None and meta.data.associated_metadata == {"alt_text": {"text": "xdk alt"}}
    looked = media.get_by_key(f"3_{media_id}", media_fields=["alt_text", "url"])
    assert looked.data is not None and looked.data.alt_text == "xdk alt"
    assert httpx.get(looked.data.url).content == data
