"""tweepy 4.17 `API.media_upload` (simple and chunked), `create_media_metadata`,
`get_media_upload_status`, `verify_credentials` and `get_user` against roost's v1.1 surface, through
the shipped redirect (upload.twitter.com and api.twitter.com), then the media attached to a post."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.clients.helpers import run_redirected_script
from tests.support.media_files import gif, mp4, png
from tests.support.server import LiveServer

pytestmark = pytest.mark.clients


def test_tweepy_api_media_upload(
    server: LiveServer, credentials: dict[str, Any], tmp_path: Path, make_user: Any
) -> None:
    base = server.base_url
    files = {"png": png(30, 20, extra=2_500_000), "mp4": mp4(2_300_000), "gif": gif(8, 6, extra=4000)}
    paths = {}
    for name, data in files.items():
        path = tmp_path / f"upload.{name}"
        path.write_bytes(data)
        paths[name] = str(path)
    other = make_user()
    params = {
        "consumer_key": credentials["consumer_key"],
        "consumer_secret": credentials["consumer_secret"],
        "token": credentials["access_token"],
        "secret": credentials["access_token_secret"],
        "screen_name": other["username"],
        **paths,
    }
    results = run_redirected_script(base, "tweepy_media.py", json.dumps(params))
    assert results["verify_credentials"] == {
        "id": credentials["user_id"],
        "screen_name": credentials["username"],
    }
    assert results["get_user"] == {"id": other["id"], "screen_name": other["username"]}
    simple = results["simple"]
    assert simple["image"] == {"image_type": "image/png", "w": 30, "h": 20}
    assert simple["size"] == len(files["png"])
    # Chunked in 1 MiB segments (three of them), read back whole.
    chunked = results["chunked_png"]
    assert chunked["image"] == {"image_type": "image/png", "w": 30, "h": 20}
    key = f"3_{chunked['media_id']}"
    url = httpx.get(f"{base}/2/media/{key}", params={"media.fields": "url"}, headers=_bearer(credentials))
    assert httpx.get(url.json()["data"]["url"]).content == files["png"]
    assert results["video"]["video"] == {"video_type": "video/mp4"}
    assert "processing_info" not in results["video"]
    # tweepy polled STATUS until the GIF was processed.
    assert results["status"]["processing_info"] == {"state": "succeeded", "progress_percent": 100}
    assert results["metadata"] is True
    post = results["post"]
    lookup = httpx.get(
        f"{base}/2/tweets/{post['id']}",
        params={"expansions": "attachments.media_keys", "media.fields": "alt_text,width,height"},
        headers=_bearer(credentials),
    ).json()
    assert lookup["includes"]["media"] == [
        {
            "media_key": f"3_{simple['media_id']}",
            "type": "photo",
            "alt_text": "alt from tweepy",
            "width": 30,
            "height": 20,
        }
    ]


def _bearer(credentials: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {credentials['bearer_token']}"}
