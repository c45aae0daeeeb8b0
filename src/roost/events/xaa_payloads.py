"""Activity-events (XAA) payloads: what each event-log row becomes inside the envelope, key for key as
the platform's event-payload samples show them (docs/activity.md has one per kind).

The samples render posts and users with more fields than a default lookup, and give every integer
inside an object a string twin (`like_count` and `like_count_str`, `start` and `start_str`,
`edits_remaining` and `edits_remaining_str`); users carry `tweet_count`, never `post_count`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.fields import RenderContext
from roost.core.records import Row
from roost.domain.objects import referenced, render_post
from roost.domain.user_objects import render_user
from roost.events.aaa import ONE_TO_ONE, legacy_dm_attachment, legacy_dm_entities
from roost.storage.aaa import AaaStore
from roost.storage.dms import DmStore
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

POST_FIELDS = (
    "attachments",
    "author_id",
    "conversation_id",
    "created_at",
    "display_text_range",
    "edit_controls",
    "edit_history_tweet_ids",
    "entities",
    "in_reply_to_user_id",
    "lang",
    "note_tweet",
    "paid_partnership",
    "possibly_sensitive",
    "public_metrics",
    "referenced_tweets",
    "reply_settings",
)
USER_FIELDS = (
    "affiliation",
    "created_at",
    "description",
    "entities",
    "is_identity_verified",
    "location",
    "most_recent_tweet_id",
    "pinned_tweet_id",
    "profile_banner_url",
    "profile_image_url",
    "protected",
    "public_metrics",
    "url",
    "verified",
    "verified_type",
)
# Shown as empty strings when a user has none (the samples' users without a banner or a website).
_EMPTY_AS_STRING = ("description", "profile_banner_url", "url")
_EDGES = ("follow.follow", "follow.unfollow", "block.block", "block.unblock", "mute.mute", "mute.unmute")
_CONTEXT = RenderContext()
# Encrypted chat: the log row holds the payload (`domain/chat.py`), and these keys only route it.
CHAT_KINDS = ("chat.message", "chat.conversation_join")
CHAT_ROUTING = ("recipient_ids", "member_id")


def with_string_twins(value: Any) -> Any:
    """Every integer inside an object gets a `<name>_str` twin right after it, at any depth (lists of
    integers, such as `display_text_range`, stay as they are)."""
    if isinstance(value, list):
        return [with_string_twins(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for name, item in value.items():
        out[name] = with_string_twins(item)
        if isinstance(item, int) and not isinstance(item, bool):
            out[f"{name}_str"] = str(item)
    return out


def _user_object(row: Row) -> dict[str, Any]:
    user = render_user(row, USER_FIELDS, _CONTEXT)
    user["public_metrics"].pop("post_count", None)
    for name in _EMPTY_AS_STRING:
        user.setdefault(name, "")
    return with_string_twins(user)


def _post_object(row: Row) -> dict[str, Any]:
    return with_string_twins(render_post(row, POST_FIELDS, _CONTEXT))


class ActivityPayloads:
    """Renders the payload and `includes` of each event kind from the stored rows."""

    def __init__(self, aaa: AaaStore, users: UserStore, posts: PostStore, dms: DmStore) -> None:
        self._aaa = aaa
        self._users = users
        self._posts = posts
        self._dms = dms

    async def user(self, user_id: int) -> dict[str, Any]:
        row = await self._users.get(user_id)
        return {"id": str(user_id)} if row is None else _user_object(row)

    async def _user_list(self, ids: Iterable[int]) -> list[dict[str, Any]]:
        rows = await self._users.by_ids(list(dict.fromkeys(ids)))
        return [_user_object(rows[user_id]) for user_id in dict.fromkeys(ids) if user_id in rows]

    async def _shown_posts(self, posts: list[Row]) -> list[dict[str, Any]]:
        """Posts for `includes.tweets`: those whose author is not protected (never delivered)."""
        protected = await self._users.protected_ids()
        return [_post_object(post) for post in posts if int(post["author_id"]) not in protected]

    async def render(
        self, kind: str, payload: dict[str, Any], event: Row
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """(payload, includes) of one event; (None, None) when its objects are gone."""
        if kind == "post.create":
            return await self._post_create(int(payload["post_id"]))
        if kind == "post.delete":
            author = int(payload["author_id"])
            body = {"id": str(payload["post_id"]), "author_id": str(author)}
            # The sample's one `includes` whose users are wrapped as `{"data": User}`.
            return body, {"users": [{"data": await self.user(author)}]}
        if kind == "like.create":
            return await self._like(payload, event)
        if kind in _EDGES:
            return {
                "source": {"data": await self.user(int(payload["source_id"]))},
                "target": {"data": await self.user(int(payload["target_id"]))},
            }, None
        if kind.startswith("profile.update."):
            return {"before": _text(payload.get("before")), "after": _text(payload.get("after"))}, None
        if kind in ("spaces.start", "spaces.end"):
            return {
                "user": {"data": await self.user(int(payload["creator_id"]))},
                "broadcast_id": str(payload["space_id"]),
                "event_type": kind.replace(".", "_"),
            }, None
        if kind in ("dm.sent", "dm.received"):
            return await self._dm_message(payload, event), None
        if kind in ("dm.read", "dm.indicate_typing"):
            return await self._dm_signal(kind, payload, event), None
        if kind in CHAT_KINDS:
            return chat_payload(payload), None
        if kind == "oauth.revoke":
            return {
                "date_time": str(payload["date_time"]),
                "user_id": str(payload["user_id"]),
                "app_id": str(payload["app_id"]),
            }, None
        return None, None

    async def _post_create(self, post_id: int) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        post = await self._posts.get(post_id)
        if post is None:
            return None, None
        body = _post_object(post)
        # `includes.tweets`: the post itself (as the samples show), then the posts it refers to.
        referred = await self._posts.get_many([ref for _, ref in referenced(post)])
        tweets = [body, *await self._shown_posts(referred)]
        mentioned = await self._aaa.mentioned_user_ids(post_id)
        users = await self._user_list([int(post["author_id"]), *mentioned])
        return body, {"tweets": tweets, "users": users}

    async def _like(
        self, payload: dict[str, Any], event: Row
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        created = int(event["created_at"])
        author = int(payload["post_author_id"])
        body = {
            # A 32-hex id, stable per event so receivers can dedupe.
            "id": hashlib.md5(str(event["id"]).encode()).hexdigest(),
            "created_at": iso_ms(created),
            "timestamp_ms": str(created),
            "liked_tweet_id": str(payload["post_id"]),
            "liked_tweet_author_id": str(author),
        }
        includes: dict[str, Any] = {"users": await self._user_list([author])}
        liked = await self._posts.get(int(payload["post_id"]))
        if liked is not None:
            includes["tweets"] = [_post_object(liked)]
        return body, includes

    async def _users_map(self, ids: Iterable[int]) -> dict[str, Any]:
        """The DM payloads' `users`: `{"<id>": {"data": User}}` for each participant shown."""
        return {str(user_id): {"data": await self.user(user_id)} for user_id in dict.fromkeys(ids)}

    async def _dm_message(self, payload: dict[str, Any], event: Row) -> dict[str, Any] | None:
        row = await self._dms.event(int(payload["dm_event_id"]))
        if row is None:
            return None
        sender = int(row["sender_id"]) if row["sender_id"] is not None else int(payload["sender_id"])
        recipient = _recipient(str(row["conversation_id"]), sender, event)
        item: dict[str, Any] = {"id": str(row["id"]), "created_timestamp": str(row["created_at"])}
        if str(row["event_type"]) == "MessageCreate":
            message: dict[str, Any] = {"text": row["text"] or ""}
            message["entities"] = await legacy_dm_entities(self._users, row["entities"])
            attachment = await legacy_dm_attachment(self._users, row["attachments"])
            if attachment is not None:
                message["attachment"] = attachment
            created: dict[str, Any] = {}
            if recipient is not None:
                created["target"] = {"recipient_id": str(recipient)}
            created.update(sender_id=str(sender), message_data=message)
            item = {"type": "message_create", **item, "message_create": created}
        else:
            # Only membership changes list who joined or left (no sample: the legacy event's fields).
            item.update(
                type="participants_join" if row["event_type"] == "ParticipantsJoin" else "participants_leave",
                sender_id=str(sender),
                dm_conversation_id=row["conversation_id"],
                participant_ids=[str(p) for p in jsonio.loads(row["participant_ids"] or "[]")],
            )
        shown = [sender] if recipient is None else [sender, recipient]
        return {"direct_message_events": [item], "users": await self._users_map(shown)}

    async def _dm_signal(self, kind: str, payload: dict[str, Any], event: Row) -> dict[str, Any]:
        sender = int(payload["sender_id"])
        recipient = _recipient(str(payload["dm_conversation_id"]), sender, event)
        item: dict[str, Any] = {"created_timestamp": str(event["created_at"]), "sender_id": str(sender)}
        if recipient is not None:
            item["target"] = {"recipient_id": str(recipient)}
        key = "direct_message_indicate_typing_events"
        if kind == "dm.read":
            key = "direct_message_mark_read_events"
            item["last_read_event_id"] = str(payload.get("last_read_event_id", ""))
        shown = [sender] if recipient is None else [sender, recipient]
        return {key: [item], "users": await self._users_map(shown)}


def chat_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """A chat event's payload: the log row's, without the routing keys (the samples' keys, in order)."""
    return {name: value for name, value in payload.items() if name not in CHAT_ROUTING}


def _text(value: Any) -> str:
    """A profile value as the document types it (rows logged before values were strings)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "blue" if value else "none"
    if isinstance(value, dict):
        return str(value.get("description") or "")
    return str(value)


def _recipient(conversation_id: str, sender: int, event: Row) -> int | None:
    """The other participant of a one-to-one conversation. In a group (the legacy DM objects know only
    one-to-one ones) the receiving participant of a received event; none for a sent one, whose
    `target` is then left out."""
    pair = ONE_TO_ONE.match(conversation_id)
    if pair is not None:
        first, second = int(pair.group(1)), int(pair.group(2))
        return second if sender == first else first
    return None if event["user_id"] is None or int(event["user_id"]) == sender else int(event["user_id"])
