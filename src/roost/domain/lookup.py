"""Loading objects for lookups and expansions (the fields engine's Loader)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from roost.core.errors import not_authorized_for_resource_item, resource_not_found_item
from roost.domain.space_objects import topics_by_id
from roost.storage.db import Row
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

_NOBODY: frozenset[int] = frozenset()


def visible_post(row: Row | None) -> bool:
    return row is not None and row["deleted_at"] is None


class Lookup:
    """What a viewer may see of posts and users: visibility (protected accounts), lookups by id with
    the platform's partial errors, and the fields engine's loader for a viewer."""

    def __init__(self, posts: PostStore, users: UserStore) -> None:
        self._posts = posts
        self._users = users

    def loader(self, viewer_id: int | None) -> StoreLoader:
        return StoreLoader(self, self._posts, self._users, viewer_id)

    async def hidden_authors(self, viewer_id: int | None, author_ids: Iterable[int]) -> AbstractSet[int]:
        """Authors whose posts the viewer may not see: protected accounts the viewer does not follow."""
        users = self._users
        protected = users.known_protected_ids()
        if protected is None:
            protected = await users.protected_ids()
        if not protected:
            return _NOBODY
        candidates = protected.intersection(author_ids)  # one pass in C: most authors are not protected
        if viewer_id in candidates:
            candidates = candidates - {viewer_id}  # the viewer sees their own posts
        if not candidates:
            return _NOBODY
        if viewer_id is None:
            return candidates
        relations = await users.relations(viewer_id, list(candidates))
        return {author for author in candidates if (viewer_id, author) not in relations}

    async def posts(
        self,
        viewer_id: int | None,
        ids: list[int],
        parameter: str,
        columns: tuple[str, ...] | None = None,
    ) -> tuple[list[Row], list[dict[str, Any]]]:
        """Posts by id in request order, plus a partial error for each missing or hidden one.

        `columns`: read only these (they must include what visibility needs: id, author_id, deleted_at)."""
        unique = list(dict.fromkeys(ids))
        if len(unique) == 1:
            row, problems = await self.post(viewer_id, unique[0], parameter, columns)
            return ([] if row is None else [row]), problems
        fetched = await self._posts.get_many(unique, columns)
        rows = {row["id"]: row for row in fetched if visible_post(row)}
        hidden = await self.hidden_authors(viewer_id, [row["author_id"] for row in rows.values()])
        found: list[Row] = []
        problems = []
        for post_id in unique:
            row = rows.get(post_id)
            if row is None:
                problems.append(resource_not_found_item("tweet", parameter, str(post_id)))
            elif row["author_id"] in hidden:
                problems.append(not_authorized_for_resource_item("tweet", parameter, str(post_id), "data"))
            else:
                found.append(row)
        return found, problems

    async def post(
        self,
        viewer_id: int | None,
        post_id: int,
        parameter: str,
        columns: tuple[str, ...] | None = None,
    ) -> tuple[Row | None, list[dict[str, Any]]]:
        """One post by id (a primary-key probe), or the partial error that stands in for it."""
        row = await self._posts.get(post_id, columns)
        if row is None or row["deleted_at"] is not None:
            return None, [resource_not_found_item("tweet", parameter, str(post_id))]
        author = row["author_id"]
        protected = self._users.known_protected_ids()
        # Most authors are not protected: then the follow check (a coroutine, maybe a query) is skipped.
        if (protected is None or (author in protected and author != viewer_id)) and await self.hidden_authors(
            viewer_id, (author,)
        ):
            return None, [not_authorized_for_resource_item("tweet", parameter, str(post_id), "data")]
        return row, []

    async def users(self, ids: list[int]) -> tuple[list[Row], list[dict[str, Any]]]:
        """Users by id in request order, plus a partial error for each missing one."""
        rows = {row["id"]: row for row in await self._users.get_many(ids)}
        unique = list(dict.fromkeys(ids))
        return [rows[i] for i in unique if i in rows], [
            resource_not_found_item("user", "ids", str(i)) for i in unique if i not in rows
        ]

    async def user(self, user_id: int, parameter: str = "id") -> tuple[Row | None, list[dict[str, Any]]]:
        row = await self._users.get(user_id)
        return row, [] if row is not None else [resource_not_found_item("user", parameter, str(user_id))]

    async def users_by_name(self, names: list[str]) -> tuple[list[Row], list[dict[str, Any]]]:
        """Users by username (matched case-insensitively) in request order, with partial errors."""
        rows = {row["username_lower"]: row for row in await self._users.get_many_by_username(names)}
        unique = list(dict.fromkeys(names))
        return [rows[n.lower()] for n in unique if n.lower() in rows], [
            resource_not_found_item("user", "usernames", n) for n in unique if n.lower() not in rows
        ]

    async def user_by_name(self, name: str) -> tuple[Row | None, list[dict[str, Any]]]:
        row = await self._users.get_by_username(name)
        return row, [] if row is not None else [resource_not_found_item("user", "username", name)]

    async def media(self, key: str) -> tuple[Row | None, list[dict[str, Any]]]:
        row = await self._users.media(key)
        return row, [] if row is not None else [resource_not_found_item("media", "media_key", key)]

    async def media_many(self, keys: list[str]) -> tuple[list[Row], list[dict[str, Any]]]:
        rows = {row["media_key"]: row for row in await self._users.media_many(keys)}
        unique = list(dict.fromkeys(keys))
        return [rows[k] for k in unique if k in rows], [
            resource_not_found_item("media", "media_keys", k) for k in unique if k not in rows
        ]


class StoreLoader:
    """The fields engine's `Loader` for one viewer: batch loads of expanded objects from storage."""

    def __init__(
        self, lookup: Lookup, posts: PostStore, users: UserStore, viewer_id: int | None = None
    ) -> None:
        self._lookup = lookup
        self._posts = posts
        self._users = users
        self._viewer_id = viewer_id

    async def denied(self, kind: str, rows: Mapping[Any, Mapping[str, Any]]) -> set[Any]:
        if kind != "tweet" or not rows:
            return set()
        hidden = await self._lookup.hidden_authors(self._viewer_id, (r["author_id"] for r in rows.values()))
        return {key for key, row in rows.items() if row["author_id"] in hidden}

    def known(self, kind: str, lookup: str, keys: list[Any]) -> Mapping[Any, Row] | None:
        if kind == "user" and lookup == "id":
            return self._users.known_by_ids(keys)
        return None

    async def load(self, kind: str, lookup: str, keys: list[Any]) -> Mapping[Any, Row]:
        posts, users = self._posts, self._users
        if kind == "tweet":
            return {row["id"]: row for row in await posts.get_many(keys) if visible_post(row)}
        if kind == "user":
            if lookup == "username":
                rows = await users.get_many_by_username(keys)
                return {row["username_lower"]: row for row in rows}
            return await users.by_ids(keys)
        if kind == "media":
            return {row["media_key"]: row for row in await users.media_many(keys)}
        if kind == "poll":
            return {row["id"]: row for row in await users.polls_many(keys)}
        if kind == "place":
            return {row["id"]: row for row in await users.places_many(keys)}
        if kind == "topic":  # issue 15: the topics of Spaces, a catalogue rather than rows
            return topics_by_id(keys)
        return {}

    async def relations(self, viewer_id: int, user_ids: list[int]) -> set[tuple[int, int]]:
        return await self._users.relations(viewer_id, user_ids)
