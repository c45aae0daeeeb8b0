"""Import and export of lists: the `lists`, `list_members`, `list_followers` and `pinned_lists`
sections of `/_roost/import` and `/_roost/export` (beside users, tweets and media, `transfer.py`).

Lists come as the platform renders them (`list.fields`, ids as strings), memberships, follows and
pins as `{"list_id", "user_id", "created_at"?}`. Like users' metrics, a list's counts are taken as
given (a captured list keeps its numbers); a list without them counts the edges imported with it.
Rows whose ids exist already, and edges naming a list or user that does not exist, are skipped.
"""

from __future__ import annotations

from typing import Any

from roost.core import errors
from roost.core.clock import Clock, iso_ms
from roost.core.fields import RenderContext
from roost.core.ids import snowflake_ms
from roost.domain.list_objects import LIST_FIELDS, render_list
from roost.domain.transfer_values import import_id, import_time, section_items
from roost.storage import lists as list_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor

SECTIONS = ("lists", "list_members", "list_followers", "pinned_lists")
_EDGE_KINDS = {"list_members": "member", "list_followers": "follower"}


def _list_row(obj: dict[str, Any], edges: dict[str, dict[int, int]]) -> dict[str, Any]:
    list_id = import_id(obj.get("id"), "lists[].id")
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise errors.invalid_body(f"lists[].name: the list [{list_id}] has no name")
    return {
        "id": list_id,
        "owner_id": import_id(obj.get("owner_id"), "lists[].owner_id"),
        "name": name,
        "description": str(obj.get("description") or ""),
        "private": int(bool(obj.get("private"))),
        "created_at": import_time(obj.get("created_at"), snowflake_ms(list_id)),
        "member_count": int(obj.get("member_count", edges["list_members"].get(list_id, 0))),
        "follower_count": int(obj.get("follower_count", edges["list_followers"].get(list_id, 0))),
    }


def _edge(obj: dict[str, Any], section: str, now_ms: int) -> tuple[int, int, int]:
    return (
        import_id(obj.get("list_id"), f"{section}[].list_id"),
        import_id(obj.get("user_id"), f"{section}[].user_id"),
        import_time(obj.get("created_at"), now_ms),
    )


async def import_lists(tx: Executor, payload: dict[str, Any], now_ms: int) -> dict[str, int]:
    """Insert the list sections of an import payload; counts per section present in it."""
    edges = {
        section: [_edge(obj, section, now_ms) for obj in section_items(payload, section)]
        for section in SECTIONS[1:]
    }
    per_list: dict[str, dict[int, int]] = {section: {} for section in _EDGE_KINDS}
    for section in _EDGE_KINDS:
        for list_id, _, _ in edges[section]:
            per_list[section][list_id] = per_list[section].get(list_id, 0) + 1
    rows = [_list_row(obj, per_list) for obj in section_items(payload, "lists")]
    counts = {section: 0 for section in SECTIONS if section in payload}
    for row in rows:
        if await list_rows.get_list_tx(tx, row["id"]) is None:
            await list_rows.insert_list(tx, row)
            counts["lists"] += 1
    for section, kind in _EDGE_KINDS.items():
        for list_id, user_id, at_ms in edges[section]:
            if await _joinable(tx, list_id, user_id) and not await list_rows.edge_exists(
                tx, kind, list_id, user_id
            ):
                await list_rows.insert_edge(tx, kind, list_id, user_id, at_ms)
                counts[section] += 1
    for list_id, user_id, at_ms in edges["pinned_lists"]:
        if await _joinable(tx, list_id, user_id) and not await list_rows.pin_exists(tx, user_id, list_id):
            await list_rows.insert_pin(tx, user_id, list_id, at_ms)
            counts["pinned_lists"] += 1
    return counts


async def _joinable(tx: Executor, list_id: int, user_id: int) -> bool:
    return (
        await list_rows.get_list_tx(tx, list_id) is not None
        and await user_rows.get_user_tx(tx, user_id) is not None
    )


async def export_lists(db: Database, clock: Clock) -> dict[str, list[dict[str, Any]]]:
    """Every list with every field, and every membership, follow and pin (re-importable)."""
    context = RenderContext(now_ms=clock.now_ms())
    out: dict[str, list[dict[str, Any]]] = {
        "lists": [render_list(row, LIST_FIELDS, context) for row in await list_rows.all_rows(db, "lists")]
    }
    for section in SECTIONS[1:]:
        out[section] = [
            {
                "list_id": str(row["list_id"]),
                "user_id": str(row["user_id"]),
                "created_at": iso_ms(row["created_at"]),
            }
            for row in await list_rows.all_rows(db, section)
        ]
    return out
