"""GET /2/media/{media_key} and /2/media?media_keys=: fields, partial errors, validation, auth."""

from __future__ import annotations

from typing import Any

import pytest
from tests.api.helpers import import_media, invalid_request, next_import_id, not_found_item
from tests.support.client import Api

ALL_MEDIA_FIELDS = (
    "alt_text,duration_ms,height,media_key,non_public_metrics,organic_metrics,preview_image_url,"
    "promoted_metrics,public_metrics,type,url,variants,width"
)
KEY_PATTERN = "^([0-9]+)_([0-9]+)$"


def test_single_default_and_every_field(api: Api) -> None:
    photo = import_media(
        api, "photo", url="https://pbs.twimg.com/media/x.png", width=10, height=20, alt_text="tiny"
    )
    default = api.get(f"/2/media/{photo['media_key']}")
    assert default.status_code == 200
    assert default.json() == {"data": {"media_key": photo["media_key"], "type": "photo"}}
    full = api.get(f"/2/media/{photo['media_key']}", params={"media.fields": ALL_MEDIA_FIELDS}).json()
    assert full == {
        "data": {
            "media_key": photo["media_key"],
            "type": "photo",
            "alt_text": "tiny",
            "height": 20,
            "url": "https://pbs.twimg.com/media/x.png",
            "width": 10,
        }
    }


def test_video_fields(api: Api) -> None:
    variants = [
        {"bit_rate": 832000, "content_type": "video/mp4", "url": "https://video.twimg.com/v.mp4"},
        {"content_type": "application/x-mpegURL", "url": "https://video.twimg.com/v.m3u8"},
    ]
    video = import_media(
        api,
        "video",
        duration_ms=12345,
        preview_image_url="https://pbs.twimg.com/p.jpg",
        variants=variants,
        public_metrics={"view_count": 9},
        width=1920,
        height=1080,
    )
    data = api.get(
        f"/2/media/{video['media_key']}",
        params={"media.fields": "duration_ms,preview_image_url,variants,public_metrics"},
    ).json()["data"]
    assert data == {
        "media_key": video["media_key"],
        "type": "video",
        "duration_ms": 12345,
        "preview_image_url": "https://pbs.twimg.com/p.jpg",
        "variants": variants,
        "public_metrics": {"view_count": 9},
    }


def test_many_with_partial_errors(api: Api) -> None:
    first, second = import_media(api), import_media(api, "animated_gif")
    missing = f"3_{next_import_id()}"
    keys = f"{second['media_key']},{missing},{first['media_key']},{second['media_key']}"
    body = api.get("/2/media", params={"media_keys": keys, "media.fields": "type"}).json()
    assert body["data"] == [
        {"media_key": second["media_key"], "type": "animated_gif"},
        {"media_key": first["media_key"], "type": "photo"},
    ]
    assert body["errors"] == [not_found_item("media", "media_keys", missing)]


def test_missing_media_answers_only_errors(api: Api) -> None:
    missing = f"7_{next_import_id()}"
    single = api.get(f"/2/media/{missing}")
    assert single.status_code == 200
    assert single.json() == {"errors": [not_found_item("media", "media_key", missing)]}
    assert single.json()["errors"][0]["detail"] == f"Could not find media with media_key: [{missing}]."
    many = api.get("/2/media", params={"media_keys": missing}).json()
    assert many == {"errors": [not_found_item("media", "media_keys", missing)]}


@pytest.mark.parametrize("key", ["abc", "3-123", "3_", "_5"])
def test_bad_media_key(api: Api, key: str) -> None:
    response = api.get(f"/2/media/{key}")
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {
            "parameters": {"media_key": [key]},
            "message": f"The `media_key` query parameter value [{key}] does not match {KEY_PATTERN}",
        }
    )
    listed = api.get("/2/media", params={"media_keys": f"3_1,{key}"})
    assert listed.status_code == 400
    assert listed.json()["errors"][0]["message"] == (
        f"The `media_keys` query parameter value [{key}] does not match {KEY_PATTERN}"
    )


def test_media_keys_count_and_presence(api: Api) -> None:
    keys = ",".join(f"3_{i}" for i in range(1, 102))
    too_many = api.get(f"/2/media?media_keys={keys}")
    assert too_many.status_code == 400
    assert too_many.json()["errors"] == [
        {
            "parameters": {"media_keys": [keys]},
            "message": "The number of values in the `media_keys` query parameter list [101] "
            "is not between 1 and 100",
        }
    ]
    absent = api.get("/2/media")
    assert absent.status_code == 400
    assert absent.json()["errors"] == [
        {"parameters": {"media_keys": []}, "message": "The `media_keys` query parameter can not be empty"}
    ]


def test_unknown_parameters_on_media(api: Api) -> None:
    response = api.get("/2/media/3_1", params={"expansions": "author_id"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "parameters": {"expansions": ["author_id"]},
            "message": "The query parameter [expansions] is not one of [media_key,media.fields]",
        }
    ]
    bad_field = api.get("/2/media/3_1", params={"media.fields": "url,size"})
    assert bad_field.json()["errors"] == [
        {
            "parameters": {"media.fields": ["url,size"]},
            "message": f"The `media.fields` query parameter value [size] is not one of [{ALL_MEDIA_FIELDS}]",
        }
    ]


def test_media_lookup_auth(api: Api, make_user: Any) -> None:
    media = import_media(api)
    path = f"/2/media/{media['media_key']}"
    for auth in ("app", "oauth1", "oauth2"):
        response = api.get(path, auth=auth)
        assert response.status_code == 200, (auth, response.text)
        assert response.json()["data"]["media_key"] == media["media_key"]
    user = make_user()
    token = api.http.post(
        "/_roost/tokens",
        json={
            "consumer_key": api.creds["consumer_key"],
            "user_id": user["id"],
            "kind": "oauth2",
            "scopes": "users.read",
        },
    ).json()
    refused = api.get(path, auth="none", headers={"Authorization": f"Bearer {token['access_token']}"})
    assert refused.status_code == 403
    assert refused.json() == {
        "title": "Forbidden",
        "type": "about:blank",
        "status": 403,
        "detail": "Forbidden",
    }
    assert api.get(path, auth="none").status_code == 401
