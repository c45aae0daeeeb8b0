"""twitter-api-v2 (npm, 1.29.1) media upload against roost: `v1.uploadMedia` (multipart commands,
concurrent APPENDs, STATUS polling), `v1.createMediaMetadata`, `v1.verifyCredentials`, and
`v2.uploadMedia` (initialize / append / finalize / STATUS), as a Node child under the redirect."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.clients.test_twitter_api_v2 import CHILD_TIMEOUT, NODE_DIR, node_ready
from tests.support.media_files import gif, png
from tests.support.server import LiveServer

from roost.redirect import redirect_env

pytestmark = pytest.mark.clients
__all__ = ["node_ready"]  # the fixture, used by name below
SCRIPT = NODE_DIR / "twitter_api_v2_media.cjs"


def run_script(server: LiveServer, params: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(SCRIPT), json.dumps(params)],
        cwd=NODE_DIR,
        env=redirect_env(server.base_url, os.environ),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"exited {done.returncode}\nstderr:\n{done.stderr[-4000:]}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_upload_media_v1_and_v2(
    node_ready: None, server: LiveServer, credentials: dict[str, Any], tmp_path: Path
) -> None:
    picture = png(40, 30, extra=2_300_000)  # three 1 MiB segments, sent concurrently by v1.uploadMedia
    animation = gif(9, 9, extra=2000)
    params = {
        "app_key": credentials["consumer_key"],
        "app_secret": credentials["consumer_secret"],
        "access_token": credentials["access_token"],
        "access_secret": credentials["access_token_secret"],
        "oauth2_token": credentials["oauth2_user_token"],
        "png": str(tmp_path / "picture.png"),
        "gif": str(tmp_path / "animation.gif"),
    }
    Path(params["png"]).write_bytes(picture)
    Path(params["gif"]).write_bytes(animation)
    results = run_script(server, params)
    assert "error" not in results, results
    assert results["verify"] == {"id": credentials["user_id"], "screen_name": credentials["username"]}
    for name in ("v1_png", "v1_gif", "v2_png", "v2_gif"):
        assert isinstance(results[name], str) and results[name].isdigit(), (name, results[name])
    assert results["v1_metadata"] is True
    bearer = {"Authorization": f"Bearer {credentials['bearer_token']}"}
    fields = {"media.fields": "url,width,height,alt_text,variants"}
    v1_png = httpx.get(
        f"{server.base_url}/2/media/3_{results['v1_png']}", params=fields, headers=bearer
    ).json()
    assert v1_png["data"]["alt_text"] == "alt from node"
    assert (v1_png["data"]["width"], v1_png["data"]["height"]) == (40, 30)
    assert httpx.get(v1_png["data"]["url"]).content == picture
    # v2.uploadMedia names tweet_gif for a GIF: processed, polled to success, served with its type.
    v2_gif = httpx.get(
        f"{server.base_url}/2/media/16_{results['v2_gif']}", params=fields, headers=bearer
    ).json()
    variant = v2_gif["data"]["variants"][0]
    assert variant["content_type"] == "image/gif"
    assert httpx.get(variant["url"]).content == animation
    post = httpx.get(
        f"{server.base_url}/2/tweets/{results['post']}",
        params={"tweet.fields": "attachments"},
        headers=bearer,
    ).json()
    assert post["data"]["attachments"] == {"media_keys": [f"3_{results['v2_png']}"]}
