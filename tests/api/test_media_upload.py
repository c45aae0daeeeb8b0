"""Media upload, v2: chunked (initialize / append / finalize / STATUS), one-shot (multipart and
base64), the bytes served back, processing by the roost clock, expiry, ownership, attaching to posts."""

from __future__ import annotations

import base64
from typing import Any

import httpx
from tests.conformance.oracle import assert_conforms
from tests.support.client import Api
from tests.support.media_files import gif, jpeg_header, mp4, png

INVALID = "https://api.x.com/2/problems/invalid-request"


def refused(message: str) -> dict[str, Any]:
    return {
        "errors": [{"message": message}],
        "title": "Invalid Request",
        "detail": "One or more parameters to your request was invalid.",
        "type": INVALID,
    }


def call(api: Api, method: str, path: str, **kwargs: Any) -> httpx.Response:
    """A media request, its answer checked against the 2.167 document (2.159 requires a `meta` the
    platform's media answers do not carry)."""
    response = api.request(method, path, conform=False, **kwargs)
    content_type = response.headers.get("content-type", "application/json")
    vocabulary = "post" if response.status_code < 400 else "tweet"  # as the client's own check does
    assert_conforms(method, path, response.status_code, response.json(), vocabulary, content_type)
    return response


def initialize(api: Api, auth: str = "oauth2", **body: Any) -> httpx.Response:
    return call(api, "POST", "/2/media/upload/initialize", auth=auth, json=body)


def append(api: Api, media_id: str, index: int, chunk: bytes, auth: str = "oauth2") -> httpx.Response:
    return call(
        api,
        "POST",
        f"/2/media/upload/{media_id}/append",
        auth=auth,
        data={"segment_index": str(index)},
        files={"media": ("blob", chunk, "application/octet-stream")},
    )


def finalize(api: Api, media_id: str, **kwargs: Any) -> httpx.Response:
    kwargs.setdefault("auth", "oauth2")
    return call(api, "POST", f"/2/media/upload/{media_id}/finalize", **kwargs)


def status(api: Api, media_id: str, auth: str = "oauth2") -> httpx.Response:
    return call(api, "GET", "/2/media/upload", auth=auth, params={"command": "STATUS", "media_id": media_id})


def chunked(api: Api, data: bytes, media_type: str, size: int = 1000, **extra: Any) -> str:
    started = initialize(api, media_type=media_type, total_bytes=len(data), **extra)
    assert started.status_code == 200, started.text
    media_id = started.json()["data"]["id"]
    for index, start in enumerate(range(0, len(data), size)):
        assert append(api, media_id, index, data[start : start + size]).status_code == 200
    return media_id


def move_clock(api: Api, seconds: float) -> None:
    moved = api.http.post("/_roost/clock", json={"advance_seconds": seconds})
    assert moved.status_code == 200, moved.text


def test_chunked_image_upload_keeps_bytes_and_size(api: Api) -> None:
    data = png(37, 21, extra=5000)
    started = initialize(api, media_type="image/png", total_bytes=len(data), media_category="tweet_image")
    assert started.status_code == 200
    init = started.json()["data"]
    assert init == {"id": init["id"], "media_key": f"3_{init['id']}", "expires_after_secs": 86400}
    media_id = init["id"]
    # Segments may arrive out of order (twitter-api-v2 sends three at once).
    assert append(api, media_id, 1, data[2000:]).status_code == 200
    first = append(api, media_id, 0, data[:2000])
    assert first.status_code == 200
    assert set(first.json()["data"]) == {"expires_at"}
    done = finalize(api, media_id)
    assert done.status_code == 200
    assert done.json() == {
        "data": {
            "id": media_id,
            "media_key": f"3_{media_id}",
            "size": len(data),
            "expires_after_secs": 86400,
            "image": {"image_type": "image/png", "w": 37, "h": 21},
        }
    }
    media = api.get(f"/2/media/3_{media_id}", params={"media.fields": "url,width,height"}).json()["data"]
    assert media["width"] == 37 and media["height"] == 21
    served = httpx.get(media["url"])
    assert served.status_code == 200
    assert served.headers["content-type"] == "image/png"
    assert served.content == data
    # An image needs no processing: it has no status.
    assert status(api, media_id).json() == refused("BadRequest: Not found")
    assert status(api, media_id).status_code == 400


def test_one_shot_multipart_and_base64(api: Api) -> None:
    data = jpeg_header(640, 480)
    multipart = call(
        api,
        "POST",
        "/2/media/upload",
        auth="oauth2",
        data={"media_category": "tweet_image"},
        files={"media": ("photo.jpg", data, "image/jpeg")},
    )
    assert multipart.status_code == 200, multipart.text
    body = multipart.json()["data"]
    assert body["image"] == {"image_type": "image/jpeg", "w": 640, "h": 480}
    assert body["size"] == len(data) and "processing_info" not in body
    gif_data = gif(3, 2)
    encoded = call(
        api,
        "POST",
        "/2/media/upload",
        auth="oauth1",
        json={"media": base64.b64encode(gif_data).decode(), "media_category": "tweet_image"},
    )
    assert encoded.status_code == 200, encoded.text
    data_gif = encoded.json()["data"]
    assert data_gif["media_key"] == f"16_{data_gif['id']}"
    assert data_gif["image"] == {"image_type": "image/gif", "w": 3, "h": 2}


def test_video_processing_follows_the_clock(api: Api) -> None:
    data = mp4(3000)
    media_id = chunked(api, data, "video/mp4", media_category="tweet_video")
    done = finalize(api, media_id).json()["data"]
    assert done["media_key"] == f"7_{media_id}"
    assert done["video"] == {"video_type": "video/mp4"}
    assert done["processing_info"] == {"state": "pending", "check_after_secs": 1}
    # Not attachable while processing.
    early = api.post(
        "/2/tweets", auth="oauth2", json={"text": "too soon", "media": {"media_ids": [media_id]}}
    )
    assert early.status_code == 400
    move_clock(api, 2)
    progress = status(api, media_id).json()["data"]["processing_info"]
    assert progress["state"] == "in_progress"
    assert 0 < progress["progress_percent"] < 100 and progress["check_after_secs"] == 1
    move_clock(api, 5)
    assert status(api, media_id).json()["data"]["processing_info"] == {
        "state": "succeeded",
        "progress_percent": 100,
    }
    posted = api.post(
        "/2/tweets", auth="oauth2", json={"text": "a video", "media": {"media_ids": [media_id]}}
    )
    assert posted.status_code == 201, posted.text
    post_id = posted.json()["data"]["id"]
    read = api.get(
        f"/2/tweets/{post_id}",
        params={"expansions": "attachments.media_keys", "media.fields": "variants,preview_image_url"},
    ).json()
    video = read["includes"]["media"][0]
    assert video["media_key"] == f"7_{media_id}"
    assert video["variants"][0]["content_type"] == "video/mp4"
    served = httpx.get(video["variants"][0]["url"])
    assert served.content == data and served.headers["content-type"] == "video/mp4"
    preview = httpx.get(video["preview_image_url"])
    assert preview.status_code == 200 and preview.headers["content-type"] == "image/png"


def test_invalid_video_fails_processing(api: Api) -> None:
    media_id = chunked(api, b"not a video at all" * 10, "video/mp4", media_category="tweet_video")
    assert finalize(api, media_id).status_code == 200
    move_clock(api, 10)
    info = status(api, media_id).json()["data"]["processing_info"]
    assert info == {"state": "failed", "progress_percent": 100}


def test_finalize_checks_segments_and_size(api: Api) -> None:
    data = png(4, 4, extra=3000)
    started = initialize(api, media_type="image/png", total_bytes=len(data)).json()["data"]
    media_id = started["id"]
    assert append(api, media_id, 0, data[:1000]).status_code == 200
    assert append(api, media_id, 2, data[2000:]).status_code == 200
    missing = finalize(api, media_id)
    assert missing.status_code == 400
    assert missing.json() == refused("Segments do not add up to provided total file size.")
    assert append(api, media_id, 1, data[1000:1999]).status_code == 200
    short = finalize(api, media_id)
    assert short.json() == refused("Segments do not add up to provided total file size.")
    assert append(api, media_id, 1, data[1000:2000]).status_code == 200  # a segment sent again replaces it
    assert finalize(api, media_id).status_code == 200
    again = append(api, media_id, 3, b"x")
    assert again.status_code == 400
    assert again.json() == refused("BadRequest: Media id is already finalized.")


def test_limits_types_and_unknown_ids(api: Api) -> None:
    big = initialize(api, media_type="image/png", total_bytes=5 * 1024 * 1024 + 1)
    assert big.status_code == 400
    assert big.json() == refused("File size exceeds 5242880 bytes.")
    gif_big = initialize(api, media_type="image/gif", total_bytes=6 * 1024 * 1024, media_category="tweet_gif")
    assert gif_big.status_code == 200
    unknown = finalize(api, "1234567890123")
    assert unknown.status_code == 400 and unknown.json() == refused("BadRequest: Not found")
    assert append(api, "1234567890123", 0, b"x").json() == refused("BadRequest: Not found")
    form = call(
        api,
        "POST",
        "/2/media/upload/initialize",
        auth="oauth2",
        data={"media_type": "image/png", "total_bytes": "10"},
    )
    assert form.status_code == 400
    assert form.json()["errors"] == [
        {"parameters": {}, "message": "Requests with bodies must have content-type of application/json."}
    ]
    bad_index = append(api, gif_big.json()["data"]["id"], 1000, b"x")
    assert bad_index.json() == refused("Segment index must be between 0 and 999 inclusive.")
    app_only = initialize(api, auth="app", media_type="image/png", total_bytes=1)
    assert app_only.status_code == 403


def test_unused_media_expire(api: Api) -> None:
    data = png(2, 2)
    media_id = chunked(api, data, "image/png")
    assert finalize(api, media_id).status_code == 200
    move_clock(api, 86_401)
    posted = api.post("/2/tweets", auth="oauth2", json={"text": "late", "media": {"media_ids": [media_id]}})
    assert posted.status_code == 400
    assert httpx.get(f"{api.base_url}/media/{media_id}.png").status_code == 404


def test_other_users_media_and_additional_owners(api: Api, make_user: Any) -> None:
    stranger = make_user()
    friend = make_user()
    data = png(2, 3)
    media_id = chunked(api, data, "image/png", additional_owners=[friend["id"]])
    assert finalize(api, media_id).status_code == 200
    # Another user may not continue or read the upload, nor attach the media ...
    assert finalize(api, media_id, auth="none", headers=api.oauth2(stranger["oauth2"])).json() == refused(
        "BadRequest: Not found"
    )
    strange = api.post(
        "/2/tweets",
        auth="none",
        headers=api.oauth2(stranger["oauth2"]),
        json={"text": "not mine", "media": {"media_ids": [media_id]}},
    )
    assert strange.status_code == 400
    # ... but an additional owner may attach it.
    shared = api.post(
        "/2/tweets",
        auth="none",
        headers=api.oauth2(friend["oauth2"]),
        json={"text": "shared with me", "media": {"media_ids": [media_id]}},
    )
    assert shared.status_code == 201, shared.text


def test_alt_text(api: Api) -> None:
    media_id = chunked(api, png(5, 5), "image/png")
    assert finalize(api, media_id).status_code == 200
    made = call(
        api,
        "POST",
        "/2/media/metadata",
        auth="oauth2",
        json={"id": media_id, "metadata": {"alt_text": {"text": "a grey square"}}},
    )
    assert made.status_code == 200
    assert made.json() == {
        "data": {"id": media_id, "associated_metadata": {"alt_text": {"text": "a grey square"}}}
    }
    media = api.get(f"/2/media/3_{media_id}", params={"media.fields": "alt_text"}).json()["data"]
    assert media["alt_text"] == "a grey square"
    too_long = call(
        api,
        "POST",
        "/2/media/metadata",
        auth="oauth2",
        json={"id": media_id, "metadata": {"alt_text": {"text": "x" * 1001}}},
    )
    assert too_long.status_code == 400


def test_analytics_of_own_media(api: Api, make_user: Any) -> None:
    media_id = chunked(api, mp4(1200), "video/mp4", media_category="tweet_video")
    assert finalize(api, media_id).status_code == 200
    key = f"7_{media_id}"
    params = {
        "media_keys": f"{key},7_1",
        "start_time": "2026-01-01T00:00:00Z",
        "end_time": "2026-01-03T00:00:00Z",
    }
    response = call(api, "GET", "/2/media/analytics", auth="oauth2", params=params)
    assert response.status_code == 200
    body = response.json()
    zeros = {
        "cta_url_clicks": 0,
        "cta_watch_clicks": 0,
        "play_from_tap": 0,
        "playback25": 0,
        "playback50": 0,
        "playback75": 0,
        "playback_complete": 0,
        "playback_start": 0,
        "video_views": 0,
        "watch_time_ms": 0,
    }
    assert body["data"] == [
        {
            "media_key": key,
            "timestamped_metrics": [
                {"timestamp": "2026-01-01T00:00:00.000Z", "metrics": zeros},
                {"timestamp": "2026-01-02T00:00:00.000Z", "metrics": zeros},
            ],
        }
    ]
    assert [item["resource_id"] for item in body["errors"]] == ["7_1"]
    total = call(
        api,
        "GET",
        "/2/media/analytics",
        auth="oauth2",
        params={**params, "media_keys": key, "granularity": "total", "media_analytics.fields": "video_views"},
    ).json()
    # The default fields always come; "total" is one bucket from the window's start.
    assert total == {
        "data": [
            {
                "media_key": key,
                "timestamped_metrics": [{"timestamp": "2026-01-01T00:00:00.000Z", "metrics": zeros}],
                "video_views": 0,
            }
        ]
    }
    # Another user's media are not theirs to measure.
    other = make_user()
    theirs = call(
        api, "GET", "/2/media/analytics", auth="none", headers=api.oauth2(other["oauth2"]), params=params
    ).json()
    assert "data" not in theirs and len(theirs["errors"]) == 2


def test_dm_attachments_are_the_senders_own(api: Api, make_user: Any, credentials: dict[str, Any]) -> None:
    recipient = make_user()
    media_id = chunked(api, png(6, 6), "image/png", media_category="dm_image")
    assert finalize(api, media_id).status_code == 200
    path = f"/2/dm_conversations/with/{recipient['id']}/messages"
    body = {"text": "a picture", "attachments": [{"media_id": media_id}]}
    sent = api.post(path, auth="oauth2", json=body)
    assert sent.status_code == 201, sent.text
    # Someone else may not send the demo user's upload.
    stranger = make_user()
    other = api.post(
        f"/2/dm_conversations/with/{credentials['user_id']}/messages",
        auth="none",
        headers=api.oauth2(stranger["oauth2"]),
        json=body,
    )
    assert other.status_code == 400
    # Nor may the uploader, a day later.
    move_clock(api, 86_400)
    late = api.post(path, auth="oauth2", json=body)
    assert late.status_code == 400


def test_wrong_order_and_mixed_attachments(api: Api) -> None:
    video = chunked(api, mp4(1500), "video/mp4", media_category="tweet_video")
    # STATUS before FINALIZE: there is nothing to report yet.
    assert status(api, video).json() == refused("BadRequest: Not found")
    assert finalize(api, video).status_code == 200
    again = finalize(api, video)
    assert again.status_code == 400
    assert again.json() == refused("BadRequest: Media id is already finalized.")
    move_clock(api, 10)
    photo = chunked(api, png(3, 3), "image/png")
    assert finalize(api, photo).status_code == 200
    # Up to 4 photos, or one GIF, or one video: not a video with a photo.
    mixed = api.post(
        "/2/tweets", auth="oauth2", json={"text": "mixed", "media": {"media_ids": [video, photo]}}
    )
    assert mixed.status_code == 400


def test_oversized_segment_is_refused(api: Api) -> None:
    started = initialize(api, media_type="video/mp4", total_bytes=20 * 1024 * 1024).json()["data"]
    big = api.post(
        f"/2/media/upload/{started['id']}/append",
        auth="oauth2",
        files={"media": ("blob", b"\x00" * (5 * 1024 * 1024 + 1), "application/octet-stream")},
        data={"segment_index": "0"},
        conform=False,
    )
    assert big.status_code == 400
    assert big.json() == refused("File size exceeds 5242880 bytes.")
    huge = api.post(
        f"/2/media/upload/{started['id']}/append",
        auth="oauth2",
        content=b"x" * (8 * 1024 * 1024),
        headers={"content-type": "application/octet-stream"},
        conform=False,
    )
    assert huge.status_code == 413


def test_a_dm_attachment_downloads_as_its_uploaded_bytes(api: Api, make_user: Any) -> None:
    """The DM media download answers the file the sender uploaded, byte for byte, to either
    participant (raw bytes, as the document describes it), and to nobody else."""
    recipient = make_user()
    data = png(9, 7)
    media_id = chunked(api, data, "image/png", size=40, media_category="dm_image")
    assert finalize(api, media_id).status_code == 200
    sent = api.post(
        f"/2/dm_conversations/with/{recipient['id']}/messages",
        auth="oauth2",
        json={"text": "the picture", "attachments": [{"media_id": media_id}]},
    )
    assert sent.status_code == 201, sent.text
    path = f"/2/dm_conversations/media/{sent.json()['data']['dm_event_id']}/{media_id}/picture.png"
    for headers in ({}, api.oauth2(recipient["oauth2"])):
        auth = "oauth2" if not headers else "none"
        response = api.get(path, auth=auth, headers=headers)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/octet-stream"
        assert response.headers["content-length"] == str(len(data))
        assert response.content == data
    stranger = make_user()
    refused = api.get(path, auth="none", headers=api.oauth2(stranger["oauth2"]))
    assert refused.status_code == 404
