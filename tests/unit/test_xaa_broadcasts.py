"""The broadcast events of the activity API (`events/xaa_broadcasts.py`): where each log row goes, and
its payload key for key as the event-payloads page's samples show it."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from roost.events.xaa_broadcasts import broadcast_payload, broadcast_routes
from roost.events.xaa_payloads import ActivityPayloads

OWNER, VIEWER = 1111, 2222
STARTED = {
    "broadcast_id": "1AbCdEfGhIjKl",
    "user_id": str(OWNER),
    "title": "Launch",
    "locale": "fr",
    "available_for_replay": True,
    "created_at": 1_720_000_000_000,
    "updated_at": 1_720_000_003_200,
    "started_at": 1_720_000_003_000,
    "ended_at": None,
}
CHAT = {
    "broadcast_id": "1AbCdEfGhIjKl",
    "owner_id": str(OWNER),
    "author_id": str(VIEWER),
    "message_id": "1720000004000000123",
    "text": "hello",
}


class Users:
    """Stands in for `ActivityPayloads`: only its `user` is read."""

    async def user(self, user_id: int) -> dict[str, Any]:
        return {"id": str(user_id), "username": f"u{user_id}"}


def render(kind: str, payload: dict[str, Any], created_at: int = 1_720_000_003_500) -> Any:
    event = {"id": 9, "kind": kind, "created_at": created_at}
    return asyncio.run(broadcast_payload(kind, payload, event, cast(ActivityPayloads, Users())))


def test_routes_go_to_the_broadcaster_and_the_chat_to_the_owner() -> None:
    assert broadcast_routes("broadcast.start", STARTED) == [(("broadcast.start",), OWNER, None)]
    assert broadcast_routes("broadcast.end", STARTED) == [(("broadcast.end",), OWNER, None)]
    assert broadcast_routes("broadcast.chat", CHAT) == [(("broadcast.chat",), OWNER, None)]
    assert broadcast_routes("spaces.start", {"creator_id": "1"}) == []


def test_start_payload_has_the_samples_keys_with_string_twins() -> None:
    body, includes = render("broadcast.start", STARTED)
    assert includes is None
    assert body == {
        "user": {"data": {"id": str(OWNER), "username": f"u{OWNER}"}},
        "broadcast_id": "1AbCdEfGhIjKl",
        "event_timestamp_ms": 1_720_000_003_500,
        "event_timestamp_ms_str": "1720000003500",
        "title": "Launch",
        "broadcast_state": "Running",
        "created_timestamp_ms": 1_720_000_000_000,
        "created_timestamp_ms_str": "1720000000000",
        "updated_timestamp_ms": 1_720_000_003_200,
        "updated_timestamp_ms_str": "1720000003200",
        "language": "fr",
        "thumbnail_url": "https://pbs.twimg.com/broadcast_thumbnails/1AbCdEfGhIjKl/live-thumbnail.jpg",
        "available_for_replay": True,
    }


def test_end_payload_adds_the_duration() -> None:
    ended = {**STARTED, "ended_at": 1_720_000_006_800, "updated_at": 1_720_000_007_000, "locale": None}
    body, _ = render("broadcast.end", ended)
    assert body["broadcast_state"] == "Ended"
    assert (body["duration_ms"], body["duration_ms_str"]) == (3800, "3800")
    assert body["language"] == "en"  # no locale: English
    assert body["thumbnail_url"].endswith("/replay-thumbnail.jpg")
    keys = list(body)
    assert keys.index("duration_ms") < keys.index("language")  # the sample's order


def test_chat_payload_names_the_author() -> None:
    body, includes = render("broadcast.chat", CHAT)
    assert includes is None
    assert body == {
        "broadcast_id": "1AbCdEfGhIjKl",
        "message_id": "1720000004000000123",
        "message": "hello",
        "author": {"data": {"id": str(VIEWER), "username": f"u{VIEWER}"}},
    }


def test_other_kinds_are_not_broadcasts() -> None:
    assert render("spaces.start", {"space_id": "1x", "creator_id": "1"}) == (None, None)
