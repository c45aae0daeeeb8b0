"""The v1.1 account reads clients still make: `account/verify_credentials` (tweepy, twitter-api-v2)
and `users/show` (the ads SDK): a user, their latest post when the viewer may see it, and whether
the viewer follows them."""

from __future__ import annotations

from dataclasses import dataclass

from roost.core import errors
from roost.core.records import Row
from roost.domain.lookup import Lookup, visible_post
from roost.storage.posts import PostStore
from roost.storage.users import UserStore


@dataclass(frozen=True, slots=True)
class Account:
    user: Row
    status: Row | None  # the latest post, when there is one the viewer may see
    following: bool


def user_not_found() -> errors.ApiError:
    return errors.coded(404, 50, "User not found.")


class V1Accounts:
    def __init__(self, users: UserStore, posts: PostStore, lookup: Lookup) -> None:
        self._users = users
        self._posts = posts
        self._lookup = lookup

    async def verify(self, user_id: int) -> Account:
        user = await self._users.get(user_id)
        if user is None:
            raise errors.coded(401, 89)
        return Account(user, await self._latest(user, user_id), False)

    async def show(self, viewer_id: int | None, user_id: int | None, screen_name: str | None) -> Account:
        if user_id is not None:
            user = await self._users.get(user_id)
        elif screen_name:
            user = await self._users.get_by_username(screen_name)
        else:
            raise errors.coded(403, 50, "User not found.")
        if user is None:
            raise user_not_found()
        following = False
        if viewer_id is not None and viewer_id != user["id"]:
            following = (viewer_id, user["id"]) in await self._users.relations(viewer_id, [user["id"]])
        return Account(user, await self._latest(user, viewer_id), following)

    async def _latest(self, user: Row, viewer_id: int | None) -> Row | None:
        post_id = user["most_recent_post_id"]
        if post_id is None or await self._lookup.hidden_authors(viewer_id, [user["id"]]):
            return None
        row = await self._posts.get(post_id)
        return row if visible_post(row) else None
