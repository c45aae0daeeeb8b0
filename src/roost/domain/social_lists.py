"""The lists the social writes build: following, followers, blocking, muting, liking users and liked
posts, each paged, with what the viewer may see of them (protected accounts)."""

from __future__ import annotations

from roost.core.errors import not_authorized_for_resource_item, resource_not_found_item
from roost.core.pagination import PageToken
from roost.domain.lookup import Lookup, visible_post
from roost.domain.pages import Page, offset_of, offset_page
from roost.storage.posts import PostStore
from roost.storage.social import SocialStore
from roost.storage.users import UserStore


class SocialLists:
    def __init__(self, social: SocialStore, users: UserStore, posts: PostStore, lookup: Lookup) -> None:
        self._social = social
        self._users = users
        self._posts = posts
        self._lookup = lookup

    async def following(
        self, viewer_id: int | None, user_id: int, limit: int, token: PageToken | None
    ) -> Page:
        return await self._owner_problem(viewer_id, user_id) or await self._users_page(
            "following", user_id, limit, token
        )

    async def followers(
        self, viewer_id: int | None, user_id: int, limit: int, token: PageToken | None
    ) -> Page:
        return await self._owner_problem(viewer_id, user_id) or await self._users_page(
            "followers", user_id, limit, token
        )

    async def blocking(self, user_id: int, limit: int, token: PageToken | None) -> Page:
        return await self._users_page("blocking", user_id, limit, token)

    async def muting(self, user_id: int, limit: int, token: PageToken | None) -> Page:
        return await self._users_page("muting", user_id, limit, token)

    async def liking_users(
        self, viewer_id: int | None, post_id: int, limit: int, token: PageToken | None
    ) -> Page:
        post = await self._posts.get(post_id)
        if post is None or not visible_post(post):
            return Page([], errors=[resource_not_found_item("tweet", "id", str(post_id))])
        if await self._lookup.hidden_authors(viewer_id, [post["author_id"]]):
            return Page([], errors=[not_authorized_for_resource_item("tweet", "id", str(post_id), "data")])
        return await self._users_page("liking_users", post_id, limit, token)

    async def liked_posts(
        self, viewer_id: int | None, user_id: int, limit: int, token: PageToken | None
    ) -> Page:
        problem = await self._owner_problem(viewer_id, user_id)
        if problem is not None:
            return problem
        scope = f"liked_tweets:{user_id}"
        offset = offset_of(token, scope)
        rows = await self._social.liked_posts(user_id, limit + 1, offset)
        page = rows[:limit]
        # Posts of protected accounts the viewer cannot see are left out (the page may come up short).
        hidden = await self._lookup.hidden_authors(viewer_id, (row["author_id"] for row in page))
        return offset_page(
            rows, [row for row in page if row["author_id"] not in hidden], offset, limit, scope
        )

    async def _users_page(self, listing: str, owner_id: int, limit: int, token: PageToken | None) -> Page:
        scope = f"{listing}:{owner_id}"
        offset = offset_of(token, scope)
        rows = await self._social.users_page(listing, owner_id, limit + 1, offset)
        return offset_page(rows, rows[:limit], offset, limit, scope)

    async def _owner_problem(self, viewer_id: int | None, user_id: int) -> Page | None:
        """The partial error for a missing user, or a protected one the viewer does not follow."""
        if await self._users.get(user_id) is None:
            return Page([], errors=[resource_not_found_item("user", "id", str(user_id))])
        if await self._lookup.hidden_authors(viewer_id, [user_id]):
            return Page([], errors=[not_authorized_for_resource_item("user", "id", str(user_id), "data")])
        return None
