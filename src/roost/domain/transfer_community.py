"""Issue 15's sections of the import/export document (`transfer.py`):
- `note_writers`: `{user_id, created_at}`;
- `notes`: `{id, author_id, post_id, info: {text, classification, misleading_tags, trustworthy_sources},
  test_mode, status, created_at}`;
- `news`: the news object with every field (`cluster_posts_results`, `updated_at`, ...) and `keywords`;
- `communities`: the community object with every field and `creator_id`;
- `community_members`: `{community_id, user_id, role, created_at}`.
Rows whose key exists already are skipped; a community's `member_count` travels with it, so members
imported after it count nothing again."""

from __future__ import annotations

from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import iso_ms
from roost.core.fields import RenderContext
from roost.domain.community_objects import COMMUNITY_FIELDS, NEWS_FIELDS, render_community, render_news
from roost.domain.news import DISCLAIMER, EMPTY_CONTEXTS, story_view
from roost.domain.transfer_values import import_id, import_time, section_items
from roost.storage import communities as community_rows
from roost.storage import news as news_rows
from roost.storage import notes as note_rows
from roost.storage.db import Database, Executor

_CONTEXT = RenderContext()
_NEWS_EXPORT = tuple(name for name in NEWS_FIELDS if name != "last_updated_at_ms")


def _text(item: dict[str, Any], name: str, what: str, default: str | None = None) -> str:
    value = item.get(name, default)
    if not isinstance(value, str):
        raise errors.invalid_body(f"{what}.{name}: a string is expected")
    return value


async def export_community(db: Database) -> dict[str, list[dict[str, Any]]]:
    writers = await note_rows.all_writers(db)
    notes = await note_rows.all_notes(db)
    stories = await news_rows.all_stories(db)
    communities = await community_rows.all_communities(db)
    members = await community_rows.all_members(db)
    return {
        "note_writers": [
            {"user_id": str(row["user_id"]), "created_at": iso_ms(row["created_at"])} for row in writers
        ],
        "notes": [
            {
                "id": str(row["id"]),
                "author_id": str(row["author_id"]),
                "post_id": str(row["post_id"]),
                "info": {
                    "text": row["text"],
                    "classification": row["classification"],
                    "misleading_tags": jsonio.loads(row["misleading_tags"]),
                    "trustworthy_sources": bool(row["trustworthy_sources"]),
                },
                "test_mode": bool(row["test_mode"]),
                "status": row["status"],
                "created_at": iso_ms(row["created_at"]),
            }
            for row in notes
        ],
        "news": [render_news(story_view(row), _NEWS_EXPORT, _CONTEXT) for row in stories],
        "communities": [
            {**render_community(row, COMMUNITY_FIELDS, _CONTEXT), "creator_id": str(row["creator_id"])}
            for row in communities
        ],
        "community_members": [
            {
                "community_id": str(row["community_id"]),
                "user_id": str(row["user_id"]),
                "role": row["role"],
                "created_at": iso_ms(row["created_at"]),
            }
            for row in members
        ],
    }


async def import_community(tx: Executor, payload: dict[str, Any], now_ms: int) -> dict[str, int]:
    """Import the sections the payload carries (others are not counted)."""
    counts: dict[str, int] = {}
    if "note_writers" in payload:
        counts["note_writers"] = 0
        for item in section_items(payload, "note_writers"):
            user_id = import_id(item.get("user_id"), "note_writers[].user_id")
            if await note_rows.enrol_writer(tx, user_id, import_time(item.get("created_at"), now_ms)):
                counts["note_writers"] += 1
    if "notes" in payload:
        counts["notes"] = await _import_notes(tx, section_items(payload, "notes"), now_ms)
    if "news" in payload:
        counts["news"] = await _import_news(tx, section_items(payload, "news"), now_ms)
    if "communities" in payload:
        counts["communities"] = 0
        for item in section_items(payload, "communities"):
            community_id = import_id(item.get("id"), "communities[].id")
            if await community_rows.community_tx(tx, community_id) is not None:
                continue
            row = {
                "id": community_id,
                "name": _text(item, "name", "communities[]"),
                "description": _text(item, "description", "communities[]", ""),
                "access": _text(item, "access", "communities[]", "Public"),
                "join_policy": _text(item, "join_policy", "communities[]", "Open"),
                "creator_id": import_id(item.get("creator_id"), "communities[].creator_id"),
                "created_at": import_time(item.get("created_at"), now_ms),
                "member_count": int(item.get("member_count") or 0),
            }
            await community_rows.insert_community(tx, row)
            counts["communities"] += 1
    if "community_members" in payload:
        counts["community_members"] = 0
        for item in section_items(payload, "community_members"):
            community_id = import_id(item.get("community_id"), "community_members[].community_id")
            user_id = import_id(item.get("user_id"), "community_members[].user_id")
            if await community_rows.member_tx(tx, community_id, user_id) is None:
                row = {
                    "community_id": community_id,
                    "user_id": user_id,
                    "role": _text(item, "role", "community_members[]", "Member"),
                    "created_at": import_time(item.get("created_at"), now_ms),
                }
                await community_rows.insert_member(tx, row)
                counts["community_members"] += 1
    return counts


async def _import_notes(tx: Executor, items: list[dict[str, Any]], now_ms: int) -> int:
    count = 0
    for item in items:
        note_id = import_id(item.get("id"), "notes[].id")
        author_id = import_id(item.get("author_id"), "notes[].author_id")
        raw_info = item.get("info")
        info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
        post_id = import_id(item.get("post_id") or info.get("post_id"), "notes[].post_id")
        if await note_rows.note_tx(tx, note_id) or await note_rows.note_of_tx(tx, author_id, post_id):
            continue
        tags = info.get("misleading_tags") or []
        await note_rows.insert_note(
            tx,
            {
                "id": note_id,
                "author_id": author_id,
                "post_id": post_id,
                "text": _text(info, "text", "notes[].info"),
                "classification": _text(info, "classification", "notes[].info", "not_misleading"),
                "misleading_tags": jsonio.dumps([str(tag) for tag in tags]).decode(),
                "trustworthy_sources": int(bool(info.get("trustworthy_sources"))),
                "is_media_note": 0,
                "test_mode": int(item.get("test_mode", True) is not False),
                "status": _text(item, "status", "notes[]", "needs_more_ratings"),
                "created_at": import_time(item.get("created_at"), now_ms),
            },
        )
        count += 1
    return count


async def _import_news(tx: Executor, items: list[dict[str, Any]], now_ms: int) -> int:
    count = 0
    for item in items:
        story_id = import_id(item.get("id"), "news[].id")
        if await news_rows.story_tx(tx, story_id) is not None:
            continue
        updated = import_time(item.get("updated_at") or item.get("last_updated_at_ms"), now_ms)
        cluster = [
            str(import_id(entry.get("post_id"), "news[].cluster_posts_results[].post_id"))
            for entry in item.get("cluster_posts_results") or []
            if isinstance(entry, dict)
        ]
        contexts = item.get("contexts") if isinstance(item.get("contexts"), dict) else EMPTY_CONTEXTS
        keywords = [str(word) for word in item.get("keywords") or [] if isinstance(word, str)]
        await news_rows.insert_story(
            tx,
            {
                "id": story_id,
                "name": _text(item, "name", "news[]"),
                "category": _text(item, "category", "news[]", "News"),
                "summary": _text(item, "summary", "news[]", ""),
                "hook": _text(item, "hook", "news[]", ""),
                "disclaimer": _text(item, "disclaimer", "news[]", DISCLAIMER),
                "contexts": jsonio.dumps(contexts).decode(),
                "keywords": jsonio.dumps(keywords).decode(),
                "cluster_post_ids": jsonio.dumps(cluster).decode(),
                "created_at": updated,
                "updated_at": updated,
            },
        )
        count += 1
    return count
