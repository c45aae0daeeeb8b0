"""Several server processes on one database: segments appended through one process and finalized
through another, the bytes served by either (PostgreSQL with ROOST_TEST_DATABASE_URL, else SQLite)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.api.test_persistence import _serve, _wait_ready
from tests.support.media_files import png
from tests.support.server import LiveServer, free_port, fresh_database_url


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    db_url = fresh_database_url("media_processes")
    first = LiveServer(tag="media_processes", db_url=db_url, rate_limits=False).start()
    port = free_port()
    second = _serve(db_url, port, tmp_path_factory.mktemp("second"))
    second_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(second_url, second)
        yield first.base_url, second_url
    finally:
        second.terminate()
        second.wait(timeout=15)
        first.stop()


def test_an_upload_spans_processes(pair: tuple[str, str]) -> None:
    first, second = pair
    credentials: dict[str, Any] = httpx.get(first + "/_roost/credentials", timeout=10).json()
    headers = {"Authorization": f"Bearer {credentials['oauth2_user_token']}"}
    data = png(17, 9, extra=300_000)
    started = httpx.post(
        first + "/2/media/upload/initialize",
        json={"media_type": "image/png", "total_bytes": len(data)},
        headers=headers,
    )
    assert started.status_code == 200, started.text
    media_id = started.json()["data"]["id"]
    half = len(data) // 2
    for index, (base, chunk) in enumerate(((first, data[:half]), (second, data[half:]))):
        appended = httpx.post(
            f"{base}/2/media/upload/{media_id}/append",
            data={"segment_index": str(index)},
            files={"media": ("blob", chunk, "application/octet-stream")},
            headers=headers,
        )
        assert appended.status_code == 200, appended.text
    done = httpx.post(f"{second}/2/media/upload/{media_id}/finalize", headers=headers)
    assert done.status_code == 200, done.text
    assert done.json()["data"]["image"] == {"image_type": "image/png", "w": 17, "h": 9}
    for base in (first, second):
        served = httpx.get(f"{base}/media/{media_id}.png")
        assert served.status_code == 200
        assert served.content == data


def test_export_and_import_carry_uploads(
    pair: tuple[str, str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    first, _ = pair
    credentials: dict[str, Any] = httpx.get(first + "/_roost/credentials", timeout=10).json()
    headers = {"Authorization": f"Bearer {credentials['oauth2_user_token']}"}
    data = png(8, 3, extra=1_200_000)
    uploaded = httpx.post(
        first + "/2/media/upload",
        data={"media_category": "tweet_image"},
        files={"media": ("a.png", data, "image/png")},
        headers=headers,
    ).json()["data"]
    media_id = uploaded["id"]
    alt = {"id": media_id, "metadata": {"alt_text": {"text": "carried over"}}}
    assert httpx.post(first + "/2/media/metadata", json=alt, headers=headers).status_code == 200
    exported = httpx.get(first + "/_roost/export", timeout=30).json()
    [item] = [u for u in exported["media_uploads"] if u["id"] == media_id]
    assert item["alt_text"] == "carried over" and (item["width"], item["height"]) == (8, 3)
    other = LiveServer(tag="media_import", demo=False).start()
    try:
        imported = httpx.post(other.base_url + "/_roost/import", json=exported, timeout=60)
        assert imported.status_code == 200, imported.text
        assert imported.json()["imported"]["media_uploads"] == len(exported["media_uploads"])
        served = httpx.get(f"{other.base_url}/media/{media_id}.png")
        assert served.status_code == 200 and served.content == data
    finally:
        other.stop()
