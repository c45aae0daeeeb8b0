"""Activity-events (XAA) fan-out: event-log rows → activity envelopes, for the subscriptions' webhooks
(`ActivityEvents.outgoing`, called by the dispatcher) and for `/2/activity/stream` connections
(`events/selectors.ActivitySelector`).

Every log kind of `events/outgoing.py` maps to the event types it can satisfy and the users (with the
event's direction relative to each) a subscription filter must name; one indexed query per such user
finds the subscriptions. The envelope is the same for webhooks and streams:
`{"data":{"event_uuid","filter","event_type","tag"?,"payload","includes"?}}`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from roost.core import jsonio
from roost.core.fields import RenderContext
from roost.core.records import Row
from roost.domain.activity import render_filter
from roost.domain.community_objects import render_news
from roost.domain.news import story_text, story_view
from roost.events.outgoing import Outgoing
from roost.events.xaa_broadcasts import Route, broadcast_payload, broadcast_routes
from roost.events.xaa_payloads import ActivityPayloads
from roost.search.matcher import contains_seq
from roost.search.view import query_tokens, tokenize
from roost.storage.aaa import AaaStore
from roost.storage.activity import ActivityStore
from roost.storage.dms import DmStore
from roost.storage.news import NewsStore
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

# The news.new payload (the activity documentation's list).
NEWS_PAYLOAD_FIELDS = (
    "id",
    "name",
    "category",
    "hook",
    "summary",
    "disclaimer",
    "updated_at",
    "contexts",
    "cluster_posts_results",
)
# Log kinds whose event type has a second accepted name (the seed's names vs the spec's `*_badge`).
PROFILE_ALIASES = {
    "profile.update.verified": "profile.update.verified_badge",
    "profile.update.affiliate": "profile.update.affiliate_badge",
}
_FOLLOW_LIKE = ("follow.follow", "follow.unfollow")
_ACTOR_ONLY = ("block.block", "block.unblock", "mute.mute", "mute.unmute")
# What a user does: for a protected user, only for apps that may see the user (checked at fan-out,
# so a follower who unfollows, or a subscription from before, learns nothing new).
_PRIVATE_ACTIVITY = ("like.create", "follow.follow", "follow.unfollow")
_CONTEXT = RenderContext()


def _id(value: Any) -> int:
    return int(value)


def routes(kind: str, payload: dict[str, Any], event_user_id: int | None) -> list[Route]:
    """Where an event-log row can go: pure, so the mapping is unit-tested without a database."""
    if kind in ("post.create", "post.delete"):
        return [((kind,), _id(payload["author_id"]), None)]
    if kind == "like.create":
        liker, author = _id(payload["user_id"]), _id(payload["post_author_id"])
        out: list[Route] = [((kind,), liker, "outbound")]
        if author != liker:
            out.append(((kind,), author, "inbound"))
        return out
    if kind in _FOLLOW_LIKE:
        source, target = _id(payload["source_id"]), _id(payload["target_id"])
        return [((kind,), source, "outbound"), ((kind,), target, "inbound")]
    if kind in _ACTOR_ONLY:
        return [((kind,), _id(payload["source_id"]), None)]
    if kind.startswith("profile.update."):
        alias = PROFILE_ALIASES.get(kind)
        return [((kind, alias) if alias else (kind,), _id(payload["user_id"]), None)]
    if kind in ("spaces.start", "spaces.end"):
        return [((kind,), _id(payload["creator_id"]), None)]
    if kind.startswith("broadcast."):
        return broadcast_routes(kind, payload)
    if kind == "chat.message":
        sender = _id(payload["sender_id"])
        recipients = [((("chat.received",), _id(r), "inbound")) for r in payload["recipient_ids"]]
        return [(("chat.sent",), sender, "outbound"), *recipients]
    if kind == "chat.conversation_join":
        # Joined by someone else (a member does not add themselves): inbound for the member.
        return [((kind,), _id(payload["member_id"]), "inbound")]
    if event_user_id is None:
        return []
    if kind == "dm.sent":
        return [((kind,), event_user_id, "outbound")]
    if kind == "dm.received":
        return [((kind,), event_user_id, "inbound")]
    if kind in ("dm.read", "dm.indicate_typing"):
        sender = _id(payload["sender_id"])
        return [((kind,), event_user_id, "outbound" if sender == event_user_id else "inbound")]
    return []


def accepts(subscription: Row, direction: str | None) -> bool:
    wanted = subscription["filter_direction"]
    return wanted is None or wanted == direction


def text_of(payload: dict[str, Any]) -> str | None:
    """The text of an activity payload a keyword filter reads: a post's text, a DM's message text."""
    text = payload.get("text")
    if isinstance(text, str):
        return text
    for item in payload.get("direct_message_events") or ():
        message = (item.get("message_create") or {}).get("message_data") or {}
        if isinstance(message.get("text"), str):
            return str(message["text"])
    return None


def keyword_matches(keyword: str, text: str | None) -> bool:
    """The filtered stream's keyword rule: case-insensitive whole tokens, several tokens in a row."""
    return text is not None and contains_seq(tokenize(text), query_tokens(keyword, False))


def envelope(
    subscription: Row, event: Row, payload: dict[str, Any], includes: dict[str, Any] | None
) -> bytes:
    data: dict[str, Any] = {
        "event_uuid": str(event["id"]),
        "filter": render_filter(subscription),
        "event_type": subscription["event_type"],
    }
    if subscription["tag"] is not None:
        data["tag"] = subscription["tag"]
    data["payload"] = payload
    if includes:
        data["includes"] = includes
    return jsonio.dumps({"data": data})


def _deliverable(sub: Row) -> bool:
    return (
        sub["webhook_id"] is not None
        and bool(sub["webhook_valid"])
        and sub["webhook_app_id"] == sub["app_id"]
    )


@dataclass(slots=True)
class _PostReadAhead:
    """What the new posts of one dispatcher batch are matched with, read for all of them at once
    (`ActivityEvents.prepare`): two queries per batch instead of one per post and one per user."""

    positions: frozenset[int]  # the batch's post.create events: no other event reads from here
    mentioned: dict[int, list[int]]  # post id -> whom it mentions; every new post has an entry
    subscriptions: dict[tuple[str, int], list[Row]]  # (event type, filtered user) -> by id

    def matching(self, event_types: Sequence[str], user_id: int) -> list[Row]:
        """As `ActivityStore.matching` (event types are always among `POST_EVENT_TYPES` here)."""
        if len(event_types) == 1:
            return self.subscriptions.get((event_types[0], user_id), [])
        rows = [row for t in event_types for row in self.subscriptions.get((t, user_id), ())]
        return sorted(rows, key=lambda row: int(row["id"]))


class ActivityEvents:
    """Activity envelopes of one server's event log."""

    def __init__(
        self,
        subscriptions: ActivityStore,
        aaa: AaaStore,
        users: UserStore,
        posts: PostStore,
        dms: DmStore,
        news: NewsStore,
    ) -> None:
        self._news = news
        self._subscriptions = subscriptions
        self._aaa = aaa
        self._users = users
        self.payloads = ActivityPayloads(aaa, users, posts, dms)
        self._ahead: _PostReadAhead | None = None

    async def matches(self, event: Row, keep: Callable[[Row], bool] | None = None) -> list[tuple[Row, bytes]]:
        """The subscriptions an event satisfies (those `keep` accepts), each with its envelope."""
        kind = str(event["kind"])
        payload = jsonio.loads(event["payload"])
        if kind == "news.new":
            return await self._news_matches(event, payload, keep)
        if kind == "oauth.revoke":
            return await self._revoke_matches(event, payload, keep)
        user_id = None if event["user_id"] is None else int(event["user_id"])
        try:
            targets = routes(kind, payload, user_id)
        except (KeyError, TypeError, ValueError):
            return []  # a row not following the conventions is skipped, never fatal to the dispatcher
        ahead = self._ahead
        if ahead is not None and int(event["position"]) not in ahead.positions:
            ahead = None
        if kind == "post.create":
            # post.mention.create: the same post, for subscriptions on each user it mentions.
            post_id = int(payload["post_id"])
            mentions = ahead.mentioned[post_id] if ahead else await self._aaa.mentioned_user_ids(post_id)
            for mentioned in mentions:
                targets.append((("post.mention.create",), mentioned, None))
            if "reposted_post_id" in payload:
                # post.repost.create: the repost, for subscriptions on the user who reposted.
                targets.append((("post.repost.create",), int(payload["author_id"]), None))
        if not targets:
            return []
        if kind.startswith("post.") and int(payload["author_id"]) in await self._users.protected_ids():
            return []  # posts from protected accounts are never delivered
        chosen: dict[int, tuple[Row, int]] = {}
        for event_types, target_user, direction in targets:
            if ahead is not None:
                subscriptions = ahead.matching(event_types, target_user)
            else:
                subscriptions = await self._subscriptions.matching(event_types, target_user)
            for sub in subscriptions:
                if accepts(sub, direction) and (keep is None or keep(sub)):
                    chosen.setdefault(int(sub["id"]), (sub, target_user))
        if kind in _PRIVATE_ACTIVITY and chosen:
            chosen = await self._seen_by_apps(kind, payload, chosen)
        if not chosen:
            return []
        if kind.startswith("broadcast."):
            body, includes = await broadcast_payload(kind, payload, event, self.payloads)
        else:
            body, includes = await self.payloads.render(kind, payload, event)
        if body is None:
            return []
        text = text_of(body)
        return [
            (sub, envelope(sub, event, body, includes))
            for sub, _ in chosen.values()
            if sub["filter_keyword"] is None or keyword_matches(sub["filter_keyword"], text)
        ]

    async def _news_matches(
        self, event: Row, payload: dict[str, Any], keep: Callable[[Row], bool] | None
    ) -> list[tuple[Row, bytes]]:
        """A published story, for the news.new subscriptions whose keyword its text holds."""
        subscriptions = [
            sub for sub in await self._subscriptions.matching_no_user("news.new") if keep is None or keep(sub)
        ]
        if not subscriptions:
            return []
        row = await self._news.get(int(payload["news_id"]))
        if row is None:
            return []
        story = story_view(row)
        body = render_news(story, NEWS_PAYLOAD_FIELDS, _CONTEXT)
        text = story_text(story)
        return [
            (sub, envelope(sub, event, body, None))
            for sub in subscriptions
            if sub["filter_keyword"] is None or keyword_matches(sub["filter_keyword"], text)
        ]

    async def _revoke_matches(
        self, event: Row, payload: dict[str, Any], keep: Callable[[Row], bool] | None
    ) -> list[tuple[Row, bytes]]:
        """A user's revocation of an app, for that app's `oauth.revoke` subscriptions (no filter)."""
        app_id = int(payload["app_id"])
        subscriptions = [
            sub
            for sub in await self._subscriptions.matching_no_user("oauth.revoke")
            if int(sub["app_id"]) == app_id and (keep is None or keep(sub))
        ]
        if not subscriptions:
            return []
        body, _ = await self.payloads.render("oauth.revoke", payload, event)
        return [(sub, envelope(sub, event, body or {}, None)) for sub in subscriptions]

    async def _seen_by_apps(
        self, kind: str, payload: dict[str, Any], chosen: dict[int, tuple[Row, int]]
    ) -> dict[int, tuple[Row, int]]:
        """The subscriptions whose app may see every protected user the event shows: the filtered
        user, and for a like the liked post's author (a protected post is not shown either)."""
        protected = await self._users.protected_ids()
        if not protected:
            return chosen
        seen: dict[tuple[int, int], bool] = {}
        kept: dict[int, tuple[Row, int]] = {}
        for sub_id, (sub, target_user) in chosen.items():
            app_id = int(sub["app_id"])
            shown = [target_user]
            if kind == "like.create":
                shown.append(_id(payload["post_author_id"]))
            visible = True
            for user_id in shown:
                if user_id not in protected:
                    continue
                key = (app_id, user_id)
                if key not in seen:
                    seen[key] = await self._subscriptions.app_may_see(app_id, user_id)
                visible = visible and seen[key]
            if visible:
                kept[sub_id] = (sub, target_user)
        return kept

    async def prepare(self, events: Sequence[Row]) -> None:
        """Read what the batch's new posts are matched with (whom they mention, the post subscriptions
        of their authors and of the users they mention) before their events are matched in order; no
        events: forget it. As up to date as the reads each event would make: all come after it."""
        creates: dict[int, tuple[int, int]] = {}  # position -> (post id, author) of each post.create
        for event in events:
            if event["kind"] != "post.create":
                continue
            try:
                payload = jsonio.loads(event["payload"])
                creates[int(event["position"])] = (int(payload["post_id"]), int(payload["author_id"]))
            except (KeyError, TypeError, ValueError):
                continue  # left to the event's own matching, which skips it as before
        if not creates:
            self._ahead = None
            return
        mentioned = await self._aaa.mentioned_user_ids_of([post_id for post_id, _ in creates.values()])
        users = [author for _, author in creates.values()]
        for ids in mentioned.values():
            users.extend(ids)
        subscriptions: dict[tuple[str, int], list[Row]] = {}
        for row in await self._subscriptions.matching_posts_of(users):
            subscriptions.setdefault((str(row["event_type"]), int(row["filter_user_id"])), []).append(row)
        self._ahead = _PostReadAhead(frozenset(creates), mentioned, subscriptions)

    async def outgoing(self, event: Row) -> list[Outgoing]:
        """The deliveries to the subscriptions' (valid, same-app) webhooks."""
        return [
            Outgoing(int(sub["webhook_id"]), f"xaa:{sub['id']}", body)
            for sub, body in await self.matches(event, _deliverable)
        ]
