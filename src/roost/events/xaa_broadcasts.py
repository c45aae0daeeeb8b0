"""Activity events (XAA) of broadcasts: where `broadcast.start`, `broadcast.end` and `broadcast.chat`
log rows go, and the payloads they carry, key for key as the event-payloads page's samples show them.

- `broadcast.start` / `broadcast.end`: for subscriptions filtering on the broadcaster. Payload: the host
  `user` as `{"data": User}`, `broadcast_id`, `event_timestamp_ms`, `title`, `broadcast_state`
  (`Running` / `Ended`), `created_timestamp_ms`, `updated_timestamp_ms`, (end: `duration_ms`),
  `language`, `thumbnail_url`, `available_for_replay`; every integer with its `_str` twin.
- `broadcast.chat`: for subscriptions filtering on the broadcast's owner (who receives the chat).
  Payload: `broadcast_id`, `message_id`, `message` (the text), `author` as `{"data": User}`.

No `includes` for any of them (the samples have none). `events/xaa.py` calls these two functions for
the `broadcast.*` kinds.
"""

from __future__ import annotations

from typing import Any

from roost.core.records import Row
from roost.events.xaa_payloads import ActivityPayloads, with_string_twins

# Where an event can go, for `events/xaa.py` and this module (defined here, below xaa.py's imports):
# (event types a subscription may name, the user its filter must name, direction relative to that user)
Route = tuple[tuple[str, ...], int, str | None]

BROADCAST_KINDS = ("broadcast.start", "broadcast.end", "broadcast.chat")
# A broadcast without a locale is announced in English (every sample carries a `language`).
DEFAULT_LANGUAGE = "en"
STATES = {"broadcast.start": "Running", "broadcast.end": "Ended"}
# The thumbnails the samples show: a live one while running, the replay's once ended.
THUMBNAIL = "https://pbs.twimg.com/broadcast_thumbnails/{broadcast_id}/{which}-thumbnail.jpg"


def broadcast_routes(kind: str, payload: dict[str, Any]) -> list[Route]:
    """Where a broadcast log row can go (pure: unit-tested without a database)."""
    if kind in ("broadcast.start", "broadcast.end"):
        return [((kind,), int(payload["user_id"]), None)]
    if kind == "broadcast.chat":
        return [((kind,), int(payload["owner_id"]), None)]
    return []


async def broadcast_payload(
    kind: str, payload: dict[str, Any], event: Row, payloads: ActivityPayloads
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(payload, includes) of a broadcast event; (None, None) for any other kind."""
    if kind == "broadcast.chat":
        return {
            "broadcast_id": str(payload["broadcast_id"]),
            "message_id": str(payload["message_id"]),
            "message": str(payload["text"]),
            "author": {"data": await payloads.user(int(payload["author_id"]))},
        }, None
    state = STATES.get(kind)
    if state is None:
        return None, None
    broadcast_id = str(payload["broadcast_id"])
    timing: dict[str, Any] = {
        "event_timestamp_ms": int(event["created_at"]),
        "title": payload.get("title") or "",
        "broadcast_state": state,
        "created_timestamp_ms": int(payload["created_at"]),
        "updated_timestamp_ms": int(payload["updated_at"]),
    }
    ended = kind == "broadcast.end"
    if ended and payload.get("started_at") is not None and payload.get("ended_at") is not None:
        timing["duration_ms"] = max(0, int(payload["ended_at"]) - int(payload["started_at"]))
    timing["language"] = payload.get("locale") or DEFAULT_LANGUAGE
    timing["thumbnail_url"] = THUMBNAIL.format(broadcast_id=broadcast_id, which="replay" if ended else "live")
    timing["available_for_replay"] = bool(payload.get("available_for_replay"))
    body: dict[str, Any] = {
        "user": {"data": await payloads.user(int(payload["user_id"]))},
        "broadcast_id": broadcast_id,
        **with_string_twins(timing),
    }
    return body, None
