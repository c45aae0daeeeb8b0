"""What the console's Data pages read (`/_roost/console/data`): pages of posts, users, DMs, Spaces and
lists newest first with an optional search, and one object with its neighbours (a post's author,
the post it replies to, its replies; a user's posts; a list's owner and members).

Rows come back as stored; the console renders them with the fields engine, as the API would."""

from __future__ import annotations

from dataclasses import dataclass, field

from roost.core.records import Row
from roost.storage.console_reads import ConsoleStore
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

KINDS = ("posts", "users", "dms", "spaces", "lists")
NEIGHBOURS = 20  # replies, posts of a user, members of a list shown with one object


@dataclass(slots=True)
class Neighbourhood:
    """One object and the rows it links to, by the role each plays (`author`, `replied_to`, …)."""

    row: Row | None
    users: dict[str, list[Row]] = field(default_factory=dict)
    posts: dict[str, list[Row]] = field(default_factory=dict)


class ConsoleData:
    def __init__(self, store: ConsoleStore, posts: PostStore, users: UserStore) -> None:
        self._store = store
        self._posts = posts
        self._users = users

    async def page(self, kind: str, query: str | None, before: int | None, limit: int) -> list[Row]:
        """Newest first: `kind` one of KINDS, `before` the last key of the previous page."""
        store = self._store
        readers = {
            "posts": store.posts,
            "users": store.users,
            "dms": store.dm_events,
            "spaces": store.spaces,
            "lists": store.lists,
        }
        return await readers[kind](query, before, limit)

    async def post(self, post_id: int) -> Neighbourhood:
        found = await self._posts.get_many([post_id])
        if not found or found[0]["deleted_at"] is not None:
            return Neighbourhood(None)
        row = found[0]
        around = Neighbourhood(row)
        around.users["author"] = await self._users.get_many([int(row["author_id"])])
        parent = row["in_reply_to_post_id"]
        if parent is not None:
            around.posts["replied_to"] = await self._posts.get_many([int(parent)])
        around.posts["replies"] = await self._store.replies_to(post_id, NEIGHBOURS)
        return around

    async def user(self, user_id: int, before: int | None) -> Neighbourhood:
        row = await self._users.get(user_id)
        if row is None:
            return Neighbourhood(None)
        around = Neighbourhood(row)
        around.posts["posts"] = await self._store.posts_of_author(user_id, before, NEIGHBOURS)
        return around

    async def list_of(self, list_id: int) -> Neighbourhood:
        row = await self._store.list_row(list_id)
        if row is None:
            return Neighbourhood(None)
        around = Neighbourhood(row)
        around.users["owner"] = await self._users.get_many([int(row["owner_id"])])
        members = await self._store.member_ids(list_id, NEIGHBOURS)
        around.users["members"] = await self._users.get_many(members) if members else []
        return around
