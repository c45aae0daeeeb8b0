"""The home timeline's kept entries (`HomeEntries`): pages cut from them, and when they must be read
further back first."""

from __future__ import annotations

from typing import Any

from roost.storage.posts import HOME_DEPTH, MAX_ID, HomeEntries


def row(post_id: int, reply: bool = False, deleted: bool = False, nullcast: bool = False) -> dict[str, Any]:
    return {
        "id": post_id,
        "created_at": post_id * 10,
        "in_reply_to_post_id": 1 if reply else None,
        "reposted_post_id": None,
        "deleted_at": 5 if deleted else None,
        "superseded_by": None,
        "nullcast": int(nullcast),
    }


def params(limit: int, since_id: int = 0, until_id: int = MAX_ID, **more: int) -> dict[str, int]:
    base = {"start_ms": 0, "end_ms": MAX_ID, "include_replies": 1, "include_reposts": 1}
    return {**base, "since_id": since_id, "until_id": until_id, "limit": limit, **more}


def test_a_page_inside_a_chunk_and_one_past_it() -> None:
    # Candidates 100..91 read (10 asked), 95 deleted and 92 a promoted-only (nullcast) post: older
    # ones may remain.
    candidates = [row(i, deleted=i == 95, nullcast=i == 92) for i in range(100, 90, -1)]
    entries = HomeEntries.empty().extended(candidates, 10)
    assert not entries.complete and entries.cursor == 91
    assert entries.page(params(3), ascending=False) == [100, 99, 98]
    assert entries.page(params(3, until_id=97), ascending=False) == [96, 94, 93]
    # Short of the limit with older candidates unread: read further first.
    assert entries.page(params(5, until_id=94), ascending=False) is None
    assert entries.page(params(3, include_replies=0), ascending=False) == [100, 99, 98]
    # Upwards from below the oldest read candidate: read further first; from inside it, served.
    assert entries.page(params(3, since_id=50), ascending=True) is None
    assert entries.page(params(3, since_id=96), ascending=True) == [97, 98, 99]
    older = entries.extended([row(90), row(89, reply=True)], 40)
    assert older.complete
    assert older.page(params(5, until_id=94), ascending=False) == [93, 91, 90, 89]
    assert older.page(params(5, until_id=94, include_replies=0), ascending=False) == [93, 91, 90]
    assert older.page(params(5, until_id=94, start_ms=905), ascending=False) == [93, 91]
    assert older.page(params(3, since_id=50), ascending=True) == [89, 90, 91]


def test_the_depth_keeps_the_newest() -> None:
    newest = 10_000 + HOME_DEPTH + 5
    rows = [row(i) for i in range(newest, newest - HOME_DEPTH - 5, -1)]
    entries = HomeEntries.empty().extended(rows, HOME_DEPTH + 5)
    assert entries.complete and len(entries.ids) == HOME_DEPTH
    assert entries.ids[-1] == newest and entries.ids[0] == newest - HOME_DEPTH + 1
    assert entries.page(params(5, until_id=newest - HOME_DEPTH + 1), ascending=False) == []
