"""Likes and follows in `/_roost/import` and `/_roost/export`:

    "likes":   [{"user_id": "…", "tweet_id": "…", "created_at": "…"?}]   ("post_id" also accepted)
    "follows": [{"source_user_id": "…", "target_user_id": "…", "created_at": "…"?}]

An edge that exists already, or names a user or post that does not, is skipped. Counters follow the
edges added (a post's `like_count`, a user's `like_count`, `followers_count`, `following_count`),
except the counters an object imported in the same payload states itself (its `public_metrics`): a
captured object keeps its numbers, as lists do (`list_transfer.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from roost.core.clock import iso_ms
from roost.domain.transfer_values import import_id, import_time, section_items
from roost.storage import posts as post_rows
from roost.storage import social as social_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor
from roost.storage.transfer_reads import all_follows, all_likes

SECTIONS = ("likes", "follows")


@dataclass(slots=True)
class StatedCounts:
    """Counters the payload's own objects state, by counter name: ids whose value is taken as given."""

    posts: dict[str, set[int]] = field(default_factory=dict)
    users: dict[str, set[int]] = field(default_factory=dict)

    def note(self, kind: str, object_id: int, metrics: Any, names: tuple[str, ...]) -> None:
        target = self.posts if kind == "post" else self.users
        for name in names:
            if isinstance(metrics, dict) and name in metrics:
                target.setdefault(name, set()).add(object_id)

    def stated(self, kind: str, name: str, object_id: int) -> bool:
        return object_id in (self.posts if kind == "post" else self.users).get(name, ())


async def import_edges(
    tx: Executor, payload: dict[str, Any], now_ms: int, stated: StatedCounts, post_ids: dict[int, int]
) -> dict[str, int]:
    """Insert the likes and follows of a payload; counts of edges added. `post_ids` maps an imported
    post's id to the id it is stored under when the post was found under another one."""
    likes = [
        (
            import_id(obj.get("user_id"), "likes[].user_id"),
            import_id(obj.get("tweet_id", obj.get("post_id")), "likes[].tweet_id"),
            import_time(obj.get("created_at"), now_ms),
        )
        for obj in section_items(payload, "likes")
    ]
    follows = [
        (
            import_id(obj.get("source_user_id"), "follows[].source_user_id"),
            import_id(obj.get("target_user_id"), "follows[].target_user_id"),
            import_time(obj.get("created_at"), now_ms),
        )
        for obj in section_items(payload, "follows")
    ]
    counts = {section: 0 for section in SECTIONS if section in payload}
    for user_id, imported_post_id, at in likes:
        post_id = post_ids.get(imported_post_id, imported_post_id)
        if await social_rows.edge_exists(tx, "like", user_id, post_id):
            continue
        if (
            await user_rows.get_user_tx(tx, user_id) is None
            or await post_rows.get_for_update(tx, post_id) is None
        ):
            continue
        await social_rows.insert_edge(tx, "like", user_id, post_id, at)
        if not stated.stated("post", "like_count", post_id):
            await post_rows.bump_post(tx, post_id, "like_count", 1)
        if not stated.stated("user", "like_count", user_id):
            await post_rows.bump_user(tx, user_id, "like_count", 1)
        counts["likes"] += 1
    for source, target, at in follows:
        if source == target or await social_rows.edge_exists(tx, "follow", source, target):
            continue
        if await user_rows.get_user_tx(tx, source) is None or await user_rows.get_user_tx(tx, target) is None:
            continue
        await social_rows.insert_edge(tx, "follow", source, target, at)
        if not stated.stated("user", "following_count", source):
            await post_rows.bump_user(tx, source, "following_count", 1)
        if not stated.stated("user", "followers_count", target):
            await post_rows.bump_user(tx, target, "followers_count", 1)
        counts["follows"] += 1
    return counts


async def export_edges(db: Database) -> dict[str, list[dict[str, str]]]:
    return {
        "likes": [
            {
                "user_id": str(r["user_id"]),
                "tweet_id": str(r["post_id"]),
                "created_at": iso_ms(r["created_at"]),
            }
            for r in await all_likes(db)
        ],
        "follows": [
            {
                "source_user_id": str(r["follower_id"]),
                "target_user_id": str(r["followee_id"]),
                "created_at": iso_ms(r["created_at"]),
            }
            for r in await all_follows(db)
        ],
    }
