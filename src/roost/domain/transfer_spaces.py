"""Spaces, their tickets and account standing in the import/export document (`transfer.py`): the
sections `spaces` (Space objects with every field, as `GET /2/spaces` renders them),
`space_tickets` (`{space_id, user_id, created_at}`) and `account_standing` (`{user_id,
suspended_at?, deactivated_at?, geo_scrubbed_at?}`). Importing appends no event: the Spaces started
elsewhere. Compliance jobs are not carried (their URLs expire within days)."""

from __future__ import annotations

import re
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import iso_ms, parse_rfc3339
from roost.core.fields import RenderContext
from roost.domain.space_objects import SPACE_FIELDS, TOPICS_BY_ID, render_space
from roost.domain.transfer_values import import_id, section_items
from roost.storage import compliance as standing_rows
from roost.storage import social as social_rows
from roost.storage import spaces as space_rows
from roost.storage.db import Database, Executor

SECTIONS = ("spaces", "space_tickets", "account_standing")
_SPACE_ID = re.compile(r"[a-zA-Z0-9]{1,13}")
_STATES = ("scheduled", "live", "ended")
_STANDING = ("suspended_at", "deactivated_at", "geo_scrubbed_at")


def _time(value: Any) -> int | None:
    return parse_rfc3339(value) if isinstance(value, str) else None


def _ids(value: Any, what: str) -> str | None:
    if not value:
        return None
    if not isinstance(value, list):
        raise errors.invalid_body(f"{what}: array expected")
    return jsonio.dumps([str(import_id(item, what)) for item in value]).decode()


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _space_row(item: dict[str, Any], now_ms: int) -> dict[str, Any]:
    space_id = item.get("id")
    if not isinstance(space_id, str) or _SPACE_ID.fullmatch(space_id) is None:
        raise errors.invalid_body(f"spaces[].id: [{space_id}] is not a valid Space id")
    state = item.get("state")
    if state not in _STATES:
        raise errors.invalid_body(f"spaces[].state: one of {', '.join(_STATES)} is expected")
    topics = item.get("topic_ids") or []
    if not isinstance(topics, list) or any(str(topic) not in TOPICS_BY_ID for topic in topics):
        raise errors.invalid_body("spaces[].topic_ids: topics of roost's catalogue are expected")
    creator = import_id(item.get("creator_id"), "spaces[].creator_id")
    created = _time(item.get("created_at")) or now_ms
    hosts = item.get("host_ids") or [str(creator)]
    return {
        "id": space_id,
        "creator_id": creator,
        "title": item.get("title") if isinstance(item.get("title"), str) else None,
        "state": state,
        "created_at": created,
        "started_at": _time(item.get("started_at")),
        "ended_at": _time(item.get("ended_at")),
        "scheduled_start": _time(item.get("scheduled_start")),
        "updated_at": _time(item.get("updated_at")) or created,
        "lang": item.get("lang") if isinstance(item.get("lang"), str) else None,
        "is_ticketed": int(item.get("is_ticketed") is True),
        "participant_count": _count(item.get("participant_count")),
        "subscriber_count": _count(item.get("subscriber_count")),
        "host_ids": _ids(hosts, "spaces[].host_ids"),
        "speaker_ids": _ids(item.get("speaker_ids"), "spaces[].speaker_ids"),
        "invited_user_ids": _ids(item.get("invited_user_ids"), "spaces[].invited_user_ids"),
        "topic_ids": jsonio.dumps([str(topic) for topic in topics]).decode() if topics else None,
    }


async def export_spaces(db: Database) -> dict[str, list[dict[str, Any]]]:
    async with db.transaction() as tx:
        spaces = await space_rows.all_spaces_tx(tx)
        tickets = await space_rows.all_tickets_tx(tx)
        standing = await standing_rows.all_standing_tx(tx)
    context = RenderContext()
    return {
        "spaces": [render_space(row, SPACE_FIELDS, context) for row in spaces],
        "space_tickets": [
            {
                "space_id": row["space_id"],
                "user_id": str(row["user_id"]),
                "created_at": iso_ms(row["created_at"]),
            }
            for row in tickets
        ],
        "account_standing": [
            {
                "user_id": str(row["user_id"]),
                **{name: iso_ms(row[name]) for name in _STANDING if row[name] is not None},
            }
            for row in standing.values()
        ],
    }


async def import_spaces(tx: Executor, payload: dict[str, Any], now_ms: int) -> dict[str, int]:
    """Import the sections the payload carries (others are not counted); existing ones are skipped."""
    counts: dict[str, int] = {}
    if "spaces" in payload:
        counts["spaces"] = 0
        for item in section_items(payload, "spaces"):
            row = _space_row(item, now_ms)
            if await space_rows.get_space_tx(tx, row["id"]) is None:
                await social_rows.insert_space(tx, row)
                counts["spaces"] += 1
    if "space_tickets" in payload:
        counts["space_tickets"] = 0
        for item in section_items(payload, "space_tickets"):
            space_id = str(item.get("space_id", ""))
            user_id = import_id(item.get("user_id"), "space_tickets[].user_id")
            if await space_rows.get_space_tx(tx, space_id) is None:
                raise errors.invalid_body(f"space_tickets[].space_id: no Space [{space_id}]")
            if await space_rows.get_ticket_tx(tx, space_id, user_id) is None:
                created = _time(item.get("created_at")) or now_ms
                await space_rows.insert_ticket(tx, space_id, user_id, created)
                counts["space_tickets"] += 1
    if "account_standing" in payload:
        counts["account_standing"] = 0
        for item in section_items(payload, "account_standing"):
            user_id = import_id(item.get("user_id"), "account_standing[].user_id")
            stored = await standing_rows.get_standing_tx(tx, user_id)
            row = {"user_id": user_id, **{name: _time(item.get(name)) for name in _STANDING}}
            if stored is None or any(stored[name] != row[name] for name in _STANDING):
                await standing_rows.put_standing(tx, {**row, "updated_at": now_ms}, stored is not None)
                counts["account_standing"] += 1
    return counts
