"""Likes, follows, blocks, mutes, profile edits and spaces: the rules, counters and events.

Every write runs in one transaction and appends its event there (kinds and payloads as documented in
`roost.events.outgoing`). Repeating a write that is already in effect succeeds and appends nothing.
"""

from __future__ import annotations

import re
from typing import Any

from roost.core import errors, jsonio
from roost.core.ids import MAX_SNOWFLAKE
from roost.core.params import USERNAME_PATTERN
from roost.domain.lookup import Lookup, visible_post
from roost.domain.text import user_entities
from roost.services import Services
from roost.storage import posts as post_rows
from roost.storage import social as social_rows
from roost.storage import users as user_rows
from roost.storage.db import Executor, Row
from roost.storage.events import append_event

# The platform's answer when the path user is not the authenticated user.
NOT_PERMITTED = "You are not permitted to perform this action."
_USERNAME = re.compile(USERNAME_PATTERN)
_SPACE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


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
    def __init__(self, services: Services) -> None:
        self.s = services

    async def _event(
        self, tx: Executor, kind: str, actor_id: int, object_id: int | None, payload: dict[str, Any]
    ) -> None:
        await append_event(
            tx,
            event_id=self.s.ids.next_id(),
            kind=kind,
            created_at=self.s.clock.now_ms(),
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
        post = await self.s.posts.get(post_id)
        if (
            post is None
            or not visible_post(post)
            or await Lookup(self.s.posts, self.s.users).hidden_authors(user_id, [post["author_id"]])
        ):
            raise _not_found("tweet", "tweet_id", post_id)
        async with self.s.db.transaction() as tx:
            await social_rows.lock_users(tx, [user_id])
            if await social_rows.edge_exists(tx, "like", user_id, post_id):
                return False
            await social_rows.insert_edge(tx, "like", user_id, post_id, self.s.clock.now_ms())
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
        async with self.s.db.transaction() as tx:
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
        async with self.s.db.transaction() as tx:
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
            await add_follow(self.s, tx, source_id, target_id)
        return {"following": True, "pending_follow": False}

    async def unfollow(self, source_id: int, target_id: int) -> bool:
        async with self.s.db.transaction() as tx:
            await social_rows.lock_users(tx, [source_id])
            if not await remove_follow(tx, source_id, target_id):
                return False
            await self._event(
                tx, "follow.unfollow", source_id, target_id, _edge_payload(source_id, target_id)
            )
        return True

    # ---- mutes and blocks -----------------------------------------------------------------------

    async def mute(self, source_id: int, target_id: int) -> bool:
        async with self.s.db.transaction() as tx:
            await self._target_user(tx, target_id, "target_user_id")
            if source_id == target_id:
                raise errors.forbidden("You cannot mute yourself.")
            return await self._add_edge(tx, "mute", "mute.mute", source_id, target_id)

    async def unmute(self, source_id: int, target_id: int) -> bool:
        async with self.s.db.transaction() as tx:
            return await self._remove_edge(tx, "mute", "mute.unmute", source_id, target_id)

    async def block(self, source_id: int, target_id: int) -> bool:
        """Block a user; follows both ways go, as on the platform (without follow events)."""
        async with self.s.db.transaction() as tx:
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
        async with self.s.db.transaction() as tx:
            return await self._remove_edge(tx, "block", "block.unblock", source_id, target_id)

    async def _add_edge(self, tx: Executor, kind: str, event: str, source_id: int, target_id: int) -> bool:
        await social_rows.lock_users(tx, [source_id])
        if await social_rows.edge_exists(tx, kind, source_id, target_id):
            return False
        await social_rows.insert_edge(tx, kind, source_id, target_id, self.s.clock.now_ms())
        await self._event(tx, event, source_id, target_id, _edge_payload(source_id, target_id))
        return True

    async def _remove_edge(self, tx: Executor, kind: str, event: str, source_id: int, target_id: int) -> bool:
        await social_rows.lock_users(tx, [source_id])
        if not await social_rows.delete_edge(tx, kind, source_id, target_id):
            return False
        await self._event(tx, event, source_id, target_id, _edge_payload(source_id, target_id))
        return True


def _edge_payload(source_id: int, target_id: int) -> dict[str, Any]:
    return {"source_id": str(source_id), "target_id": str(target_id)}


async def add_follow(services: Services, tx: Executor, source_id: int, target_id: int) -> bool:
    """Create a follow edge with its counters and follow.follow event; False if it existed."""
    if await social_rows.edge_exists(tx, "follow", source_id, target_id):
        return False
    now = services.clock.now_ms()
    await social_rows.insert_edge(tx, "follow", source_id, target_id, now)
    await post_rows.bump_user(tx, source_id, "following_count", 1)
    await post_rows.bump_user(tx, target_id, "followers_count", 1)
    await append_event(
        tx,
        event_id=services.ids.next_id(),
        kind="follow.follow",
        created_at=now,
        user_id=source_id,
        object_id=target_id,
        payload=_edge_payload(source_id, target_id),
    )
    return True


async def remove_follow(tx: Executor, source_id: int, target_id: int) -> bool:
    """Delete a follow edge and its counters (the caller appends any event); False if none."""
    if not await social_rows.delete_edge(tx, "follow", source_id, target_id):
        return False
    await post_rows.bump_user(tx, source_id, "following_count", -1)
    await post_rows.bump_user(tx, target_id, "followers_count", -1)
    return True


async def follow_directly(services: Services, source_id: int, target_id: int) -> bool:
    """The control plane's follow: no protected-account request, no block check; event appended."""
    async with services.db.transaction() as tx:
        await social_rows.lock_users(tx, [source_id])
        return await add_follow(services, tx, source_id, target_id)


# ---- profile edits (control plane) ----------------------------------------------------------------

# body key -> (users column, event field of profile.update.<field> or None when no event kind exists)
PROFILE_FIELDS: dict[str, tuple[str, str | None]] = {
    "description": ("description", "bio"),
    "username": ("username", "screenname"),
    "name": ("name", None),
    "verified": ("verified", "verified"),
    "affiliation": ("affiliation", "affiliate"),
    "profile_image_url": ("profile_image_url", "profile_picture"),
    "profile_banner_url": ("profile_banner_url", "banner_picture"),
    "location": ("location", "geo"),
    "url": ("url", "url"),
}


def _check_profile(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict) or not body:
        raise errors.invalid_body("expected a JSON object with at least one profile field")
    unknown = sorted(set(body) - set(PROFILE_FIELDS))
    if unknown:
        raise errors.invalid_body(f"{unknown[0]} is not a profile field ({', '.join(PROFILE_FIELDS)})")
    limits = {"description": 160, "name": 50, "location": 30, "url": 100}
    for key, value in body.items():
        nullable = key in ("location", "profile_banner_url", "affiliation")
        if value is None:
            if not nullable:
                raise errors.invalid_body(f"{key} cannot be null")
        elif key == "verified":
            if not isinstance(value, bool):
                raise errors.invalid_body("verified must be a boolean")
        elif key == "affiliation":
            if not isinstance(value, dict):
                raise errors.invalid_body("affiliation must be an object or null")
        elif not isinstance(value, str):
            raise errors.invalid_body(f"{key} must be a string")
        elif key == "username" and _USERNAME.fullmatch(value) is None:
            raise errors.invalid_body(f"username must match {USERNAME_PATTERN}")
        elif key in limits and len(value) > limits[key]:
            raise errors.invalid_body(f"{key} must be at most {limits[key]} characters")
        elif key == "name" and not value.strip():
            raise errors.invalid_body("name cannot be empty")
        elif (key in ("profile_image_url", "profile_banner_url") or (key == "url" and value)) and (
            not value.startswith(("http://", "https://"))
        ):
            raise errors.invalid_body(f"{key} must be an http(s) URL")
    return body


def _stored(key: str, value: Any) -> Any:
    if key == "verified":
        return int(value)
    if key == "affiliation":
        return None if value is None else jsonio.dumps(value).decode()
    return value


def _shown_value(key: str, stored: Any) -> Any:
    """A column value as it appears in the event payload (booleans and objects decoded)."""
    if key == "verified":
        return bool(stored)
    if key == "affiliation":
        return None if stored is None else jsonio.loads(stored)
    return stored


async def update_profile(services: Services, user_id: int, body: Any) -> tuple[Row, list[str]]:
    """Apply profile changes; one profile.update.<field> event per field that changed."""
    changes = _check_profile(body)
    async with services.db.transaction() as tx:
        await social_rows.lock_users(tx, [user_id])
        row = await user_rows.get_user_tx(tx, user_id)
        if row is None:
            raise errors.not_found_problem(f"Could not find user with id: [{user_id}].")
        values = dict(row)
        changed: list[str] = []
        for key, value in changes.items():
            column, _ = PROFILE_FIELDS[key]
            new = _stored(key, value)
            renamed = key == "username" and value.lower() != row["username_lower"]
            if renamed and await user_rows.get_users_by_names_tx(tx, [value]):
                raise errors.conflict(f"username {value} is taken")
            if new != row[column]:
                values[column] = new
                changed.append(key)
        if not changed:
            return row, []
        values["username_lower"] = values["username"].lower()
        values["entities"] = user_entities(values["description"], values["url"])
        await social_rows.update_profile(tx, user_id, values)
        now = services.clock.now_ms()
        for key in changed:
            column, field = PROFILE_FIELDS[key]
            if field is None:
                continue  # the event catalogue has no kind for this field (e.g. the display name)
            await append_event(
                tx,
                event_id=services.ids.next_id(),
                kind=f"profile.update.{field}",
                created_at=now,
                user_id=user_id,
                object_id=user_id,
                payload={
                    "user_id": str(user_id),
                    "before": _shown_value(key, row[column]),
                    "after": _shown_value(key, values[column]),
                },
            )
    return values, changed


# ---- spaces (control plane) -----------------------------------------------------------------------


async def start_space(services: Services, creator_id: int, title: str | None) -> Row:
    async with services.db.transaction() as tx:
        if await user_rows.get_user_tx(tx, creator_id) is None:
            raise errors.invalid_body("creator_id must name an existing user")
        now = services.clock.now_ms()
        space_id = "1" + services.tokens.token(12, _SPACE_ALPHABET)
        row = {
            "id": space_id,
            "creator_id": creator_id,
            "title": title,
            "state": "live",
            "created_at": now,
            "started_at": now,
            "ended_at": None,
        }
        await social_rows.insert_space(tx, row)
        await _space_event(services, tx, "spaces.start", row)
    return row


async def end_space(services: Services, space_id: str) -> tuple[Row, bool]:
    """End a live space; (row, False) when it had already ended (no second event)."""
    async with services.db.transaction() as tx:
        row = await social_rows.get_space_tx(tx, space_id)
        if row is None:
            raise errors.not_found_problem(f"Could not find space with id: [{space_id}].")
        now = services.clock.now_ms()
        if not await social_rows.end_space(tx, space_id, now):
            return row, False
        await _space_event(services, tx, "spaces.end", row)
        return {**row, "state": "ended", "ended_at": now}, True


async def _space_event(services: Services, tx: Executor, kind: str, row: Row) -> None:
    await append_event(
        tx,
        event_id=services.ids.next_id(),
        kind=kind,
        created_at=services.clock.now_ms(),
        user_id=row["creator_id"],
        object_id=None,  # space ids are not numeric; the payload carries it
        payload={"space_id": row["id"], "creator_id": str(row["creator_id"])},
    )
