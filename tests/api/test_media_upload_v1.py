"""v1.1 on the upload hosts: `/1.1/media/upload.json` (simple, INIT / APPEND / FINALIZE / STATUS),
`metadata/create.json`; and `account/verify_credentials.json`, `users/show.json` in v1.1 shapes."""

from __future__ import annotations

import base64
from typing import Any

import httpx
from tests.support.client import Api
from tests.support.media_files import gif, mp4, png

UPLOAD = "/1.1/media/upload.json"


def signed_form(api: Api, path: str, form: dict[str, str]) -> httpx.Response:
    """A form-encoded POST signed with OAuth 1.0a (the form's pairs are part of the signature)."""
    headers = api.oauth1("POST", path, form=list(form.items()))
    return api.http.post(path, data=form, headers=headers)


def signed_multipart(
    api: Api, path: str, fields: dict[str, str], media: bytes | None = None
) -> httpx.Response:
    headers = api.oauth1("POST", path)  # multipart fields are not signed
    files = {"media": ("blob", media, "application/octet-stream")} if media is not None else None
    if files is None:
        files = {"_": ("", b"")}
    return api.http.post(path, data=fields, files=files, headers=headers)


def signed_get(api: Api, path: str, params: dict[str, str], **auth: Any) -> httpx.Response:
    url = str(httpx.URL(path, params=params))
    return api.http.get(url, headers=api.oauth1("GET", url, **auth))


def test_simple_upload(api: Api) -> None:
    data = png(12, 7)
    response = signed_multipart(api, UPLOAD, {}, data)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json;charset=utf-8"
    assert "image\\/png" in response.text  # slashes escaped, as the platform writes them
    body = response.json()
    assert body == {
        "media_id": body["media_id"],
        "media_id_string": str(body["media_id"]),
        "size": len(data),
        "expires_after_secs": 86400,
        "image": {"image_type": "image/png", "w": 12, "h": 7},
    }
    categorised = signed_multipart(api, UPLOAD, {"media_category": "TweetImage"}, data).json()
    assert categorised["media_key"] == f"3_{categorised['media_id']}"


def test_chunked_video_without_category_is_synchronous(api: Api) -> None:
    data = mp4(2500)
    init = signed_form(
        api, UPLOAD, {"command": "INIT", "total_bytes": str(len(data)), "media_type": "video/mp4"}
    )
    assert init.status_code == 202, init.text
    media_id = init.json()["media_id_string"]
    assert init.json() == {
        "media_id": int(media_id),
        "media_id_string": media_id,
        "expires_after_secs": 86400,
    }
    assert init.headers["x-mediaid"] == media_id
    assert init.headers["x-rate-limit-limit"] == "200"
    for index, start in enumerate(range(0, len(data), 1000)):
        fields = {"command": "APPEND", "media_id": media_id, "segment_index": str(index)}
        appended = signed_multipart(api, UPLOAD, fields, data[start : start + 1000])
        assert appended.status_code == 204
        assert appended.content == b""
        assert appended.headers["x-rate-limit-limit"] == "20000"
    done = signed_form(api, UPLOAD, {"command": "FINALIZE", "media_id": media_id})
    assert done.status_code == 201
    assert done.json() == {
        "media_id": int(media_id),
        "media_id_string": media_id,
        "size": len(data),
        "expires_after_secs": 86400,
        "video": {"video_type": "video/mp4"},
    }


def test_chunked_gif_with_category_is_processed(api: Api) -> None:
    data = gif(20, 10, extra=3000)
    init = signed_form(
        api,
        UPLOAD,
        {
            "command": "INIT",
            "total_bytes": str(len(data)),
            "media_type": "image/gif",
            "media_category": "tweet_gif",
        },
    ).json()
    media_id = init["media_id_string"]
    assert init["media_key"] == f"16_{media_id}"
    fields = {"command": "APPEND", "media_id": media_id, "segment_index": "0"}
    assert signed_multipart(api, UPLOAD, fields, data).status_code == 204
    done = signed_form(api, UPLOAD, {"command": "FINALIZE", "media_id": media_id}).json()
    assert done["processing_info"] == {"state": "pending", "check_after_secs": 1}
    assert done["image"] == {"image_type": "image/gif", "w": 20, "h": 10}
    api.http.post("/_roost/clock", json={"advance_seconds": 30})
    state = signed_get(api, UPLOAD, {"command": "STATUS", "media_id": media_id})
    assert state.status_code == 200
    assert state.json()["processing_info"] == {"state": "succeeded", "progress_percent": 100}


def test_upload_errors_have_the_upload_shape(api: Api) -> None:
    too_big = signed_form(
        api, UPLOAD, {"command": "INIT", "total_bytes": str(6 * 1024 * 1024), "media_type": "image/png"}
    )
    assert too_big.status_code == 400
    assert too_big.json() == {"request": UPLOAD, "error": "File size exceeds 5242880 bytes."}
    assert "\\/1.1\\/media\\/upload.json" in too_big.text
    unknown_type = signed_form(
        api, UPLOAD, {"command": "INIT", "total_bytes": "10", "media_type": "image/x-nope"}
    )
    assert unknown_type.json() == {"request": UPLOAD, "error": "media type unrecognized."}
    init = signed_form(
        api, UPLOAD, {"command": "INIT", "total_bytes": "100", "media_type": "image/png"}
    ).json()
    short = signed_form(api, UPLOAD, {"command": "FINALIZE", "media_id": init["media_id_string"]})
    assert short.status_code == 400
    assert short.json() == {"request": UPLOAD, "error": "Segments do not add up to provided total file size."}
    unsigned = api.http.post(UPLOAD, data={"command": "INIT"})
    assert unsigned.status_code == 400
    assert unsigned.json() == {"errors": [{"code": 215, "message": "Bad Authentication data."}]}
    bad = api.http.post(UPLOAD, data={"command": "INIT"}, headers=api.oauth1("POST", UPLOAD, secret="wrong"))
    assert bad.status_code == 401
    assert bad.json() == {"errors": [{"code": 32, "message": "Could not authenticate you."}]}


def test_metadata_create(api: Api) -> None:
    uploaded = signed_multipart(api, UPLOAD, {}, png(3, 3)).json()
    path = "/1.1/media/metadata/create.json"
    made = api.http.post(
        path,
        json={"media_id": uploaded["media_id_string"], "alt_text": {"text": "three by three"}},
        headers=api.oauth1("POST", path),
    )
    assert made.status_code == 200
    media = api.get(f"/2/media/3_{uploaded['media_id_string']}", params={"media.fields": "alt_text"}).json()
    assert media["data"]["alt_text"] == "three by three"


def test_verify_credentials(api: Api, credentials: dict[str, Any]) -> None:
    path = "/1.1/account/verify_credentials.json"
    response = signed_get(api, path, {"include_entities": "True", "skip_status": "False"})
    assert response.status_code == 200
    assert response.headers["x-rate-limit-limit"] == "75"
    body = response.json()
    assert body["id_str"] == credentials["user_id"]
    assert body["screen_name"] == credentials["username"]
    keys = list(body)
    assert keys[:4] == ["id", "id_str", "name", "screen_name"]
    assert keys[-3:] == ["translator_type", "suspended", "needs_phone_verification"]
    assert "user" not in body.get("status", {})
    skipped = signed_get(api, path, {"skip_status": "true"}).json()
    assert "status" not in skipped
    assert {k: v for k, v in body.items() if k != "status"} == skipped
    email = signed_get(api, path, {"include_email": "true"}).json()
    assert list(email)[4] == "email"


def test_users_show(api: Api, make_user: Any) -> None:
    user = make_user()
    path = "/1.1/users/show.json"
    by_name = signed_get(api, path, {"screen_name": user["username"]})
    assert by_name.status_code == 200
    body = by_name.json()
    assert body["id_str"] == user["id"]
    assert list(body)[4:6] == ["location", "profile_location"]
    assert "suspended" not in body
    by_id = signed_get(api, path, {"user_id": user["id"]}).json()
    assert by_id == body
    missing = signed_get(api, path, {"screen_name": "nobody_here_at_all"})
    assert missing.status_code == 404
    assert missing.json() == {"errors": [{"code": 50, "message": "User not found."}]}
    unknown_path = signed_get(api, "/1.1/statuses/nothing.json", {})
    assert unknown_path.status_code == 404
    assert unknown_path.json() == {"errors": [{"code": 34, "message": "Sorry, that page does not exist"}]}


def test_append_with_base64_media_data(api: Api, make_user: Any) -> None:
    data = png(5, 4, extra=1500)
    friend = make_user()
    init = signed_form(
        api,
        UPLOAD,
        {
            "command": "INIT",
            "total_bytes": str(len(data)),
            "media_type": "image/png",
            "additional_owners": friend["id"],
        },
    ).json()
    media_id = init["media_id_string"]
    for index, start in enumerate(range(0, len(data), 1000)):
        encoded = base64.b64encode(data[start : start + 1000]).decode()
        form = {"command": "APPEND", "media_id": media_id, "segment_index": str(index), "media_data": encoded}
        assert signed_form(api, UPLOAD, form).status_code == 204
    done = signed_form(api, UPLOAD, {"command": "FINALIZE", "media_id": media_id})
    assert done.json()["image"] == {"image_type": "image/png", "w": 5, "h": 4}
    served = httpx.head(f"{api.base_url}/media/{media_id}.png")
    assert served.status_code == 200
    assert served.headers["content-length"] == str(len(data))
    # The additional owner may post it.
    posted = api.post(
        "/2/tweets",
        auth="none",
        headers=api.oauth2(friend["oauth2"]),
        json={"text": "shared through v1.1", "media": {"media_ids": [media_id]}},
    )
    assert posted.status_code == 201, posted.text


def test_users_show_hides_a_protected_accounts_post(api: Api, make_user: Any) -> None:
    private = make_user(protected=True)
    posted = api.post(
        "/2/tweets", auth="none", headers=api.oauth2(private["oauth2"]), json={"text": "for followers only"}
    )
    assert posted.status_code == 201, posted.text
    path = "/1.1/users/show.json"
    seen_by_stranger = signed_get(api, path, {"screen_name": private["username"]}).json()
    assert seen_by_stranger["protected"] is True
    assert "status" not in seen_by_stranger
    seen_by_self = signed_get(
        api, path, {"screen_name": private["username"]}, token=private["token"], secret=private["secret"]
    ).json()
    assert seen_by_self["status"]["id_str"] == posted.json()["data"]["id"]
    assert seen_by_self["status"]["text"] == "for followers only"
