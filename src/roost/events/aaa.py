"""Account-activity fan-out: event-log rows → v1.1-shaped envelopes for each subscribed user's webhooks.

For every event kind (see `roost.events.outgoing`) this decides which users the event concerns, asks
storage once per concerned user for that user's valid subscribed webhooks (with the subscription's
access level: DM events need the DM level), renders the envelope only when someone will receive it,
and answers one `Outgoing` per (user, webhook). A revocation (`user_event`) goes to every valid
webhook of the app instead: the user's subscriptions to them went with the revocation. Who receives
what is documented in docs/account-activity.md.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from roost.core import jsonio
from roost.core.records import Row
from roost.domain.webhooks import DM_LEVEL
from roost.events.outgoing import Outgoing
from roost.events.v1_objects import (
    dm_user,
    mention_ids,
    user_or_stub,
    v1_entities,
    v1_status,
    v1_time,
    v1_user,
)
from roost.storage.aaa import AaaStore
from roost.storage.db import Database
from roost.storage.dms import DmStore
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

__all__ = ["AccountActivity", "aaa_outgoing", "legacy_dm_entities", "v1_status", "v1_time", "v1_user"]

_NEW_POST_KINDS = ("post.create", "post.edit")  # both fanned out by `_post_create`
ONE_TO_ONE = re.compile(r"^([0-9]{1,19})-([0-9]{1,19})$")
MESSAGE_CREATE = "MessageCreate"


@dataclass(slots=True)
class _ReadAhead:
    """What the new posts of one dispatcher batch are read for, read for all of them at once
    (`AccountActivity.prepare`): a query per batch instead of three per post under a write load."""

    positions: frozenset[int]  # the batch's events: no other event reads from here
    posts: dict[int, Row]
    mentioned: dict[int, list[int]]  # post id -> whom it mentions; every new post has an entry
    targets: dict[int, list[Row]]  # user id -> their subscribed valid webhooks; as `AaaStore.targets`


class _Event:
    """One event being fanned out: its payload, and the rows loaded for it (each at most once)."""

    def __init__(self, activity: AccountActivity, row: Row, ahead: _ReadAhead | None = None) -> None:
        self.activity = activity
        self.row = row
        self.kind = str(row["kind"])
        self.at = int(row["created_at"])
        self.payload: dict[str, Any] = jsonio.loads(row["payload"])
        self.store = activity.aaa
        self._users: dict[int, Row] = {}
        self._missing_users: set[int] = set()
        # The batch's posts, shared: what one event loads (a quoted post) serves the next ones too.
        self._posts: dict[int, Row] = {} if ahead is None else ahead.posts
        self._ahead = ahead

    def id_of(self, name: str) -> int:
        return int(self.payload[name])

    async def users(self, ids: Iterable[int]) -> dict[int, Row]:
        wanted = [user_id for user_id in dict.fromkeys(ids) if user_id not in self._missing_users]
        missing = [user_id for user_id in wanted if user_id not in self._users]
        if missing:
            for row in await self.activity.users.get_many(missing):
                self._users[int(row["id"])] = row
            self._missing_users.update(user_id for user_id in missing if user_id not in self._users)
        return self._users

    async def posts(self, ids: Iterable[int]) -> dict[int, Row]:
        missing = [post_id for post_id in dict.fromkeys(ids) if post_id not in self._posts]
        if missing:
            for row in await self.activity.posts.get_many(missing):
                self._posts[int(row["id"])] = row
        return self._posts

    async def targets(self, user_id: int, dm: bool = False) -> list[int]:
        rows = None if self._ahead is None else self._ahead.targets.get(user_id)
        if rows is None:
            rows = await self.store.targets(user_id)
        return [int(row["id"]) for row in rows if not dm or row["access_level"] == DM_LEVEL]

    async def mentioned_user_ids(self, post_id: int) -> list[int]:
        found = None if self._ahead is None else self._ahead.mentioned.get(post_id)
        return found if found is not None else await self.store.mentioned_user_ids(post_id)

    async def status(self, post: Row) -> dict[str, Any]:
        """The v1.1 status of a post with everything it refers to loaded: the quoted or reposted
        post, and the post a reposted quote quotes (the samples show it twice)."""
        entities = jsonio.loads(post["entities"]) if post["entities"] else None
        referenced = [int(p) for p in (post["quoted_post_id"], post["reposted_post_id"]) if p is not None]
        posts = await self.posts(referenced)
        reposted = post["reposted_post_id"]
        source = posts.get(int(reposted)) if reposted is not None else None
        if source is not None and source["quoted_post_id"] is not None:
            referenced.append(int(source["quoted_post_id"]))
            posts = await self.posts(referenced)
        user_ids = [int(post["author_id"]), *mention_ids(entities)]
        if post["in_reply_to_user_id"] is not None:
            user_ids.append(int(post["in_reply_to_user_id"]))
        for ref in referenced:
            if ref in posts:
                user_ids.append(int(posts[ref]["author_id"]))
                ref_entities = posts[ref]["entities"]
                user_ids.extend(mention_ids(jsonio.loads(ref_entities) if ref_entities else None))
        users = await self.users(user_ids)
        author = users.get(int(post["author_id"]))
        return v1_status(post, author, users, posts, seed=self.activity.url_seed)


def _outgoing(user_id: int, webhooks: list[int], envelope: dict[str, Any]) -> list[Outgoing]:
    body = jsonio.dumps(envelope)
    return [Outgoing(webhook_id, f"aaa:{user_id}", body, user_id) for webhook_id in webhooks]


def _like_id(event_id: int) -> str:
    """A like's id on the platform is 32 hex characters; derived from the event, so it is stable."""
    return hashlib.md5(f"like:{event_id}".encode()).hexdigest()


# ---- posts ------------------------------------------------------------------------------------


async def _post_create(event: _Event) -> list[Outgoing]:
    post_id, author_id = event.id_of("post_id"), event.id_of("author_id")
    post = (await event.posts([post_id])).get(post_id)
    if post is None:
        return []
    entities = jsonio.loads(post["entities"]) if post["entities"] else None
    mentioned = set(await event.mentioned_user_ids(post_id)) | set(mention_ids(entities))
    concerned = [author_id, *sorted(mentioned)]
    if post["in_reply_to_user_id"] is not None:
        concerned.append(int(post["in_reply_to_user_id"]))
    referenced = [int(p) for p in (post["quoted_post_id"], post["reposted_post_id"]) if p is not None]
    shown = [author_id]
    for ref in referenced:
        ref_row = (await event.posts([ref])).get(ref)
        if ref_row is not None:
            concerned.append(int(ref_row["author_id"]))
            shown.append(int(ref_row["author_id"]))
    subscribed: dict[int, list[int]] = {}
    for user_id in dict.fromkeys(concerned):
        webhooks = await event.targets(user_id)
        if webhooks:
            subscribed[user_id] = webhooks
    subscribed = await _who_may_see(event, subscribed, shown)
    if not subscribed:
        return []
    status = await event.status(post)
    flagged = [user_id for user_id in subscribed if user_id in mentioned and user_id != author_id]
    blockers = await event.store.blockers_of(author_id, flagged)
    out: list[Outgoing] = []
    for user_id, webhooks in subscribed.items():
        envelope: dict[str, Any] = {"for_user_id": str(user_id)}
        if user_id in flagged:
            envelope["user_has_blocked"] = "true" if user_id in blockers else "false"
        envelope["tweet_create_events"] = [status]
        out += _outgoing(user_id, webhooks, envelope)
    return out


async def _who_may_see(
    event: _Event, subscribed: dict[int, list[int]], authors: list[int]
) -> dict[int, list[int]]:
    """The recipients who may see every protected author the status shows (the post's, a quoted or
    reposted post's): a mention or reply from a protected account reaches its followers only."""
    if not subscribed:
        return subscribed
    protected = await event.activity.users.protected_ids()
    hidden = [author for author in dict.fromkeys(authors) if author in protected]
    if not hidden:
        return subscribed
    kept: dict[int, list[int]] = {}
    for user_id, webhooks in subscribed.items():
        others = [author for author in hidden if author != user_id]
        relations = await event.activity.users.relations(user_id, others) if others else set()
        if all((user_id, author) in relations for author in others):
            kept[user_id] = webhooks
    return kept


async def _post_delete(event: _Event) -> list[Outgoing]:
    post_id, author_id = event.id_of("post_id"), event.id_of("author_id")
    webhooks = await event.targets(author_id)
    if not webhooks:
        return []
    deleted = {"status": {"id": str(post_id), "user_id": str(author_id)}, "timestamp_ms": str(event.at)}
    return _outgoing(author_id, webhooks, {"for_user_id": str(author_id), "tweet_delete_events": [deleted]})


# ---- likes, follows, blocks, mutes --------------------------------------------------------------


async def _like_create(event: _Event) -> list[Outgoing]:
    liker_id, post_id = event.id_of("user_id"), event.id_of("post_id")
    post_author_id = event.id_of("post_author_id")
    subscribed: dict[int, list[int]] = {}
    for user_id in dict.fromkeys((liker_id, post_author_id)):
        webhooks = await event.targets(user_id)
        if webhooks:
            subscribed[user_id] = webhooks
    if not subscribed:
        return []
    post = (await event.posts([post_id])).get(post_id)
    if post is None:
        return []
    users = await event.users([liker_id])
    favorite = {
        "id": _like_id(int(event.row["id"])),
        "created_at": v1_time(event.at),
        "timestamp_ms": event.at,
        "favorited_status": await event.status(post),
        "user": user_or_stub(users, liker_id),
    }
    out: list[Outgoing] = []
    for user_id, webhooks in subscribed.items():
        out += _outgoing(user_id, webhooks, {"for_user_id": str(user_id), "favorite_events": [favorite]})
    return out


_EDGES = {
    "follow.follow": ("follow_events", "follow"),
    "follow.unfollow": ("follow_events", "unfollow"),
    "block.block": ("block_events", "block"),
    "block.unblock": ("block_events", "unblock"),
    "mute.mute": ("mute_events", "mute"),
    "mute.unmute": ("mute_events", "unmute"),
}


async def _edge(event: _Event) -> list[Outgoing]:
    """Follows, blocks and mutes, and their undoing: to the source and to the target (the v2
    introduction's activity types: each "by user or of user")."""
    key, kind = _EDGES[event.kind]
    source_id, target_id = event.id_of("source_id"), event.id_of("target_id")
    subscribed = {user_id: await event.targets(user_id) for user_id in dict.fromkeys((source_id, target_id))}
    subscribed = {user_id: webhooks for user_id, webhooks in subscribed.items() if webhooks}
    if not subscribed:
        return []
    users = await event.users([source_id, target_id])
    item: dict[str, Any] = {"type": kind, "created_timestamp": str(event.at)}
    # The samples' order: a follow names its target first, blocks and mutes their source.
    ends = [("target", target_id), ("source", source_id)]
    for name, end_id in ends if key == "follow_events" else ends[::-1]:
        item[name] = user_or_stub(users, end_id)
    out: list[Outgoing] = []
    for user_id, webhooks in subscribed.items():
        out += _outgoing(user_id, webhooks, {"for_user_id": str(user_id), key: [item]})
    return out


# ---- direct messages --------------------------------------------------------------------------


def _other_participant(conversation_id: str, user_id: int) -> int | None:
    """The other user of a 1:1 conversation; None for groups (account activity carries 1:1 only)."""
    pair = ONE_TO_ONE.fullmatch(conversation_id)
    if pair is None:
        return None
    low, high = int(pair.group(1)), int(pair.group(2))
    if user_id not in (low, high):
        return None
    return high if user_id == low else low


async def legacy_dm_entities(users: UserStore, stored: str | None) -> dict[str, Any]:
    """A DM's stored (v2-shaped) entities as the legacy `message_data.entities`: hashtags, symbols,
    user_mentions and urls with `indices`, every key present even when empty. Shared by account
    activity and activity events (`dm.sent`/`dm.received`), which carry the same legacy DM event."""
    entities = jsonio.loads(stored) if stored else {}
    names = [m["username"] for m in entities.get("mentions") or ()]
    by_name: dict[str, Row] = {}
    if names:
        for row in await users.get_many_by_username(names):
            by_name[str(row["username_lower"])] = row
    for mention in entities.get("mentions") or ():
        named = by_name.get(str(mention["username"]).lower())
        if named is not None:
            mention["id"] = str(named["id"])
    return v1_entities(entities, {int(row["id"]): row for row in by_name.values()})


async def legacy_dm_attachment(users: UserStore, stored: str | None) -> dict[str, Any] | None:
    """A DM's stored attachment (`{"media_keys": [...]}`) as the legacy `message_data.attachment`;
    shared, like the entities, by account activity and activity events."""
    keys = (jsonio.loads(stored) if stored else {}).get("media_keys") or []
    if not keys:
        return None
    rows = await users.media_many(keys[:1])
    if not rows:
        return None
    media = rows[0]
    url = media["url"] or media["preview_image_url"] or ""
    return {
        "type": "media",
        "media": {
            "id": int(media["id"]),
            "id_str": str(media["id"]),
            "media_url": url.replace("https://", "http://", 1),
            "media_url_https": url,
            "type": media["type"],
        },
    }


async def _dm_message(event: _Event) -> list[Outgoing]:
    user_id = int(event.row["user_id"])
    if event.payload.get("event_type", MESSAGE_CREATE) != MESSAGE_CREATE:
        return []
    sender_id = event.id_of("sender_id")
    conversation_id = str(event.payload["dm_conversation_id"])
    other = _other_participant(conversation_id, user_id)
    if other is None:
        return []
    webhooks = await event.targets(user_id, dm=True)
    if not webhooks:
        return []
    message = await event.activity.dms.event(event.id_of("dm_event_id"))
    if message is None:
        return []
    recipient_id = other if user_id == sender_id else user_id
    message_data: dict[str, Any] = {
        "text": message["text"] or "",
        "entities": await legacy_dm_entities(event.activity.users, message["entities"]),
    }
    attachment = await legacy_dm_attachment(event.activity.users, message["attachments"])
    if attachment is not None:
        message_data["attachment"] = attachment
    create: dict[str, Any] = {"target": {"recipient_id": str(recipient_id)}, "sender_id": str(sender_id)}
    # The sending app, recorded with the event since it was (older events do not name it).
    app_id = event.payload.get("app_id")
    if app_id is not None:
        create["source_app_id"] = str(app_id)
    create["message_data"] = message_data
    item = {
        "type": "message_create",
        "id": str(message["id"]),
        "created_timestamp": str(message["created_at"]),
        "message_create": create,
    }
    users = await event.users([sender_id, recipient_id])
    envelope: dict[str, Any] = {"for_user_id": str(user_id), "direct_message_events": [item]}
    app = await event.store.app(int(app_id)) if app_id is not None else None
    if app is not None:
        envelope["apps"] = {str(app["id"]): app_entry(app)}
    envelope["users"] = {str(uid): dm_user(users[uid]) for uid in (sender_id, recipient_id) if uid in users}
    return _outgoing(user_id, webhooks, envelope)


def app_entry(app: Row) -> dict[str, str]:
    """An `apps` entry. roost keeps no website for an app: `url` is its owner's profile, as in the
    sample (else its first callback URL, else empty)."""
    callbacks = jsonio.loads(app["callback_urls"] or "[]")
    if app["owner_username"]:
        url = f"https://x.com/{app['owner_username']}"
    else:
        url = str(callbacks[0]) if callbacks else ""
    return {"id": str(app["id"]), "name": str(app["name"]), "url": url}


async def _dm_signal(event: _Event) -> list[Outgoing]:
    """Read receipts and typing indicators, to the participant they are shown to (not the sender)."""
    user_id = int(event.row["user_id"])
    sender_id = event.id_of("sender_id")
    conversation_id = str(event.payload["dm_conversation_id"])
    if user_id == sender_id or _other_participant(conversation_id, user_id) != sender_id:
        return []
    webhooks = await event.targets(user_id, dm=True)
    if not webhooks:
        return []
    item: dict[str, Any] = {
        "created_timestamp": str(event.at),
        "sender_id": str(sender_id),
        "target": {"recipient_id": str(user_id)},
    }
    if event.kind == "dm.read":
        key = "direct_message_mark_read_events"
        item["last_read_event_id"] = str(event.payload["last_read_event_id"])
    else:
        key = "direct_message_indicate_typing_events"
    users = await event.users([sender_id, user_id])
    envelope = {
        "for_user_id": str(user_id),
        key: [item],
        "users": {str(uid): dm_user(users[uid]) for uid in (sender_id, user_id) if uid in users},
    }
    return _outgoing(user_id, webhooks, envelope)


# ---- revocations -------------------------------------------------------------------------------


async def _revoke(event: _Event) -> list[Outgoing]:
    """A user's revocation of an app: to every valid webhook of that app. The user's subscriptions to
    them were removed with the revocation, so they cannot say where it goes; no `for_user_id`."""
    user_id, app_id = event.id_of("user_id"), event.id_of("app_id")
    webhooks = [int(row["id"]) for row in await event.store.valid_webhooks_of_app(app_id)]
    if not webhooks:
        return []
    revoke = {
        "date_time": str(event.payload["date_time"]),
        "target": {"app_id": str(app_id)},
        "source": {"user_id": str(user_id)},
    }
    return _outgoing(user_id, webhooks, {"user_event": {"revoke": revoke}})


_Handler = Callable[[_Event], Awaitable[list[Outgoing]]]
_HANDLERS: dict[str, _Handler] = {
    "post.create": _post_create,
    "post.edit": _post_create,  # an edit is a new version: delivered as a new post with edit metadata
    "post.delete": _post_delete,
    "like.create": _like_create,
    **dict.fromkeys(_EDGES, _edge),
    "dm.sent": _dm_message,
    "dm.received": _dm_message,
    "dm.read": _dm_signal,
    "dm.indicate_typing": _dm_signal,
    "oauth.revoke": _revoke,
}


def _new_post_id(event: Row) -> int | None:
    """The post a create or edit event names; None for other events (and for a malformed payload,
    which its own fan-out reports as before)."""
    if event["kind"] not in _NEW_POST_KINDS:
        return None
    try:
        return int(jsonio.loads(event["payload"])["post_id"])
    except (KeyError, TypeError, ValueError):
        return None


class AccountActivity:
    """Account-activity envelopes of one server's event log."""

    def __init__(
        self, aaa: AaaStore, users: UserStore, posts: PostStore, dms: DmStore, url_seed: int = 0
    ) -> None:
        self.aaa = aaa
        self.users = users
        self.posts = posts
        self.dms = dms
        self.url_seed = url_seed  # the t.co codes of generated links, as posts' links (settings.seed)
        self._ahead: _ReadAhead | None = None

    async def prepare(self, events: Sequence[Row]) -> None:
        """Read what the batch's new posts need (the posts, whom they mention, the subscriptions of their
        authors and of the users they mention or reply to) before their events are fanned out in order;
        no events: forget it. As up to date as the reads each event would make: all come after it."""
        creates: list[Row] = []
        post_ids: list[int] = []
        for event in events:
            post_id = _new_post_id(event)
            if post_id is not None:
                creates.append(event)
                post_ids.append(post_id)
        if not creates:
            self._ahead = None
            return
        posts = {int(row["id"]): row for row in await self.posts.get_many(post_ids)}
        mentioned = await self.aaa.mentioned_user_ids_of(post_ids)
        users: list[int] = []
        for post in posts.values():
            users.append(int(post["author_id"]))
            users.extend(mention_ids(jsonio.loads(post["entities"]) if post["entities"] else None))
            if post["in_reply_to_user_id"] is not None:
                users.append(int(post["in_reply_to_user_id"]))
        for ids in mentioned.values():
            users.extend(ids)
        targets = await self.aaa.targets_of(users)
        positions = frozenset(int(event["position"]) for event in creates)
        self._ahead = _ReadAhead(positions, posts, mentioned, targets)

    async def outgoing(self, event: Row) -> list[Outgoing]:
        handler = _HANDLERS.get(str(event["kind"]))
        if handler is None:
            return []
        ahead = self._ahead
        if ahead is not None and int(event["position"]) not in ahead.positions:
            ahead = None
        return await handler(_Event(self, event, ahead))


class ServerStores(Protocol):
    """Whatever holds a server's database and its user, post and DM stores."""

    @property
    def db(self) -> Database: ...

    @property
    def users(self) -> UserStore: ...

    @property
    def posts(self) -> PostStore: ...

    @property
    def dms(self) -> DmStore: ...


async def aaa_outgoing(stores: ServerStores, event: Row, url_seed: int = 0) -> list[Outgoing]:
    """One event's account-activity deliveries, from a server's stores (the dispatcher keeps an
    `AccountActivity` instead)."""
    activity = AccountActivity(AaaStore(stores.db), stores.users, stores.posts, stores.dms, url_seed)
    return await activity.outgoing(event)
