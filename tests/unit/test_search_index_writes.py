"""The SQLite full-text index is written by roost's writers, not by triggers (migration 0026): the
posts of one group commit enter it together just before the COMMIT. Whatever a group holds (posts
created at once, a unit undone after inserting its post, a wipe between posts, a bulk load), the index
ends up holding exactly the stored posts, and FTS5's own integrity check passes."""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from roost.config import Settings
from roost.storage import maintenance
from roost.storage import posts as post_rows
from roost.storage.db import open_database, sqlite_path
from roost.storage.migrate import upgrade
from roost.wiring import Server, assemble


@pytest.fixture()
async def server() -> AsyncIterator[Server]:
    # SQLite only: PostgreSQL's index is an expression index, kept by PostgreSQL itself.
    url = f"sqlite:///{Path(tempfile.mkdtemp(prefix='roost-fts-')) / 'roost.db'}"
    upgrade(url)
    built = assemble(Settings(db_url=url, demo=False), await open_database(url))
    yield built
    await built.stores.db.close()


def indexed(server: Server, word: str) -> list[int]:
    """Post ids the index finds for `word`, as another connection reads them (committed only)."""
    with sqlite3.connect(sqlite_path(server.settings.db_url)) as conn:
        rows = conn.execute("SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? ORDER BY rowid", (word,))
        return [row[0] for row in rows]


def check_integrity(server: Server) -> None:
    with sqlite3.connect(sqlite_path(server.settings.db_url)) as conn:
        conn.execute("INSERT INTO posts_fts(posts_fts) VALUES ('integrity-check')")  # raises if not


async def author(server: Server) -> int:
    async with server.stores.db.transaction() as tx:
        user = await server.domain.accounts.create_user_in(tx, username=f"u_{uuid.uuid4().hex[:12]}")
    return int(user["id"])


def word() -> str:
    return "w" + uuid.uuid4().hex[:12]


async def undone_post(server: Server, template: dict[str, Any], text: str) -> None:
    """A unit that inserts a post and then fails: its post must leave no trace in the index."""
    row = {k: v for k, v in template.items() if k not in ("search_text", "search_urls")}
    row.update(id=server.stores.ids.next_id(), text=text)
    async with server.stores.db.transaction() as tx:
        await post_rows.insert_post(tx, row, [])
        raise ValueError("refused after inserting")


async def test_posts_written_at_once_enter_the_index_together(server: Server) -> None:
    user_id = await author(server)
    template = await server.domain.posts.create(user_id, {"text": f"first {word()}"})
    words = [word() for _ in range(20)]
    lost = word()
    results = await asyncio.gather(
        *(server.domain.posts.create(user_id, {"text": f"post {w}"}) for w in words[:10]),
        undone_post(server, template, f"never {lost}"),
        *(server.domain.posts.create(user_id, {"text": f"post {w}"}) for w in words[10:]),
        return_exceptions=True,
    )
    assert [type(r) for r in results].count(ValueError) == 1
    created = [r for r in results if isinstance(r, dict)]
    assert len(created) == 20
    for w, row in zip(words, created, strict=True):
        assert indexed(server, w) == [row["id"]]
    assert indexed(server, lost) == []
    check_integrity(server)


async def test_a_wipe_between_posts_of_one_group_leaves_only_the_later_posts(server: Server) -> None:
    user_id = await author(server)
    committed, before, after = word(), word(), word()
    old = await server.domain.posts.create(user_id, {"text": f"committed {committed}"})
    assert indexed(server, committed) == [old["id"]]

    async def wipe_then_post() -> dict[str, Any]:
        await maintenance.wipe(server.stores.db)
        other = await author(server)
        return await server.domain.posts.create(other, {"text": f"later {after}"})

    first, later = await asyncio.gather(
        server.domain.posts.create(user_id, {"text": f"earlier {before}"}), wipe_then_post()
    )
    assert indexed(server, committed) == []  # wiped
    assert indexed(server, before) == []  # written, then wiped in the same group commit
    assert indexed(server, after) == [later["id"]]
    assert first["id"] != later["id"]
    check_integrity(server)


async def test_bulk_loaded_posts_are_indexed(server: Server) -> None:
    user_id = await author(server)
    template = await server.domain.posts.create(user_id, {"text": f"template {word()}"})
    words = [word() for _ in range(5)]
    rows = []
    for w in words:
        row = dict(template, id=server.stores.ids.next_id(), text=f"bulk {w}", search_text=f"bulk {w}")
        rows.append(row)
    await maintenance.bulk_insert(server.stores.db, "posts", rows)
    for w, row in zip(words, rows, strict=True):
        assert indexed(server, w) == [row["id"]]
    check_integrity(server)
