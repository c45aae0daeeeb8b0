"""Activity-event (XAA) subscriptions: the rules, without HTTP.

A subscription belongs to an app; it names one event type and a filter (a user, a keyword for news
and optionally for any other event with text, optionally a direction for directional events) and
optionally a webhook that receives the events as well as any open `/2/activity/stream` connection of
the app. Feature setting in `settings.extra`: `activity_subscription_limit` (per app; unset, the app's
package decides: 1,500 pay-per-use, 75,000 enterprise). A `news.new` keyword is enterprise-only.
"""

from __future__ import annotations

import re
from typing import Any

from roost.config import Settings
from roost.core import errors, jsonio, pagination
from roost.core.clock import Clock, iso_ms, parse_rfc3339
from roost.core.ids import SnowflakeGenerator
from roost.core.pagination import PageToken
from roost.core.params import MAX_ID
from roost.core.principal import Principal
from roost.core.records import Row
from roost.domain.packages import PACKAGES
from roost.storage import activity as rows
from roost.storage.activity import ActivityStore
from roost.storage.db import Database
from roost.storage.users import UserStore
from roost.storage.webhooks import WebhookStore

MAX_TAG = 200
MAX_KEYWORD = 150
ID_PATTERN = "^[0-9]{1,19}$"
_ID = re.compile(r"[0-9]{1,19}")
PAGE_SCOPE = "activity-subscriptions"
DM_LEVEL = "read-write-directmessages"

# The official document's enum (SPEC 2.167), in its order.
SPEC_EVENT_TYPES = (
    "profile.update.bio",
    "profile.update.profile_picture",
    "profile.update.banner_picture",
    "profile.update.screenname",
    "profile.update.geo",
    "profile.update.url",
    "profile.update.verified_badge",
    "profile.update.affiliate_badge",
    "profile.update.handle",
    "news.new",
    "follow.follow",
    "follow.unfollow",
    "spaces.start",
    "spaces.end",
    "chat.received",
    "chat.sent",
    "chat.conversation_join",
    "dm.sent",
    "dm.received",
    "dm.indicate_typing",
    "dm.read",
    "post.create",
    "post.delete",
    "post.mention.create",
    "like.create",
    "mute.mute",
    "mute.unmute",
    "block.block",
    "block.unblock",
)
# The product description's names for the badge updates; accepted next to the `*_badge` ones.
SEED_EVENT_TYPES = ("profile.update.verified", "profile.update.affiliate")
# Listed by the docs repository, not by 2.167: a repost made by the filter's user (issue 14), a
# user's revocation of the app (the event-payloads page), which takes an empty filter, and a user's
# broadcasts starting and ending and the chat they receive in them (issue 22).
DOCS_EVENT_TYPES = (
    "post.repost.create",
    "oauth.revoke",
    "broadcast.start",
    "broadcast.end",
    "broadcast.chat",
)
NO_FILTER_EVENT_TYPES = ("oauth.revoke",)
EVENT_TYPES = SPEC_EVENT_TYPES + SEED_EVENT_TYPES + DOCS_EVENT_TYPES
_EVENT_TYPE_SET = frozenset(EVENT_TYPES)

# Names used before 2026-03-18, mapped to today's; refused from that instant on (by `services.clock`).
LEGACY_CUTOFF_MS = parse_rfc3339("2026-03-18T00:00:00Z") or 0
LEGACY_EVENT_TYPES = {
    "ProfileBioUpdate": "profile.update.bio",
    "ProfilePictureUpdate": "profile.update.profile_picture",
    "ProfileBannerUpdate": "profile.update.banner_picture",
    "ProfileGeoUpdate": "profile.update.geo",
    "ProfileUrlUpdate": "profile.update.url",
    "ProfileScreennameUpdate": "profile.update.screenname",
    "ProfileHandleUpdate": "profile.update.handle",
    "ProfileVerifiedBadgeUpdate": "profile.update.verified_badge",
    "ProfileAffiliateBadgeUpdate": "profile.update.affiliate_badge",
    "FollowFollow": "follow.follow",
    "FollowUnfollow": "follow.unfollow",
    "SpacesStart": "spaces.start",
    "SpacesEnd": "spaces.end",
    "PostCreate": "post.create",
    "PostDelete": "post.delete",
    "LikeCreate": "like.create",
    "MuteMute": "mute.mute",
    "MuteUnmute": "mute.unmute",
    "BlockBlock": "block.block",
    "BlockUnblock": "block.unblock",
    "DmSent": "dm.sent",
    "DmReceived": "dm.received",
    "DmRead": "dm.read",
    "DmIndicateTyping": "dm.indicate_typing",
}

DIRECTIONS = ("inbound", "outbound")
DIRECTIONAL_PREFIXES = ("dm.", "chat.", "like.")
# Event families only a user may subscribe to, and the OAuth 2.0 scope each needs.
PRIVATE_SCOPES = {
    "dm.": "dm.read",
    "chat.": "dm.read",
    "like.": "like.read",
    "mute.": "mute.read",
    "block.": "block.read",
    # One event of a family, not the family: a broadcast's start and end are public (issue 22).
    "broadcast.chat": "broadcast.read",
}
# Families whose filter.user_id must be the caller: the spec's actor-only mute/block, and DMs (a
# conversation is visible to its participants only).
OWN_USER_PREFIXES = ("mute.", "block.", "dm.", "chat.")
# A broadcast's chat goes to its owner, and `broadcast.read` reads the caller's own broadcasts only.
OWN_USER_EVENT_TYPES = ("broadcast.chat",)

# Event families that show what a user does (likes of and by them; who follows them and whom they
# follow): a protected user's are for those who may see the user (themselves and their followers).
# Posts of protected accounts are never delivered at all; profile updates and Spaces are public, and
# DMs, chats, mutes and blocks are the caller's own (OWN_USER_PREFIXES).
PROTECTED_ACTIVITY_PREFIXES = ("like.", "follow.")


def carries_text(event_type: str) -> bool:
    """Event types whose payload has text a `filter.keyword` can match: news stories, posts (every
    `post.*` but the delete, which carries ids only) and direct messages."""
    return (
        event_type == "news.new"
        or (event_type.startswith("post.") and event_type != "post.delete")
        or event_type in ("dm.sent", "dm.received")
    )


CREATE_FIELDS = frozenset({"event_type", "filter", "tag", "webhook_id"})
UPDATE_FIELDS = frozenset({"tag", "webhook_id"})
FILTER_FIELDS = frozenset({"user_id", "keyword", "direction"})


def _family(event_type: str) -> str:
    return event_type.split(".", 1)[0] + "."


def _invalid(message: str) -> errors.ApiError:
    return errors.invalid_body(message)


def _no_extra(body: dict[str, Any], allowed: frozenset[str], prefix: str) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise _invalid(
            f"{prefix}.{unknown[0]}: is not defined in the schema and the schema does not allow "
            "additional properties"
        )


def _string(body: dict[str, Any], name: str, prefix: str = "$") -> str | None:
    if name not in body:
        return None
    value = body[name]
    if not isinstance(value, str):
        raise _invalid(f"{prefix}.{name}: {jsonio.type_name(value)} found, string expected")
    return value


def _id_value(body: dict[str, Any], name: str, prefix: str = "$") -> int | None:
    value = _string(body, name, prefix)
    if value is None:
        return None
    if _ID.fullmatch(value) is None:
        raise _invalid(f"{prefix}.{name}: does not match the regex pattern {ID_PATTERN}")
    # Values above MAX_ID match the pattern; they are refused as unknown ids, before any lookup.
    return int(value)


def _tag(body: dict[str, Any]) -> str | None:
    tag = _string(body, "tag")
    if tag is None:
        return None
    if len(tag) < 1:
        raise _invalid("$.tag: must be at least 1 characters long")
    if len(tag) > MAX_TAG:
        raise _invalid(f"$.tag: may only be {MAX_TAG} characters long")
    return tag


def event_type_of(raw: Any, now_ms: int) -> str:
    """The canonical event type for a requested name (legacy names mapped while they are accepted)."""
    if not isinstance(raw, str):
        raise _invalid(f"$.event_type: {jsonio.type_name(raw)} found, string expected")
    if raw in _EVENT_TYPE_SET:
        return raw
    modern = LEGACY_EVENT_TYPES.get(raw)
    if modern is not None:
        if now_ms < LEGACY_CUTOFF_MS:
            return modern
        raise _invalid(
            f"$.event_type: {raw} was deprecated on 2026-03-18 and is no longer accepted; use {modern}"
        )
    raise _invalid(f"$.event_type: does not have a value in the enumeration [{', '.join(SPEC_EVENT_TYPES)}]")


def render_filter(row: Row) -> dict[str, str]:
    out: dict[str, str] = {}
    if row["filter_user_id"] is not None:
        out["user_id"] = str(row["filter_user_id"])
    if row["filter_keyword"] is not None:
        out["keyword"] = row["filter_keyword"]
    if row["filter_direction"] is not None:
        out["direction"] = row["filter_direction"]
    return out


def render_subscription(row: Row) -> dict[str, Any]:
    out: dict[str, Any] = {
        "subscription_id": str(row["id"]),
        "event_type": row["event_type"],
        "filter": render_filter(row),
    }
    if row["tag"] is not None:
        out["tag"] = row["tag"]
    if row["webhook_id"] is not None:
        out["webhook_id"] = str(row["webhook_id"])
    out["created_at"] = iso_ms(int(row["created_at"]))
    out["updated_at"] = iso_ms(int(row["updated_at"]))
    return out


class ActivityService:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        settings: Settings,  # read live: activity_subscription_limit
        store: ActivityStore,
        users: UserStore,
        webhooks: WebhookStore,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._settings = settings
        self.store = store
        self._users = users
        self._webhooks = webhooks

    def limit(self, package: str) -> int:
        """Subscriptions an app may have: the setting when set, else its package's figure."""
        by_package = PACKAGES[package].activity_subscriptions
        return self._settings.whole("activity_subscription_limit", by_package)

    # ---- validation ----------------------------------------------------------------------------

    def _filter(self, event_type: str, raw: Any) -> tuple[int | None, str | None, str | None]:
        if not isinstance(raw, dict):
            raise _invalid(f"$.filter: {jsonio.type_name(raw)} found, object expected")
        _no_extra(raw, FILTER_FIELDS, "$.filter")
        user_id = _id_value(raw, "user_id", "$.filter")
        keyword = _string(raw, "keyword", "$.filter")
        direction = _string(raw, "direction", "$.filter")
        if keyword is not None and not 1 <= len(keyword) <= MAX_KEYWORD:
            bound = (
                "must be at least 1 characters long"
                if not keyword
                else f"may only be {MAX_KEYWORD} characters long"
            )
            raise _invalid(f"$.filter.keyword: {bound}")
        if direction is not None and direction not in DIRECTIONS:
            raise _invalid("$.filter.direction: does not have a value in the enumeration [inbound, outbound]")
        if event_type in NO_FILTER_EVENT_TYPES:
            for name in ("user_id", "keyword", "direction"):
                if name in raw:
                    raise _invalid(f"$.filter.{name}: is not supported for {event_type} subscriptions")
        elif event_type == "news.new":
            if keyword is None:
                raise _invalid("$.filter.keyword: is missing but it is required for news.new subscriptions")
            if user_id is not None:
                raise _invalid("$.filter.user_id: is not supported for news.new subscriptions")
        else:
            # The seed: "Subscriptions filter by user id, optionally keyword" (any event with text).
            if keyword is not None and not carries_text(event_type):
                raise _invalid(f"$.filter.keyword: is not supported for {event_type} subscriptions")
            if user_id is None:
                raise _invalid(
                    f"$.filter.user_id: is missing but it is required for {event_type} subscriptions"
                )
        if direction is not None and not event_type.startswith(DIRECTIONAL_PREFIXES):
            raise _invalid(f"$.filter.direction: is not supported for {event_type} subscriptions")
        return user_id, keyword, direction

    def _authorise(self, principal: Principal, event_type: str, user_id: int | None) -> None:
        family = _family(event_type)
        scope = PRIVATE_SCOPES.get(event_type) or PRIVATE_SCOPES.get(family)
        if principal.kind == "oauth2":
            needed = scope or "tweet.read"
            if needed not in principal.scopes:
                raise errors.missing_scopes([needed])
        elif scope is not None:
            if principal.kind == "app":
                raise errors.unsupported_authentication("app", ("oauth1", "oauth2"))
            if scope == "dm.read" and principal.access_level != DM_LEVEL:
                raise errors.coded(403, 93)
        own = family in OWN_USER_PREFIXES or event_type in OWN_USER_EVENT_TYPES
        if own and user_id != principal.user_id:
            raise errors.forbidden(
                f"{event_type} subscriptions may only filter on the authenticated user "
                f"(filter.user_id must be {principal.user_id})."
            )

    async def _may_see(self, principal: Principal, user_id: int) -> None:
        """A protected user's activity is for the user and their followers: the caller must be one
        (an app-only call has no user, so it is neither). Refused as the platform refuses a resource
        the caller may not see (the not-authorized-for-resource problem), as a 403."""
        viewer = principal.user_id
        if viewer == user_id:
            return
        if viewer is not None and (viewer, user_id) in await self._users.relations(viewer, [user_id]):
            return
        raise errors.not_authorized_for_resource("user", "filter.user_id", str(user_id))

    async def _webhook(self, app_id: int, webhook_id: int | None) -> None:
        if webhook_id is None:
            return
        # No webhook has an id beyond 64 bits (nor could SQLite look one up).
        row = await self._webhooks.get(webhook_id) if webhook_id <= MAX_ID else None
        if row is None or int(row["app_id"]) != app_id:
            raise errors.webhook_failure(
                "WebhookIdInvalid", f"Webhook id {webhook_id} is not valid for this app"
            )

    # ---- operations ----------------------------------------------------------------------------

    async def create(self, principal: Principal, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise _invalid("$: a JSON object is expected")
        _no_extra(body, CREATE_FIELDS, "$")
        for name in ("event_type", "filter"):
            if name not in body:
                raise _invalid(f"$.{name}: is missing but it is required")
        now = self._clock.now_ms()
        event_type = event_type_of(body["event_type"], now)
        user_id, keyword, direction = self._filter(event_type, body["filter"])
        if event_type == "news.new" and not PACKAGES[principal.package].news_keyword_filter:
            raise errors.client_forbidden(str(principal.app_id)).because(
                f"news.new subscriptions (their keyword filter) are enterprise-only; the app's package is "
                f"{principal.package} (docs/access-levels.md)"
            )
        tag = _tag(body)
        webhook_id = _id_value(body, "webhook_id")
        self._authorise(principal, event_type, user_id)
        await self._webhook(principal.app_id, webhook_id)
        if user_id is not None:
            target = await self._users.get(user_id) if user_id <= MAX_ID else None
            if target is None:
                raise _invalid(f"$.filter.user_id: user {user_id} does not exist")
            if event_type.startswith(PROTECTED_ACTIVITY_PREFIXES) and target["protected"]:
                await self._may_see(principal, user_id)
        limit = self.limit(principal.package)
        row = {
            "id": self._ids.next_id(),
            "app_id": principal.app_id,
            "event_type": event_type,
            "filter_user_id": user_id,
            "filter_keyword": keyword,
            "filter_direction": direction,
            "tag": tag,
            "webhook_id": webhook_id,
            "created_at": now,
            "updated_at": now,
        }
        async with self._db.transaction() as tx:
            if await rows.duplicate_tx(tx, principal.app_id, event_type, user_id, keyword, direction):
                raise errors.webhook_failure(
                    "DuplicateSubscriptionFailed",
                    "The app already has a subscription with this event_type and filter",
                )
            if await rows.count_of_app_tx(tx, principal.app_id) >= limit:
                raise errors.webhook_failure(
                    "SubscriptionLimitExceeded", f"The app already has the maximum of {limit} subscriptions"
                )
            await rows.insert_subscription(tx, row)
        return {"subscription": render_subscription(row)}

    async def listing(self, app_id: int, max_results: int, token: PageToken | None) -> dict[str, Any]:
        after = token.position(PAGE_SCOPE)[0] if token is not None else 0
        page = await self.store.page_of_app(app_id, after, max_results + 1)
        more = len(page) > max_results
        page = page[:max_results]
        meta: dict[str, Any] = {"total_subscriptions": await self.store.count_of_app(app_id)}
        if more:
            meta["next_token"] = pagination.encode(int(page[-1]["id"]), scope=PAGE_SCOPE)
        body: dict[str, Any] = {}
        if page:
            body["data"] = [render_subscription(row) for row in page]
        body["meta"] = meta
        return body

    async def update(self, app_id: int, subscription_id: int, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise _invalid("$: a JSON object is expected")
        _no_extra(body, UPDATE_FIELDS, "$")
        tag = _tag(body)
        webhook_id = _id_value(body, "webhook_id")
        await self._webhook(app_id, webhook_id)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await rows.get_tx(tx, subscription_id)
            if row is None or int(row["app_id"]) != app_id:
                raise _not_found(subscription_id)
            new_tag = tag if "tag" in body else row["tag"]
            new_hook = webhook_id if "webhook_id" in body else row["webhook_id"]
            await rows.update_subscription(tx, subscription_id, new_tag, new_hook, now)
            updated = {**row, "tag": new_tag, "webhook_id": new_hook, "updated_at": now}
            total = await rows.count_of_app_tx(tx, app_id)
        return {"subscription": render_subscription(updated), "total_subscriptions": total}

    async def delete(self, app_id: int, subscription_id: int) -> int:
        """Deletes one subscription; answers how many the app has left."""
        async with self._db.transaction() as tx:
            if not await rows.delete_subscription(tx, app_id, subscription_id):
                raise _not_found(subscription_id)
            return await rows.count_of_app_tx(tx, app_id)

    async def delete_many(self, app_id: int, ids: list[int]) -> dict[str, Any]:
        data: list[dict[str, Any]] = []
        problems: list[dict[str, Any]] = []
        async with self._db.transaction() as tx:
            for subscription_id in dict.fromkeys(ids):  # each id once, in the order given
                deleted = await rows.delete_subscription(tx, app_id, subscription_id)
                data.append({"subscription_id": str(subscription_id), "deleted": deleted})
                if not deleted:
                    problems.append(
                        {
                            "subscription_id": str(subscription_id),
                            "reason": "SubscriptionNotFound",
                            "message": f"Subscription {subscription_id} was not found for this app",
                        }
                    )
            total = await rows.count_of_app_tx(tx, app_id)
        body: dict[str, Any] = {"data": data}
        if problems:
            body["errors"] = problems
        body["meta"] = {"total_subscriptions": total}
        return body


def _not_found(subscription_id: int) -> errors.ApiError:
    return errors.webhook_failure(
        "SubscriptionNotFound", f"Subscription {subscription_id} was not found for this app"
    )
