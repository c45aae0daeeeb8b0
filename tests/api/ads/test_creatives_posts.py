"""Draft and scheduled posts, the account's posts, `POST tweet` and promoted-only (nullcast) posts,
the media library, account media and media creatives (issue 23)."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from tests.api.ads.creatives_support import image_key, in_future, in_library, line_item, move_clock, video_key
from tests.api.ads.helpers import AdsClient, error_codes
from tests.api.ads.own_server import own_server_fixtures
from tests.api.helpers import unique_text
from tests.support.client import Api
from tests.support.server import LiveServer

# Moves the clock by hours: a server of its own (tests/api/ads/own_server.py).
server, credentials = own_server_fixtures("creatives_posts")


def test_nullcast_post_is_hidden_from_public_reads(
    sandbox: AdsClient, account: dict[str, Any], api: Api, credentials: dict[str, Any]
) -> None:
    user_id = credentials["user_id"]
    text = unique_text("promoted only")
    made = sandbox.post(
        f"/accounts/{account['id']}/tweet", {"as_user_id": user_id, "text": text, "trim_user": "true"}
    )
    assert made.status_code == 200, made.text
    tweet = made.json()["data"]
    assert tweet["text"] == text and tweet["user"] == {"id": int(user_id), "id_str": user_id}
    assert tweet["id_str"] == str(tweet["id"]) and "full_text" not in tweet
    # Readable by id, absent from the author's timeline and from search.
    assert api.get(f"/2/tweets/{tweet['id_str']}").json()["data"]["text"] == text
    timeline = api.get(f"/2/users/{user_id}/tweets", params={"max_results": 100}).json().get("data", [])
    assert tweet["id_str"] not in [p["id"] for p in timeline]
    found = api.get("/2/tweets/search/recent", params={"query": f'"{text}"'}).json()
    assert found.get("data") is None
    listed = sandbox.get(f"/accounts/{account['id']}/tweets", {"tweet_type": "PUBLISHED"}).json()
    assert tweet["id_str"] in [t["tweet_id"] for t in listed["data"]]
    first = next(t for t in listed["data"] if t["tweet_id"] == tweet["id_str"])
    assert first["nullcast"] is True and first["full_text"] == text and first["tweet_type"] == "PUBLISHED"
    organic = sandbox.get(
        f"/accounts/{account['id']}/tweets", {"tweet_type": "PUBLISHED", "timeline_type": "ORGANIC"}
    )
    assert tweet["id_str"] not in [t["tweet_id"] for t in organic.json()["data"]]
    blank = sandbox.post(f"/accounts/{account['id']}/tweet", {"as_user_id": user_id})
    assert blank.status_code == 400 and error_codes(blank) == ["TWEET_CANNOT_BE_BLANK"]
    stranger = sandbox.post(f"/accounts/{account['id']}/tweet", {"as_user_id": "12", "text": "x"})
    assert stranger.status_code == 400 and error_codes(stranger) == ["INVALID_USER_ID"]


def test_draft_posts(sandbox: AdsClient, account: dict[str, Any], credentials: dict[str, Any]) -> None:
    base = f"/accounts/{account['id']}/draft_tweets"
    made = sandbox.post(base, {"as_user_id": credentials["user_id"], "text": "draft one"})
    assert made.status_code == 200, made.text
    draft = made.json()["data"]
    assert draft["nullcast"] is True and draft["media_keys"] == [] and draft["card_uri"] is None
    assert draft["user_id"] == credentials["user_id"] and "deleted" not in draft
    missing = sandbox.post(base, {"as_user_id": credentials["user_id"]})
    assert missing.status_code == 400 and error_codes(missing) == ["MISSING_PARAMETER"]
    changed = sandbox.put(f"{base}/{draft['id']}", {"text": "draft two", "nullcast": "false"}).json()["data"]
    assert changed["text"] == "draft two" and changed["nullcast"] is False
    assert [d["id"] for d in sandbox.get(base).json()["data"]] == [draft["id"]]
    preview = sandbox.post(f"{base}/preview/{draft['id']}")
    assert preview.status_code == 200, preview.text
    assert "data" not in preview.json() and preview.json()["message"].endswith("to preview your Tweet.")
    previews = sandbox.get(
        f"/accounts/{account['id']}/tweet_previews", {"tweet_ids": draft["id"], "tweet_type": "DRAFT"}
    ).json()
    assert [p["tweet_id"] for p in previews["data"]] == [draft["id"]]
    assert previews["data"][0]["preview"].startswith("<iframe class='tweet-preview'")
    wrong_type = sandbox.get(
        f"/accounts/{account['id']}/tweet_previews", {"tweet_ids": draft["id"], "tweet_type": "SCHEDULED"}
    )
    assert wrong_type.json()["data"] == []
    deleted = sandbox.delete(f"{base}/{draft['id']}").json()["data"]
    assert deleted["status"] == "DELETED"
    assert sandbox.get(f"{base}/{draft['id']}").status_code == 404


def test_scheduled_post_goes_out_on_the_roost_clock(
    sandbox: AdsClient, account: dict[str, Any], api: Api, server: LiveServer, credentials: dict[str, Any]
) -> None:
    base = f"/accounts/{account['id']}/scheduled_tweets"
    item = line_item(sandbox, account)
    now = api.http.get("/_roost/clock").json()["now"]
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(_parse(now) + 3600))
    text = unique_text("scheduled")
    made = sandbox.post(base, {"as_user_id": credentials["user_id"], "text": text, "scheduled_at": when})
    assert made.status_code == 200, made.text
    scheduled = made.json()["data"]
    assert scheduled["scheduled_status"] == "SCHEDULED" and scheduled["tweet_id"] is None
    association = sandbox.post(
        f"/accounts/{account['id']}/scheduled_promoted_tweets",
        {"line_item_id": item["id"], "scheduled_tweet_id": scheduled["id"]},
    ).json()["data"]
    past = sandbox.post(
        base, {"as_user_id": credentials["user_id"], "text": "x", "scheduled_at": "2001-01-01"}
    )
    assert past.status_code == 400 and error_codes(past) == ["INVALID_PARAMETER"]

    move_clock(server.base_url, 3601)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        current = sandbox.get(f"{base}/{scheduled['id']}").json()["data"]
        if current["scheduled_status"] != "SCHEDULED":
            break
        time.sleep(0.05)
    assert current["scheduled_status"] == "SUCCESS", current
    assert current["completed_at"] is not None and current["tweet_id"] is not None
    post = api.get(f"/2/tweets/{current['tweet_id']}").json()["data"]
    assert post["text"] == text
    promoted = sandbox.get(f"/accounts/{account['id']}/scheduled_promoted_tweets/{association['id']}").json()[
        "data"
    ]
    assert promoted["tweet_id"] == current["tweet_id"]
    tweets = sandbox.get(f"/accounts/{account['id']}/promoted_tweets", {"line_item_ids": item["id"]}).json()[
        "data"
    ]
    assert [t["tweet_id"] for t in tweets] == [current["tweet_id"]]
    late = sandbox.delete(f"/accounts/{account['id']}/scheduled_promoted_tweets/{association['id']}")
    assert late.status_code == 400


def test_scheduled_window_limit(
    sandbox: AdsClient, account: dict[str, Any], credentials: dict[str, Any], server: LiveServer
) -> None:
    base = f"/accounts/{account['id']}/scheduled_tweets"
    day = in_future(server.base_url, 86400)[:11]
    for index in range(30):
        made = sandbox.post(
            base,
            {
                "as_user_id": credentials["user_id"],
                "text": f"s{index}",
                "scheduled_at": f"{day}00:{index % 10:02d}:00Z",
            },
        )
        assert made.status_code == 200, made.text
    over = sandbox.post(
        base,
        {"as_user_id": credentials["user_id"], "text": "one more", "scheduled_at": f"{day}00:14:00Z"},
    )
    assert over.status_code == 400 and error_codes(over) == ["SCHEDULED_TWEET_LIMIT_EXCEEDED"]
    later = sandbox.post(
        base, {"as_user_id": credentials["user_id"], "text": "later", "scheduled_at": f"{day}00:30:00Z"}
    )
    assert later.status_code == 200


def test_media_library_account_media_and_creatives(
    sandbox: AdsClient, account: dict[str, Any], api: Api
) -> None:
    library = f"/accounts/{account['id']}/media_library"
    image, video = image_key(api), video_key(api)
    photo = in_library(sandbox, account["id"], image, name="Sunset", file_name="sunset.png")
    assert photo["media_type"] == "IMAGE" and photo["media_category"] == "TWEET_IMAGE" and "id" not in photo
    refused = sandbox.post(library, {"media_key": image.replace("3_", "3_9"), "name": "x"})
    assert refused.status_code == 400 and error_codes(refused) == ["INVALID_MEDIA_ID"]
    titled = sandbox.post(library, {"media_key": image, "title": "t"})
    assert titled.status_code == 200  # already there: the same item
    movie = in_library(sandbox, account["id"], video, title="Trailer")
    assert movie["media_category"] == "AMPLIFY_VIDEO" and movie["aspect_ratio"] == "16:9"
    assert sandbox.put(f"{library}/{image}", {"title": "no"}).status_code == 400
    assert [m["media_key"] for m in sandbox.get(library, {"media_type": "VIDEO"}).json()["data"]] == [video]
    assert [m["media_key"] for m in sandbox.get(library, {"q": "sunset"}).json()["data"]] == [image]
    assert sandbox.get(library, {"count": 51}).status_code == 400
    assert sandbox.get(f"{library}/{video}").json()["data"]["title"] == "Trailer"

    media = sandbox.get(f"/accounts/{account['id']}/account_media").json()["data"]
    assert [(m["creative_type"], m["video_id"]) for m in media] == [("PREROLL", video)]
    item = line_item(sandbox, account)
    creatives = f"/accounts/{account['id']}/media_creatives"
    made = sandbox.post(creatives, {"line_item_id": item["id"], "account_media_id": media[0]["id"]})
    assert made.status_code == 200, made.text
    creative = made.json()["data"]
    assert creative["creative_type"] == "PREROLL" and creative["entity_status"] == "ACTIVE"
    assert [c["id"] for c in sandbox.get(creatives, {"line_item_ids": item["id"]}).json()["data"]] == [
        creative["id"]
    ]
    assert [c["id"] for c in sandbox.get(creatives, {"campaign_id": item["campaign_id"]}).json()["data"]] == [
        creative["id"]
    ]
    assert sandbox.delete(f"{creatives}/{creative['id']}").json()["data"]["deleted"] is True
    assert sandbox.get(f"{creatives}/{creative['id']}").status_code == 404
    gone = sandbox.delete(f"{library}/{image}").json()["data"]
    assert gone["deleted"] is True
    assert sandbox.get(f"{library}/{image}").status_code == 404


def _parse(stamp: str) -> float:
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
