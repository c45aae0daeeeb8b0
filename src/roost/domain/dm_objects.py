"""The `dm_event` object kind: its fields, defaults, renderer and expansions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.fields import POST_VOCAB, Expansion, ObjectKind, RenderContext, Row

DM_EVENT_FIELDS = (
    "attachments",
    "created_at",
    "dm_conversation_id",
    "entities",
    "event_type",
    "id",
    "participant_ids",
    "referenced_tweets",
    "sender_id",
    "text",
)
DM_EVENT_ALIASES = {"referenced_posts": "referenced_tweets"}


def _json(value: str | None) -> Any:
    return jsonio.loads(value) if value else None


def _media_keys(row: Row) -> list[str]:
    attachments = _json(row["attachments"]) or {}
    return list(attachments.get("media_keys", ()))


def _participants(row: Row) -> list[int]:
    return [int(user_id) for user_id in _json(row["participant_ids"]) or ()]


def _referenced(row: Row) -> list[int]:
    return [int(post_id) for post_id in _json(row["referenced_post_ids"]) or ()]


def _field(row: Row, name: str, ctx: RenderContext) -> Any:
    if name == "id":
        return str(row["id"])
    if name == "event_type":
        return row["event_type"]
    if name == "text":
        return row["text"]
    if name == "created_at":
        return iso_ms(row["created_at"])
    if name == "dm_conversation_id":
        return row["conversation_id"]
    if name == "sender_id":
        return None if row["sender_id"] is None else str(row["sender_id"])
    if name == "participant_ids":  # only ParticipantsJoin / ParticipantsLeave carry it
        participants = _participants(row)
        return [str(user_id) for user_id in participants] or None
    if name == "entities":
        return _json(row["entities"])
    if name == "attachments":
        keys = _media_keys(row)
        return {"media_keys": keys} if keys else None
    if name == "referenced_tweets":
        refs = _referenced(row)
        return [{"id": str(post_id)} for post_id in refs] or None
    return None


def render_dm_event(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        value = _field(row, name, ctx)
        if value is not None:
            out["referenced_posts" if name == "referenced_tweets" and ctx.vocab == POST_VOCAB else name] = (
                value
            )
    return out


DM_KINDS = (
    ObjectKind(
        "dm_event",
        "dm_event",
        ("dm_event.fields",),
        DM_EVENT_FIELDS,
        DM_EVENT_ALIASES,
        ("id", "event_type", "text"),
        {"tweet": "dm_events", "post": "dm_events"},
        render_dm_event,
        lambda row: row["id"],
    ),
)

DM_EXPANSIONS = {
    "dm_event": (
        Expansion("attachments.media_keys", "media", _media_keys, lookup="key", implies=("attachments",)),
        Expansion("participant_ids", "user", _participants, implies=("participant_ids",)),
        Expansion(
            "referenced_tweets.id",
            "tweet",
            _referenced,
            aliases=("referenced_posts",),
            implies=("referenced_tweets",),
        ),
        Expansion(
            "sender_id",
            "user",
            lambda r: () if r["sender_id"] is None else (r["sender_id"],),
            implies=("sender_id",),
        ),
    )
}
