"""Shared support for the tests of the fields engine (roost.core.fields) with the platform's kinds
(roost.domain.objects): parse/render helpers and an in-memory loader whose rows have the columns of
the storage tables (roost.storage.schema).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from roost.core.fields import FieldsEngine, RenderContext, Rendered, Row, Selection
from roost.domain.objects import EXPANSIONS, KINDS

ENGINE = FieldsEngine(KINDS, EXPANSIONS)
NOW = 1_700_000_000_000  # 2023-11-14T22:13:20.000Z

DEFAULTS = {
    "tweet": ("id", "text", "edit_history_tweet_ids"),
    "media": ("media_key", "type"),
    "poll": ("id", "options"),
    "place": ("full_name", "id"),
    "user": ("id", "name", "username"),
}


# ---- rows shaped like the storage rows -------------------------------------------------------


def _j(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


def post(
    id: int,
    author_id: int,
    text: str = "hello",
    *,
    entities: Mapping[str, Any] | None = None,
    media_keys: list[str] | None = None,
    edit_history: list[int] | None = None,
    **columns: Any,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": id,
        "author_id": author_id,
        "text": text,
        "display_text": None,
        "created_at": NOW - 60_000,
        "conversation_id": id,
        "in_reply_to_post_id": None,
        "in_reply_to_user_id": None,
        "quoted_post_id": None,
        "reposted_post_id": None,
        "lang": "en",
        "possibly_sensitive": 0,
        "reply_settings": "everyone",
        "source": None,
        "nullcast": 0,
        "card_uri": None,
        "community_id": None,
        "share_with_followers": 0,
        "paid_partnership": 0,
        "place_id": None,
        "media_keys": _j(media_keys),
        "poll_id": None,
        "entities": _j(entities),
        "context_annotations": None,
        "withheld": None,
        "edit_history": _j(edit_history),
        "edits_remaining": 5,
        "is_edit_eligible": 1,
        "superseded_by": None,
        "retweet_count": 1,
        "reply_count": 2,
        "like_count": 3,
        "quote_count": 4,
        "bookmark_count": 5,
        "impression_count": 6,
        "deleted_at": None,
    }
    for name, value in columns.items():
        assert name in row, name
        row[name] = value
    return row


def user(id: int, username: str, **columns: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": id,
        "username": username,
        "username_lower": username.lower(),
        "name": f"{username} name",
        "created_at": NOW - 86_400_000,
        "description": "",
        "location": None,
        "url": "",
        "profile_image_url": None,
        "profile_banner_url": None,
        "protected": 0,
        "verified": 0,
        "verified_type": "none",
        "subscription_type": "None",
        "parody": 0,
        "is_identity_verified": 0,
        "pinned_post_id": None,
        "most_recent_post_id": None,
        "affiliation": None,
        "withheld": None,
        "entities": None,
        "email": None,
        "followers_count": 10,
        "following_count": 20,
        "tweet_count": 30,
        "listed_count": 40,
        "like_count": 50,
        "media_count": 60,
    }
    for name, value in columns.items():
        assert name in row, name
        row[name] = value
    return row


def media(media_key: str, type: str = "photo", **columns: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "media_key": media_key,
        "id": int(media_key.split("_")[1]),
        "type": type,
        "url": f"https://pbs.example/{media_key}.jpg",
        "preview_image_url": None,
        "width": 640,
        "height": 480,
        "duration_ms": None,
        "alt_text": None,
        "variants": None,
        "view_count": None,
        "owner_id": None,
        "created_at": NOW - 120_000,
    }
    for name, value in columns.items():
        assert name in row, name
        row[name] = value
    return row


OPTIONS = [{"position": 1, "label": "yes", "votes": 3}, {"position": 2, "label": "no", "votes": 1}]


def poll(id: int, end_datetime: int, duration_minutes: int = 60) -> dict[str, Any]:
    return {
        "id": id,
        "options": json.dumps(OPTIONS),
        "duration_minutes": duration_minutes,
        "end_datetime": end_datetime,
        "voting_status": "open",  # stored value; the renderer decides from the clock
    }


def place(id: str, full_name: str, **columns: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": id,
        "full_name": full_name,
        "name": None,
        "country": None,
        "country_code": None,
        "place_type": None,
        "geo": None,
        "contained_within": None,
    }
    row.update(columns)
    return row


def mention(username: str, start: int) -> dict[str, Any]:
    return {"start": start, "end": start + len(username) + 1, "username": username}


class FakeLoader:
    """The Loader protocol over in-memory rows; records every call."""

    def __init__(
        self,
        posts: Iterable[Row] = (),
        users: Iterable[Row] = (),
        media: Iterable[Row] = (),
        polls: Iterable[Row] = (),
        places: Iterable[Row] = (),
        follows: Iterable[tuple[int, int]] = (),
        hidden: Iterable[tuple[str, Any]] = (),
    ) -> None:
        self.posts = {row["id"]: row for row in posts}
        self.users = {row["id"]: row for row in users}
        self.media = {row["media_key"]: row for row in media}
        self.polls = {row["id"]: row for row in polls}
        self.places = {row["id"]: row for row in places}
        self.follows = set(follows)
        self.hidden = set(hidden)  # (kind, key) pairs the viewer may not see
        self.calls: list[tuple[str, str, list[Any]]] = []
        self.relation_calls: list[tuple[int, list[int]]] = []

    def known(self, kind: str, lookup: str, keys: list[Any]) -> dict[Any, Row] | None:
        return None  # nothing cached: every batch goes through `load`, which records it

    async def load(self, kind: str, lookup: str, keys: list[Any]) -> dict[Any, Row]:
        self.calls.append((kind, lookup, list(keys)))
        if kind == "user" and lookup == "username":
            by_name = {row["username_lower"]: row for row in self.users.values()}
            return {key: by_name[key] for key in keys if key in by_name}
        table: dict[Any, Row] = {
            "tweet": self.posts,
            "user": self.users,
            "media": self.media,
            "poll": self.polls,
            "place": self.places,
        }[kind]
        return {key: table[key] for key in keys if key in table}

    async def relations(self, viewer_id: int, user_ids: list[int]) -> set[tuple[int, int]]:
        self.relation_calls.append((viewer_id, list(user_ids)))
        wanted = set(user_ids)
        return {
            (a, b)
            for a, b in self.follows
            if (a == viewer_id and b in wanted) or (b == viewer_id and a in wanted)
        }

    async def denied(self, kind: str, rows: dict[Any, Row]) -> set[Any]:
        return {key for key in rows if (kind, key) in self.hidden}

    def loads_of(self, kind: str) -> list[tuple[str, list[Any]]]:
        return [(lookup, keys) for k, lookup, keys in self.calls if k == kind]


def parse(primary: str, query: Mapping[str, str]) -> Selection:
    selection, problems = ENGINE.parse(primary, query)
    assert problems == []
    return selection


async def render(
    primary: str,
    records: list[Row],
    query: Mapping[str, str],
    loader: FakeLoader,
    viewer_id: int | None = None,
    now_ms: int = NOW,
) -> Rendered:
    selection = parse(primary, query)
    context = RenderContext(selection.vocab, viewer_id, now_ms=now_ms)
    return await ENGINE.render(primary, records, selection, loader, context)


def not_found(resource_type: str, parameter: str, value: str) -> dict[str, Any]:
    return {
        "value": value,
        "detail": f"Could not find {resource_type} with {parameter}: [{value}].",
        "title": "Not Found Error",
        "resource_type": resource_type,
        "parameter": parameter,
        "resource_id": value,
    }


def without_type(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for error in errors:
        assert error["type"].endswith("/2/problems/resource-not-found")
    return [{k: v for k, v in error.items() if k != "type"} for error in errors]
