"""Shared by the creatives tests (issue 23): media uploaded through roost's media upload and added
to an ads account's Media Library, a line item, a move of the roost clock."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
from tests.api.ads.helpers import AdsClient
from tests.support.client import Api
from tests.support.media_files import mp4, png


def upload(api: Api, data: bytes, media_type: str, category: str) -> str:
    """One-shot chunked upload by the demo user; the media key."""
    started = api.request(
        "POST",
        "/2/media/upload/initialize",
        auth="oauth2",
        conform=False,
        json={"media_type": media_type, "total_bytes": len(data), "media_category": category},
    )
    assert started.status_code == 200, started.text
    media_id = started.json()["data"]["id"]
    appended = api.request(
        "POST",
        f"/2/media/upload/{media_id}/append",
        auth="oauth2",
        conform=False,
        files={"media": ("blob", data, "application/octet-stream")},
        data={"segment_index": "0"},
    )
    assert appended.status_code == 200, appended.text
    done = api.request("POST", f"/2/media/upload/{media_id}/finalize", auth="oauth2", conform=False)
    assert done.status_code == 200, done.text
    return str(done.json()["data"]["media_key"])


def image_key(api: Api) -> str:
    return upload(api, png(1200, 628), "image/png", "tweet_image")


def video_key(api: Api) -> str:
    return upload(api, mp4(4000), "video/mp4", "amplify_video")


def in_library(sandbox: AdsClient, account_id: str, media_key: str, **params: Any) -> dict[str, Any]:
    added = sandbox.post(f"/accounts/{account_id}/media_library", {"media_key": media_key, **params})
    assert added.status_code == 200, added.text
    return dict(added.json()["data"])


def line_item(sandbox: AdsClient, account: dict[str, Any], **params: Any) -> dict[str, Any]:
    campaign = sandbox.post(
        f"/accounts/{account['id']}/campaigns",
        {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "c",
            "daily_budget_amount_local_micro": 10**7,
        },
    )
    assert campaign.status_code == 200, campaign.text
    sent = {
        "campaign_id": campaign.json()["data"]["id"],
        "objective": "ENGAGEMENTS",
        "product_type": "PROMOTED_TWEETS",
        "placements": "ALL_ON_TWITTER",
        **params,
    }
    made = sandbox.post(f"/accounts/{account['id']}/line_items", sent)
    assert made.status_code == 200, made.text
    return dict(made.json()["data"])


def move_clock(base_url: str, seconds: float) -> None:
    moved = httpx.post(base_url + "/_roost/clock", json={"advance_seconds": seconds}, timeout=30)
    assert moved.status_code == 200, moved.text


def in_future(base_url: str, seconds: float) -> str:
    """The roost clock's now plus `seconds`, to the minute, as `scheduled_at` takes it."""
    now = httpx.get(base_url + "/_roost/clock", timeout=30).json()["now"]
    at = dt.datetime.fromisoformat(now.replace("Z", "+00:00")) + dt.timedelta(seconds=seconds)
    return at.strftime("%Y-%m-%dT%H:%M:00Z")
