"""The `space` and `topic` object kinds: fields, defaults, renderers, expansions, and the catalogue
of topics a Space may name (the platform's topics are its own curated list, not user-made)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.fields import Expansion, ObjectKind, RenderContext, Row

SPACE_FIELDS = (
    "created_at",
    "creator_id",
    "ended_at",
    "host_ids",
    "id",
    "invited_user_ids",
    "is_ticketed",
    "lang",
    "participant_count",
    "scheduled_start",
    "speaker_ids",
    "started_at",
    "state",
    "subscriber_count",
    "title",
    "topic_ids",
    "updated_at",
)
TOPIC_FIELDS = ("description", "id", "name")

# The topics Spaces are tagged with: ids as the platform's topic ids look (18-digit strings).
TOPICS: tuple[dict[str, str], ...] = (
    {"id": "848920371311001600", "name": "Technology", "description": "All about technology"},
    {"id": "848921413196984320", "name": "Computer programming", "description": "Programming and code"},
    {"id": "849075668352499712", "name": "Open source", "description": "Open source software"},
    {"id": "1280253698024771584", "name": "Databases", "description": "Storing and querying data"},
    {"id": "913142676819648512", "name": "Cryptocurrencies", "description": "Crypto and blockchains"},
    {"id": "839543390201413632", "name": "Music", "description": "Music and musicians"},
    {"id": "847869481390272512", "name": "Science", "description": "Science news and discussion"},
    {"id": "1253043236624969728", "name": "Startups", "description": "Founders and new companies"},
)
TOPICS_BY_ID: Mapping[str, dict[str, str]] = {topic["id"]: topic for topic in TOPICS}


def id_list(value: str | None) -> list[Any]:
    """A JSON array column (host_ids, speaker_ids, invited_user_ids, topic_ids) as a list."""
    return list(jsonio.loads(value)) if value else []


def topics_by_id(keys: Iterable[Any]) -> dict[Any, dict[str, Any]]:
    return {key: TOPICS_BY_ID[key] for key in keys if key in TOPICS_BY_ID}


def _user_ids(row: Row, column: str) -> list[str] | None:
    ids = id_list(row[column])
    return [str(user_id) for user_id in ids] or None


def _time(value: int | None) -> str | None:
    return None if value is None else iso_ms(value)


def _field(row: Row, name: str) -> Any:
    if name == "id":
        return row["id"]
    if name == "state":
        return row["state"]
    if name == "creator_id":
        return str(row["creator_id"])
    if name == "title":
        return row["title"]
    if name in ("created_at", "started_at", "ended_at", "scheduled_start", "updated_at"):
        return _time(row[name])
    if name in ("host_ids", "speaker_ids", "invited_user_ids"):
        return _user_ids(row, name)
    if name == "topic_ids":
        return [str(topic) for topic in id_list(row["topic_ids"])] or None
    if name == "is_ticketed":
        return bool(row["is_ticketed"])
    if name == "lang":
        return row["lang"]
    if name in ("participant_count", "subscriber_count"):
        # A scheduled Space has no audience yet: only reminder sign-ups count.
        if name == "participant_count" and row["state"] == "scheduled":
            return None
        return int(row[name])
    return None


def render_space(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        value = _field(row, name)
        if value is not None:
            out[name] = value
    return out


def render_topic(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    return {name: row[name] for name in names if row.get(name) is not None}


SPACE_KINDS = (
    ObjectKind(
        "space",
        "space",
        ("space.fields",),
        SPACE_FIELDS,
        {},
        ("id", "state"),
        {"tweet": "spaces", "post": "spaces"},
        render_space,
        lambda row: row["id"],
    ),
    ObjectKind(
        "topic",
        "topic",
        ("topic.fields",),
        TOPIC_FIELDS,
        {},
        ("id", "name"),
        {"tweet": "topics", "post": "topics"},
        render_topic,
        lambda row: row["id"],
    ),
)


def _users(column: str) -> Any:
    return lambda row: [int(user_id) for user_id in id_list(row[column])]


SPACE_EXPANSIONS = {
    # Declared in the documents' order (the 400 message lists them so).
    "space": (
        Expansion("creator_id", "user", lambda r: (r["creator_id"],), implies=("creator_id",)),
        Expansion("host_ids", "user", _users("host_ids"), implies=("host_ids",)),
        Expansion("invited_user_ids", "user", _users("invited_user_ids"), implies=("invited_user_ids",)),
        Expansion("speaker_ids", "user", _users("speaker_ids"), implies=("speaker_ids",)),
        Expansion(
            "topic_ids", "topic", lambda r: [str(t) for t in id_list(r["topic_ids"])], implies=("topic_ids",)
        ),
    )
}
