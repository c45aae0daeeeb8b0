"""Likes, follows, blocks and mutes: the rules, counters and events (profile edits are
`profiles.py`, spaces `spaces.py`, the lists these writes build `social_lists.py`).

Every write runs in one transaction and appends its event there (kinds and payloads as documented in
`roost.events.outgoing`). Repeating a write that is already in effect succeeds and appends nothing.
"""

from __future__ import annotations

from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.ids import MAX_SNOWFLAKE, SnowflakeGenerator
from roost.domain.lookup import Lookup, visible_post
from roost.storage import posts as post_rows
from roost.storage import social as social_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor, Row
from roost.storage.events import append_event
from roost.storage.posts import PostStore

# The platform's answer when the path user is not the authenticated user.
NOT_PERMITTED = "You are not permitted to perform this action."


def require_self(principal_user_id: int | None, path_user_id: int) -> None:
    """Writes (and private lists) act for the authenticated user only."""
    if principal_user_id != path_user_id:
        raise errors.forbidden(NOT_PERMITTED)


def body_id(body: Any, name: str) -> int:
    """The one id field of a like / follow / mute body, checked like the platform's schema."""
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    extra = sorted(set(body) - {name})
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    if name not in body:
        raise errors.invalid_body(f"$.{name}: is missing but it is required")
    value = body[name]
    if not isinstance(value, str):
        raise errors.invalid_body(f"$.{name}: {jsonio.type_name(value)} found, string expected")
    if not value.isascii() or not value.isdigit() or len(value) > 19:
        raise _bad(name, value, f"The `{name}` field value [{value}] does not match ^[0-9]{{1,19}}$")
    number = int(value)
    if number > MAX_SNOWFLAKE:  # matches the pattern, but no 64-bit id is that large
        raise _bad(name, value, f"The `{name}` field value [{value}] is not valid")
    return number


def _bad(name: str, value: Any, message: str) -> errors.ApiError:
    return errors.invalid_request([errors.param_error(name, jsonio.shown(value), message)])


def _not_found(kind: str, name: str, value: int) -> errors.ApiError:
    return _bad(name, str(value), f"Could not find {kind} with {name}: [{value}].")


class SocialService:
    """Likes, follows, mutes and blocks."""

    def __init__(
        self, db: Database, clock: Clock, ids: SnowflakeGenerator, posts: PostStore, lookup: Lookup
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._posts = posts
        self._lookup = lookup

    async def _event(
        self,
        tx: Executor,
        kind: str,
        actor_id: int,
        object_id: int | None,
        payload: dict[str, Any],
        at_ms: int | None = None,
    ) -> None:
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind=kind,
            created_at=self._clock.now_ms() if at_ms is None else at_ms,
            user_id=actor_id,
            object_id=object_id,
            payload=payload,
        )

    async def _target_user(self, tx: Executor, target_id: int, name: str) -> Row:
        row = await user_rows.get_user_tx(tx, target_id)
        if row is None:
            raise _not_found("user", name, target_id)
        return row

    # ---- likes ----------------------------------------------------------------------------------

    async def like(self, user_id: int, post_id: int) -> bool:
        """Like a post; False if it was already liked (no second event)."""
        post = await self._posts.get(post_id)
        if (
            post is None
            or not visible_post(post)
            or await self._lookup.hidden_authors(user_id, [post["author_id"]])
        ):
            raise _not_found("tweet", "tweet_id", post_id)
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            if await social_rows.edge_exists(tx, "like", user_id, post_id):
                return False
            await social_rows.insert_edge(tx, "like", user_id, post_id, self._clock.now_ms())
            await post_rows.bump_post(tx, post_id, "like_count", 1)
            await post_rows.bump_user(tx, user_id, "like_count", 1)
            await self._event(
                tx,
                "like.create",
                user_id,
                post_id,
                {"user_id": str(user_id), "post_id": str(post_id), "post_author_id": str(post["author_id"])},
            )
        return True

    async def unlike(self, user_id: int, post_id: int) -> bool:
        """Remove a like; False if there was none (unliking is idempotent, as on the platform)."""
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            if not await social_rows.delete_edge(tx, "like", user_id, post_id):
                return False
            post = await post_rows.get_for_update(tx, post_id)
            await post_rows.bump_post(tx, post_id, "like_count", -1)
            await post_rows.bump_user(tx, user_id, "like_count", -1)
            await self._event(
                tx,
                "like.delete",
                user_id,
                post_id,
                {
                    "user_id": str(user_id),
                    "post_id": str(post_id),
                    "post_author_id": str(post["author_id"]) if post else None,
                },
            )
        return True

    # ---- follows --------------------------------------------------------------------------------

    async def follow(self, source_id: int, target_id: int) -> dict[str, bool]:
        """The v2 follow: a protected target gets a pending request (no edge, no event)."""
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [source_id])
            target = await self._target_user(tx, target_id, "target_user_id")
            if source_id == target_id:
                raise errors.forbidden("You cannot follow yourself.")
            if await social_rows.edge_exists(tx, "block", target_id, source_id):
                raise errors.forbidden(
                    "You have been blocked from following this account at the request of the user."
                )
            if await social_rows.edge_exists(tx, "follow", source_id, target_id):
                return {"following": True, "pending_follow": False}
            if target["protected"]:
                return {"following": False, "pending_follow": True}
            await self._add_follow(tx, source_id, target_id)
        return {"following": True, "pending_follow": False}

    async def unfollow(self, source_id: int, target_id: int) -> bool:
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [source_id])
            if not await remove_follow(tx, source_id, target_id):
                return False
            await self._event(
                tx, "follow.unfollow", source_id, target_id, _edge_payload(source_id, target_id)
            )
        return True

    # ---- mutes and blocks -----------------------------------------------------------------------

    async def mute(self, source_id: int, target_id: int) -> bool:
        async with self._db.transaction() as tx:
            await self._target_user(tx, target_id, "target_user_id")
            if source_id == target_id:
                raise errors.forbidden("You cannot mute yourself.")
            return await self._add_edge(tx, "mute", "mute.mute", source_id, target_id)

    async def unmute(self, source_id: int, target_id: int) -> bool:
        async with self._db.transaction() as tx:
            return await self._remove_edge(tx, "mute", "mute.unmute", source_id, target_id)

    async def block(self, source_id: int, target_id: int) -> bool:
        """Block a user; follows both ways go, as on the platform (without follow events)."""
        async with self._db.transaction() as tx:
            await self._target_user(tx, source_id, "source_user_id")
            await self._target_user(tx, target_id, "target_user_id")
            if source_id == target_id:
                raise errors.forbidden("You cannot block yourself.")
            await social_rows.lock_users(tx, [source_id, target_id])
            if await social_rows.edge_exists(tx, "block", source_id, target_id):
                return False
            await remove_follow(tx, source_id, target_id)
            await remove_follow(tx, target_id, source_id)
            return await self._add_edge(tx, "block", "block.block", source_id, target_id)

    async def unblock(self, source_id: int, target_id: int) -> bool:
        async with self._db.transaction() as tx:
            return await self._remove_edge(tx, "block", "block.unblock", source_id, target_id)

    async def _add_edge(self, tx: Executor, kind: str, event: str, source_id: int, target_id: int) -> bool:
        await social_rows.lock_users(tx, [source_id])
        if await social_rows.edge_exists(tx, kind, source_id, target_id):
            return False
        await social_rows.insert_edge(tx, kind, source_id, target_id, self._clock.now_ms())
        await self._event(tx, event, source_id, target_id, _edge_payload(source_id, target_id))
        return True

    async def _remove_edge(self, tx: Executor, kind: str, event: str, source_id: int, target_id: int) -> bool:
        await social_rows.lock_users(tx, [source_id])
        if not await social_rows.delete_edge(tx, kind, source_id, target_id):
            return False
        await self._event(tx, event, source_id, target_id, _edge_payload(source_id, target_id))
        return True

    async def follow_directly(self, source_id: int, target_id: int) -> bool:
        """The control plane's follow: no protected-account request, no block check; event appended."""
        async with self._db.transaction() as tx:
            await social_rows.lock_users(tx, [source_id])
            return await self._add_follow(tx, source_id, target_id)

    async def _add_follow(self, tx: Executor, source_id: int, target_id: int) -> bool:
        """Create a follow edge with its counters and follow.follow event; False if it existed."""
        if await social_rows.edge_exists(tx, "follow", source_id, target_id):
            return False
        now = self._clock.now_ms()
        await social_rows.insert_edge(tx, "follow", source_id, target_id, now)
        await post_rows.bump_user(tx, source_id, "following_count", 1)
        await post_rows.bump_user(tx, target_id, "followers_count", 1)
        await self._event(tx, "follow.follow", source_id, target_id, _edge_payload(source_id, target_id), now)
        return True


def _edge_payload(source_id: int, target_id: int) -> dict[str, Any]:
    return {"source_id": str(source_id), "target_id": str(target_id)}


async def remove_follow(tx: Executor, source_id: int, target_id: int) -> bool:
    """Delete a follow edge and its counters (the caller appends any event); False if none."""
    if not await social_rows.delete_edge(tx, "follow", source_id, target_id):
        return False
    await post_rows.bump_user(tx, source_id, "following_count", -1)
    await post_rows.bump_user(tx, target_id, "followers_count", -1)
    return True
