"""The `list` object kind: its fields, defaults (id and name, as the platform), renderer and the
`owner_id` expansion. Lists are never the target of an expansion, so StoreLoader does not load them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.core.clock import iso_ms
from roost.core.fields import Expansion, ObjectKind, RenderContext, Row

LIST_FIELDS = (
    "created_at",
    "description",
    "follower_count",
    "id",
    "member_count",
    "name",
    "owner_id",
    "private",
)


def render_list(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {"id": str(row["id"]), "name": row["name"]}
    for name in names:
        if name == "created_at":
            out[name] = iso_ms(row["created_at"])
        elif name == "description":
            out[name] = row["description"]
        elif name in ("follower_count", "member_count"):
            out[name] = int(row[name])
        elif name == "owner_id":
            out[name] = str(row["owner_id"])
        elif name == "private":
            out[name] = bool(row["private"])
    return out


LIST_KINDS = (
    ObjectKind(
        "list",
        "list",
        ("list.fields",),
        LIST_FIELDS,
        {},
        ("id", "name"),
        {"tweet": "lists", "post": "lists"},
        render_list,
        lambda row: row["id"],
    ),
)

LIST_EXPANSIONS = {
    "list": (Expansion("owner_id", "user", lambda r: (r["owner_id"],), implies=("owner_id",)),),
}
