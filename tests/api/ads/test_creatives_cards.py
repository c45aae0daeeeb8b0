"""Cards (issue 23): component cards and their rules, `cards/all`, poll and conversation cards, and
`card_uri` on posts (v2 and the ads endpoints)."""

from __future__ import annotations

from typing import Any

from tests.api.ads.creatives_support import image_key, in_library, video_key
from tests.api.ads.helpers import AdsClient, error_codes
from tests.support.client import Api

WEBSITE = {
    "type": "DETAILS",
    "title": "Roost",
    "destination": {"type": "WEBSITE", "url": "https://example.com"},
}
APP = {
    "type": "BUTTON",
    "label": {"type": "ENUM", "value": "INSTALL"},
    "destination": {"type": "APP", "country_code": "US", "googleplay_app_id": "com.example"},
}


def test_component_cards_lifecycle(sandbox: AdsClient, account: dict[str, Any], api: Api) -> None:
    base = f"/accounts/{account['id']}/cards"
    image, video = image_key(api), video_key(api)
    in_library(sandbox, account["id"], image)
    in_library(sandbox, account["id"], video)
    made = sandbox.post(
        base, json={"name": "app card", "components": [{"type": "MEDIA", "media_key": image}, APP]}
    )
    assert made.status_code == 200, made.text
    card = made.json()["data"]
    assert card["card_type"] == "IMAGE_APP" and card["card_uri"] == f"card://{card['id']}"
    assert card["id"].isdigit() and card["deleted"] is False
    assert made.json()["request"]["params"] == {"account_id": account["id"]}
    carousel = sandbox.post(
        base,
        json={
            "name": "Mixed",
            "components": [{"type": "SWIPEABLE_MEDIA", "media_keys": [image, video]}, WEBSITE],
        },
    ).json()["data"]
    assert carousel["card_type"] == "MIXED_MEDIA_SINGLE_DEST_CAROUSEL_WEBSITE"

    changed = sandbox.put(
        f"{base}/{card['id']}", json={"components": [{"type": "MEDIA", "media_key": video}, WEBSITE]}
    ).json()["data"]
    assert changed["card_type"] == "VIDEO_WEBSITE" and changed["name"] == "app card"
    assert sandbox.get(f"{base}/{card['id']}").json()["data"] == changed

    listed = sandbox.get(base, {"card_types": "VIDEO_WEBSITE"}).json()
    assert [c["id"] for c in listed["data"]] == [card["id"]] and listed["next_cursor"] is None
    assert [c["id"] for c in sandbox.get(base, {"q": "mix"}).json()["data"]] == [carousel["id"]]
    by_uri = sandbox.get(base, {"card_uris": carousel["card_uri"]}).json()["data"]
    assert [c["id"] for c in by_uri] == [carousel["id"]]

    fetched = sandbox.get(f"{base}/all", {"card_uris": f"{card['card_uri']},card://1"}).json()
    assert [c["id"] for c in fetched["data"]] == [card["id"]]
    assert fetched["request"]["params"]["card_uris"] == [card["card_uri"], "card://1"]
    assert sandbox.get(f"{base}/all/{card['id']}").json()["data"]["card_uri"] == card["card_uri"]

    gone = sandbox.delete(f"{base}/{card['id']}").json()["data"]
    assert gone["deleted"] is True
    assert sandbox.get(f"{base}/{card['id']}").status_code == 404
    assert sandbox.get(f"{base}/{card['id']}", {"with_deleted": "true"}).json()["data"]["deleted"] is True


def test_component_rules(sandbox: AdsClient, account: dict[str, Any], api: Api) -> None:
    base = f"/accounts/{account['id']}/cards"
    image = image_key(api)
    media = {"type": "MEDIA", "media_key": image}
    missing_library = sandbox.post(base, json={"name": "n", "components": [media, APP]})
    assert missing_library.status_code == 404 and error_codes(missing_library) == ["NOT_FOUND"]
    in_library(sandbox, account["id"], image)
    cases = [
        ({"components": [media, APP]}, "MISSING_PARAMETER"),  # no name
        ({"name": "n", "components": [media]}, "INVALID_PARAMETER"),  # no description component
        (
            {"name": "n", "components": [media, {**WEBSITE, "destination": APP["destination"]}]},
            "INVALID_PARAMETER",
        ),
        (
            {"name": "n", "components": [media, {**APP, "label": {"type": "ENUM", "value": "BUY"}}]},
            "INVALID_PARAMETER",
        ),
        (
            {"name": "n", "components": [{"type": "SWIPEABLE_MEDIA", "media_keys": [image]}, WEBSITE]},
            "INVALID_PARAMETER",
        ),
        ({"name": "x" * 81, "components": [media, APP]}, "INVALID_PARAMETER"),
        ({"name": "n", "components": [media, APP], "slides": []}, "EXCLUSIVE_PARAMETERS"),
    ]
    for body, code in cases:
        refused = sandbox.post(base, json=body)
        assert refused.status_code == 400 and error_codes(refused) == [code], (body, refused.text)
    not_json = sandbox.post(base, {"name": "n"})
    assert not_json.status_code == 400
    assert sandbox.get(base).json()["data"] == []


def test_poll_and_conversation_cards(sandbox: AdsClient, account: dict[str, Any], api: Api) -> None:
    root = f"/accounts/{account['id']}/cards"
    image, video = image_key(api), video_key(api)
    in_library(sandbox, account["id"], image)
    in_library(sandbox, account["id"], video)
    poll = sandbox.post(
        f"{root}/poll",
        {"name": "coast", "duration_in_minutes": 60, "first_choice": "East", "second_choice": "West"},
    )
    assert poll.status_code == 200, poll.text
    card = poll.json()["data"]
    assert card["card_type"] == "TEXT_POLLS" and card["duration_in_minutes"] == "60"
    assert card["card_uri"].startswith("card://") and not card["id"].isdigit()
    no_third = sandbox.post(
        f"{root}/poll",
        {
            "name": "p",
            "duration_in_minutes": 60,
            "first_choice": "a",
            "second_choice": "b",
            "fourth_choice": "d",
        },
    )
    assert no_third.status_code == 400 and error_codes(no_third) == ["INVALID_PARAMETER"]
    short = sandbox.post(
        f"{root}/poll", {"name": "p", "duration_in_minutes": 4, "first_choice": "a", "second_choice": "b"}
    )
    assert short.status_code == 400
    assert sandbox.put(f"{root}/poll/{card['id']}", {"name": "x"}).status_code == 405
    assert [c["id"] for c in sandbox.get(f"{root}/poll").json()["data"]] == [card["id"]]
    # Poll and conversation cards are not listed with the component cards, but found by uri.
    assert sandbox.get(root).json()["data"] == []
    assert [c["id"] for c in sandbox.get(f"{root}/all", {"card_uris": card["card_uri"]}).json()["data"]] == [
        card["id"]
    ]

    conversation = {
        "name": "chat",
        "first_cta": "#yes",
        "first_cta_tweet": "yes!",
        "thank_you_text": "thanks",
    }
    untitled = sandbox.post(f"{root}/image_conversation", {**conversation, "media_key": image})
    assert untitled.status_code == 400 and error_codes(untitled) == ["MISSING_PARAMETER"]
    wrong_media = sandbox.post(
        f"{root}/image_conversation", {**conversation, "media_key": video, "title": "T"}
    )
    assert wrong_media.status_code == 400
    chat = sandbox.post(
        f"{root}/image_conversation", {**conversation, "media_key": image, "title": "T"}
    ).json()["data"]
    assert chat["card_type"] == "IMAGE_CONVERSATION" and chat["image_display_width"] == "1200"
    renamed = sandbox.put(f"{root}/image_conversation/{chat['id']}", {"name": "renamed"}).json()["data"]
    assert renamed["name"] == "renamed" and renamed["first_cta"] == "#yes"
    movie = sandbox.post(
        f"{root}/video_conversation",
        {**conversation, "media_key": video, "second_cta": "#no", "second_cta_tweet": "no"},
    ).json()["data"]
    assert movie["card_type"] == "VIDEO_CONVERSATION" and movie["video_width"] == "16"

    deleted = sandbox.delete(f"{root}/poll/{card['id']}").json()["data"]
    assert deleted["deleted"] is True
    # A hard delete: not even with_deleted finds it.
    assert sandbox.get(f"{root}/poll/{card['id']}", {"with_deleted": "true"}).status_code == 404
    assert (
        sandbox.get(f"{root}/all", {"card_uris": card["card_uri"], "with_deleted": "true"}).json()["data"]
        == []
    )


def test_card_uri_on_posts(sandbox: AdsClient, account: dict[str, Any], api: Api) -> None:
    image = image_key(api)
    in_library(sandbox, account["id"], image)
    card = sandbox.post(
        f"/accounts/{account['id']}/cards",
        json={"name": "c", "components": [{"type": "MEDIA", "media_key": image}, WEBSITE]},
    ).json()["data"]
    made = api.post("/2/tweets", auth="oauth2", json={"text": "with a card", "card_uri": card["card_uri"]})
    assert made.status_code == 201, made.text
    post = api.get(f"/2/tweets/{made.json()['data']['id']}", params={"tweet.fields": "card_uri"}).json()[
        "data"
    ]
    assert post["card_uri"] == card["card_uri"]
    unknown = api.post("/2/tweets", auth="oauth2", json={"text": "no such card", "card_uri": "card://1"})
    assert unknown.status_code == 400, unknown.text
    assert "card_uri" in unknown.text
    draft = sandbox.post(
        f"/accounts/{account['id']}/draft_tweets",
        {"as_user_id": api.creds["user_id"], "text": "draft", "card_uri": "card://1"},
    )
    assert draft.status_code == 404 and error_codes(draft) == ["NOT_FOUND"]
    assert draft.json()["errors"][0]["parameter"] == "card_uri"
