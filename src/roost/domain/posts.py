"""Posts: creation (replies, quotes, media, polls, communities, edits), deletion, counters, events."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.ids import MAX_SNOWFLAKE, SnowflakeGenerator, snowflake_ms
from roost.domain.communities import check_member
from roost.domain.media_uploads import MediaUploads
from roost.domain.packages import DEFAULT_PACKAGE, PACKAGES
from roost.domain.post_body import check_body, field_error, is_id, pattern_error
from roost.domain.text import extract_entities, shorten_urls, truncate_for_display, weighted_length
from roost.storage import ads_creatives as card_rows
from roost.storage import posts as post_rows
from roost.storage import reposts as repost_rows
from roost.storage import users as user_rows
from roost.storage.db import Database, Executor, Row
from roost.storage.events import append_event

STANDARD_LIMIT = 280
LONG_FORM_LIMIT = 25_000
EDIT_WINDOW_MS = 3_600_000
# The ads cards a post may carry (`card_uri`), as the ads rule layer stores them (issue 23).
CARD_KINDS = ("card", "poll_card", "image_conversation_card", "video_conversation_card")
# The platform's 403 for a reply whose target is gone or hidden (v1.1 code 385, the same text in v2).
REPLY_HIDDEN = "You attempted to reply to a Tweet that is deleted or not visible to you."
# No recorded body for quoting a hidden post: the platform's text for a post hidden from the caller
# (v1.1 code 179, "Corresponds with HTTP 403", usually the author's protected posts).
QUOTE_HIDDEN = "Sorry, you are not authorized to see this status."
TOO_LONG = (
    "Your Tweet text is too long. For more information on how X determines text length see "
    "https://github.com/twitter/twitter-text."
)


def _id_string(name: str, value: Any) -> int:
    if not is_id(value):
        raise pattern_error(name, value)
    number = int(value)
    if number > MAX_SNOWFLAKE:  # matches the pattern, but no 64-bit id is that large
        raise field_error(name, value, f"The `{name}` field value [{value}] is not valid")
    return number


@dataclass(slots=True)
class Draft:
    """A create body whose shape has been checked: what the post asks for, before any rule that
    needs storage."""

    body: dict[str, Any]
    text: str
    media_ids: list[Any]
    poll: dict[str, Any] | None
    reply: dict[str, Any] | None
    edit: dict[str, Any] | None
    community_id: int | None

    @classmethod
    def of(cls, body: Any) -> Draft:
        check_body(body)  # shape first: below, every member has its schema type
        media = body.get("media") or {}
        media_ids = media.get("media_ids") or []
        if len(media_ids) > 4:
            raise field_error("media.media_ids", media_ids, "Your media IDs are invalid.")
        text = body.get("text")
        if not text and not media_ids:
            raise errors.invalid_body("$.text: text or media is required")
        community_id = (
            None if body.get("community_id") is None else _id_string("community_id", body["community_id"])
        )
        if body.get("share_with_followers") and community_id is None:
            raise errors.invalid_body("share_with_followers requires community_id.")
        # NUL never reaches storage (PostgreSQL text cannot hold it); the platform drops it too.
        text = (text or "").replace("\x00", "")
        return cls(
            body, text, media_ids, body.get("poll"), body.get("reply"), body.get("edit_options"), community_id
        )


METRICS = ("retweet_count", "reply_count", "like_count", "quote_count", "bookmark_count", "impression_count")
# The post a post points at, and the counter of that post it moves.
_TARGET_COUNTERS = (
    ("in_reply_to_post_id", "reply_count"),
    ("quoted_post_id", "quote_count"),
    ("reposted_post_id", "retweet_count"),
)


async def _card_uri(tx: Executor, value: Any) -> str | None:
    """A post's `card_uri`: `card://<id>` of a card that exists and is not deleted."""
    if value is None:
        return None
    number = value[len("card://") :] if value.startswith("card://") else ""
    card = await card_rows.card_by_number(tx, number, CARD_KINDS) if number.isdigit() else None
    if card is None or card["deleted"]:
        raise field_error("card_uri", value, f"Could not find card with card_uri: [{value}].")
    return str(value)


async def count_new(tx: Executor, row: dict[str, Any]) -> None:
    """The counters a new post moves: its author's post count and the counter of what it replies
    to, quotes or reposts."""
    await post_rows.bump_user(tx, row["author_id"], "tweet_count", 1)
    for column, counter in _TARGET_COUNTERS:
        if row[column] is not None:
            await post_rows.bump_post(tx, row[column], counter, 1)


class PostService:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        url_seed: int,
        *,
        check_visibility: bool = True,
        media: MediaUploads | None = None,
    ) -> None:
        self._media = media  # uploaded media: ownership, expiry, processing state
        self._db = db
        self._clock = clock
        self._ids = ids
        self._url_seed = url_seed
        # Off only for the demo seed, whose replies and quotes were drawn before the rule existed.
        self._check_visibility = check_visibility

    async def create(self, author_id: int, body: Any, package: str = DEFAULT_PACKAGE) -> Row:
        """A new post, or a new version of one (`edit_options`): checked, stored with its counters
        and mentions, and announced on the event log, in one transaction. `package`: the calling
        app's (self-serve apps reply and quote only where summoned)."""
        draft = Draft.of(body)
        async with self._db.transaction() as tx:
            author = await user_rows.get_poster_tx(tx, author_id)
            if author is None:
                raise errors.unauthorized()
            if draft.community_id is not None:
                await check_member(tx, author_id, draft.community_id)
            previous = await self._edit_target(tx, author, draft.edit) if draft.edit is not None else None
            await self._check_text(tx, author, draft.text, previous)
            now = self._clock.now_ms()
            post_id = self._ids.next_id()
            parent = await self._reply_target(tx, author_id, draft.reply) if draft.reply is not None else None
            quoted_id = await self._quoted(tx, author_id, draft, previous)
            if previous is None and PACKAGES[package].replies_need_summons:
                await _check_summoned(tx, author_id, parent, quoted_id)
            media_keys = await self._media_keys(tx, author_id, draft.media_ids)
            poll_id = await self._create_poll(tx, draft.poll, now) if draft.poll else None
            card_uri = await _card_uri(tx, draft.body.get("card_uri"))
            stored_text, entities = self._entities(draft.text)
            mentioned = await self.resolve_mentions(tx, entities)
            row = _post_row(
                post_id,
                author_id,
                now,
                draft,
                stored_text,
                entities,
                parent,
                previous,
                quoted_id,
                media_keys,
                poll_id,
            )
            # Promoted-only (nullcast) posts are stored, counted and readable by id, but never become
            # the author's latest nor reach the event log, so no stream or webhook sees them.
            row["nullcast"] = int(bool(draft.body.get("nullcast")))
            row["card_uri"] = card_uri
            await post_rows.insert_post(tx, row, mentioned)
            await self._count(tx, row, previous, media_keys)
            if not row["nullcast"]:
                await self.announce(tx, row, "post.edit" if previous else "post.create")
        return row

    async def announce(self, tx: Executor, row: dict[str, Any], kind: str) -> None:
        """A stored post becomes its author's latest and goes on the event log (every post-shaped
        write ends here: new posts, edits, reposts)."""
        author_id = row["author_id"]
        await post_rows.set_most_recent(tx, author_id, row["id"])
        payload = {"post_id": str(row["id"]), "author_id": str(author_id)}
        if row["reposted_post_id"] is not None:
            payload["reposted_post_id"] = str(row["reposted_post_id"])
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind=kind,
            created_at=row["created_at"],
            user_id=author_id,
            object_id=row["id"],
            payload=payload,
        )

    async def delete(self, user_id: int, post_id: int) -> bool:
        async with self._db.transaction() as tx:
            row = await post_rows.get_for_update(tx, post_id)
            if row is None or row["deleted_at"] is not None:
                raise errors.not_found_problem(f"Could not find tweet with id: [{post_id}].")
            if row["author_id"] != user_id:
                raise errors.forbidden("You are not allowed to delete a Tweet that is not yours.")
            await self.retract(tx, row)
            # A deleted post takes its reposts with it, each deleted (and announced) as a post.
            for version in _edit_history(row):
                for repost in await repost_rows.live_reposts_of(tx, version):
                    await self.retract(tx, repost)
        return True

    async def retract(self, tx: Executor, row: Row) -> None:
        """Delete a stored post (every version), undo its counters and announce the delete (the
        `post.delete` event that account activity, activity events and the compliance stream read)."""
        post_id, user_id = row["id"], row["author_id"]
        now = self._clock.now_ms()
        versions = jsonio.loads(row["edit_history"]) if row["edit_history"] else [post_id]
        for version in versions:
            await post_rows.mark_deleted(tx, version, now)
        await post_rows.bump_user(tx, user_id, "tweet_count", -1)
        for column, counter in _TARGET_COUNTERS:
            if row[column] is not None:
                await post_rows.bump_post(tx, row[column], counter, -1)
        await post_rows.set_most_recent(tx, user_id, await post_rows.latest_post_of(tx, user_id))
        payload = {"post_id": str(post_id), "author_id": str(user_id)}
        if row["reposted_post_id"] is not None:
            payload["reposted_post_id"] = str(row["reposted_post_id"])
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind="post.delete",
            created_at=now,
            user_id=user_id,
            object_id=post_id,
            payload=payload,
        )

    # ---- rules -----------------------------------------------------------------------------------

    async def _check_text(self, tx: Executor, author: Row, text: str, previous: Row | None) -> None:
        limit = LONG_FORM_LIMIT if author["subscription_type"] != "None" else STANDARD_LIMIT
        if weighted_length(text) > limit:
            raise errors.forbidden(TOO_LONG)
        if previous is None and text and await self._is_duplicate(tx, author, text):
            raise errors.forbidden("You are not allowed to create a Tweet with duplicate content.")

    async def _quoted(self, tx: Executor, author_id: int, draft: Draft, previous: Row | None) -> int | None:
        quote = draft.body.get("quote_tweet_id")
        if quote is None:
            # An edit keeps what it quotes, as it keeps its parent.
            return previous["quoted_post_id"] if previous is not None else None
        quoted_id = _id_string("quote_tweet_id", quote)
        quoted = await post_rows.get_for_update(tx, quoted_id)
        if quoted is None or quoted["deleted_at"] is not None:
            raise field_error(
                "quote_tweet_id", quote, f"Could not find tweet with quote_tweet_id: [{quoted_id}]."
            )
        if self._check_visibility and not await _may_see(tx, author_id, quoted["author_id"]):
            raise errors.forbidden(QUOTE_HIDDEN)
        return quoted_id

    def _entities(self, text: str) -> tuple[str, dict[str, Any]]:
        """The text as stored (links shortened) and its entities."""
        stored_text, url_entities = shorten_urls(text, self._short_code)
        entities = extract_entities(stored_text)
        if url_entities:
            entities["urls"] = url_entities
        return stored_text, entities

    async def _count(
        self,
        tx: Executor,
        row: dict[str, Any],
        previous: Row | None,
        media_keys: list[str],
    ) -> None:
        """Counters: a new version moves its reply and quote counts; a new post counts everywhere."""
        if previous is not None:
            history = jsonio.loads(row["edit_history"])
            await self._record_edit(tx, previous, row["id"], history)
            await self._retarget(tx, previous, row)
            return
        author_id = row["author_id"]
        await count_new(tx, row)
        if media_keys:
            await post_rows.bump_user(tx, author_id, "media_count", len(media_keys))

    async def _edit_target(self, tx: Executor, author: Row, edit: dict[str, Any]) -> Row:
        previous_id = _id_string("edit_options.previous_post_id", edit.get("previous_post_id"))
        previous = await post_rows.get_for_update(tx, previous_id)
        if previous is None or previous["deleted_at"] is not None:
            raise field_error(
                "edit_options.previous_post_id",
                str(previous_id),
                f"Could not find tweet with edit_options.previous_post_id: [{previous_id}].",
            )
        if previous["author_id"] != author["id"]:
            raise errors.forbidden("You are not allowed to edit a Tweet that is not yours.")
        if author["subscription_type"] == "None":
            raise errors.forbidden("Editing a Tweet requires a premium subscription.")
        history = jsonio.loads(previous["edit_history"]) if previous["edit_history"] else [previous["id"]]
        original_ms = snowflake_ms(history[0])
        if (
            previous["superseded_by"] is not None
            or not previous["is_edit_eligible"]
            or previous["edits_remaining"] <= 0
            or self._clock.now_ms() > original_ms + EDIT_WINDOW_MS
        ):
            raise errors.forbidden("This Tweet is not eligible for editing.")
        return previous

    async def _retarget(self, tx: Executor, previous: Row, row: dict[str, Any]) -> None:
        """Reply and quote counters follow the newest version's targets (deleting it undoes them)."""
        for counter, column in (("reply_count", "in_reply_to_post_id"), ("quote_count", "quoted_post_id")):
            if previous[column] != row[column]:
                if previous[column] is not None:
                    await post_rows.bump_post(tx, previous[column], counter, -1)
                if row[column] is not None:
                    await post_rows.bump_post(tx, row[column], counter, 1)

    async def _record_edit(self, tx: Executor, previous: Row, new_id: int, history: list[int]) -> None:
        encoded = jsonio.dumps(history).decode()
        for version in history[:-1]:
            await post_rows.set_edit_history(tx, version, encoded)
        await post_rows.supersede(tx, previous["id"], new_id)

    async def _reply_target(self, tx: Executor, author_id: int, reply: dict[str, Any]) -> Row:
        target_id = _id_string("reply.in_reply_to_tweet_id", reply.get("in_reply_to_tweet_id"))
        parent = await post_rows.get_for_update(tx, target_id)
        if (
            parent is None
            or parent["deleted_at"] is not None
            or (self._check_visibility and not await _may_see(tx, author_id, parent["author_id"]))
        ):
            raise errors.forbidden(REPLY_HIDDEN)
        return parent

    async def _is_duplicate(self, tx: Executor, author: Row, text: str) -> bool:
        # The author's row names their latest post: a primary-key read, whatever the database's
        # statistics say (a search of the author's posts by its index went to a scan and sort of all
        # of them on PostgreSQL when statistics lagged the table's growth).
        latest_id = author["most_recent_post_id"]
        latest = None if latest_id is None else await post_rows.text_of(tx, latest_id)
        if latest is None or latest["deleted_at"] is not None:
            return False
        stored, _ = shorten_urls(text, self._short_code)
        return latest["text"] == stored and self._clock.now_ms() - latest["created_at"] < 86_400_000

    async def _media_keys(self, tx: Executor, author_id: int, media_ids: list[Any]) -> list[str]:
        if not media_ids:
            return []
        ids = [_id_string("media.media_ids", value) for value in media_ids]
        found = []
        types = []
        any_uploaded = False
        for media_id in ids:
            row = await user_rows.get_media_by_id_tx(tx, media_id)
            uploaded = None if self._media is None else await self._media.attachable(tx, media_id, author_id)
            if (
                row is None
                or uploaded is False
                or (uploaded is None and row["owner_id"] is not None and row["owner_id"] != author_id)
            ):
                raise field_error("media.media_ids", [str(i) for i in ids], "Your media IDs are invalid.")
            found.append(row["media_key"])
            types.append(row["type"])
            any_uploaded = any_uploaded or uploaded is not None
        if any_uploaded and len(types) > 1 and any(kind != "photo" for kind in types):
            # Up to 4 photos, or 1 animated GIF, or 1 video (imported media are taken as they come).
            raise field_error("media.media_ids", [str(i) for i in ids], "Your media IDs are invalid.")
        return found

    async def _create_poll(self, tx: Executor, poll: dict[str, Any], now: int) -> int:
        # check_body has made options an array of strings and duration_minutes an integer.
        options: list[str] = poll["options"]
        duration: int = poll["duration_minutes"]
        if not 2 <= len(options) <= 4 or not all(1 <= len(o) <= 25 for o in options):
            raise field_error(
                "poll.options", options, "Poll options must be 2 to 4 strings of 1 to 25 characters."
            )
        if not 5 <= duration <= 10080:
            raise field_error(
                "poll.duration_minutes",
                duration,
                f"The `poll.duration_minutes` field value [{duration}] is not between 5 and 10080",
            )
        poll_id = self._ids.next_id()
        await user_rows.insert_poll(
            tx,
            {
                "id": poll_id,
                "options": jsonio.dumps(
                    [{"position": i + 1, "label": o, "votes": 0} for i, o in enumerate(options)]
                ).decode(),
                "duration_minutes": duration,
                "end_datetime": now + duration * 60_000,
                "voting_status": "open",
            },
        )
        return poll_id

    async def resolve_mentions(self, tx: Executor, entities: dict[str, Any]) -> list[int]:
        mentions = entities.get("mentions") or []
        if not mentions:
            return []
        rows = await user_rows.get_users_by_names_tx(tx, [m["username"] for m in mentions])
        by_name = {row["username_lower"]: row["id"] for row in rows}
        for mention in mentions:
            user_id = by_name.get(mention["username"].lower())
            if user_id is not None:
                mention["id"] = str(user_id)
        return list(dict.fromkeys(by_name.values()))

    def _short_code(self, url: str) -> str:
        return short_code(self._url_seed, url)


async def _check_summoned(tx: Executor, caller_id: int, parent: Row | None, quoted_id: int | None) -> None:
    """Self-serve packages, since 2026-02-23: a reply or a quote only of a post that the caller wrote
    or was summoned to, i.e. that mentions the caller or quotes one of the caller's posts."""
    quoted = await post_rows.get_for_update(tx, quoted_id) if quoted_id is not None else None
    for post in (parent, quoted):
        if post is not None and not await _summons(tx, caller_id, post):
            raise errors.reply_or_quote_not_summoned()


async def _summons(tx: Executor, caller_id: int, post: Row) -> bool:
    if post["author_id"] == caller_id or caller_id in await post_rows.mentioned_user_ids(tx, post["id"]):
        return True
    if post["quoted_post_id"] is None:
        return False
    quoted = await post_rows.get_for_update(tx, post["quoted_post_id"])
    return quoted is not None and quoted["author_id"] == caller_id


async def _may_see(tx: Executor, viewer_id: int, author_id: int) -> bool:
    """The visibility rule of reads (`Lookup.hidden_authors`), inside the write's transaction: a
    protected account's posts are for itself and its followers."""
    if viewer_id == author_id:
        return True
    author = await user_rows.get_user_tx(tx, author_id)
    if author is None or not author["protected"]:
        return True
    return await user_rows.follow_exists(tx, viewer_id, author_id)


def short_code(seed: int, url: str) -> str:
    """The t.co code of a link: the same for the same link under the same seed (bulk data agrees)."""
    digest = hashlib.sha256(f"{seed}:{url}".encode()).digest()
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(alphabet[b % len(alphabet)] for b in digest[:10])


def _post_row(
    post_id: int,
    author_id: int,
    now: int,
    draft: Draft,
    stored_text: str,
    entities: dict[str, Any],
    parent: Row | None,
    previous: Row | None,
    quoted_id: int | None,
    media_keys: list[str],
    poll_id: int | None,
) -> dict[str, Any]:
    """The stored row of a new post. A new version continues its predecessor: the same conversation
    and reply target, its edit history plus itself, its metrics, one edit fewer left."""
    body = draft.body
    history = [*_edit_history(previous), post_id] if previous is not None else [post_id]
    display = truncate_for_display(stored_text) if weighted_length(stored_text) > STANDARD_LIMIT else None
    row = {
        "id": post_id,
        "author_id": author_id,
        "text": stored_text,
        "display_text": display,
        "created_at": now,
        "conversation_id": parent["conversation_id"]
        if parent
        else (previous or {}).get("conversation_id", post_id),
        "in_reply_to_post_id": parent["id"] if parent else (previous or {}).get("in_reply_to_post_id"),
        "in_reply_to_user_id": parent["author_id"] if parent else (previous or {}).get("in_reply_to_user_id"),
        "quoted_post_id": quoted_id,
        "reposted_post_id": None,
        "lang": _guess_lang(stored_text),
        "possibly_sensitive": 0,
        "reply_settings": body.get("reply_settings") or "everyone",
        "source": None,
        "community_id": draft.community_id,
        "share_with_followers": int(bool(body.get("share_with_followers"))),
        "paid_partnership": int(bool(body.get("paid_partnership"))),
        "place_id": (body.get("geo") or {}).get("place_id"),
        "media_keys": jsonio.dumps(media_keys).decode() if media_keys else None,
        "poll_id": poll_id,
        "entities": jsonio.dumps(entities).decode() if entities else None,
        "context_annotations": None,
        "withheld": None,
        "edit_history": jsonio.dumps(history).decode() if len(history) > 1 else None,
        "edits_remaining": (previous["edits_remaining"] - 1) if previous else 5,
        "is_edit_eligible": 0 if poll_id is not None else 1,
        "superseded_by": None,
        "deleted_at": None,
        "reply_hidden": previous["reply_hidden"] if previous is not None else 0,
    }
    for metric in METRICS:
        row[metric] = previous[metric] if previous is not None else 0
    return row


def _edit_history(post: Row) -> list[int]:
    return [*jsonio.loads(post["edit_history"])] if post["edit_history"] else [post["id"]]


_ASCII_LETTER = re.compile("[A-Za-z]")


def _guess_lang(text: str) -> str:
    """A small script-based guess; the platform's classifier is not available offline."""
    if text.isascii():  # the common case, decided without looking at each character
        return "en" if _ASCII_LETTER.search(text) else "zxx"
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return "zxx"
    sample = letters[:64]
    if any("\u3040" <= ch <= "\u30ff" for ch in sample):
        return "ja"
    if any("\u4e00" <= ch <= "\u9fff" for ch in sample):
        return "zh"
    if any("\uac00" <= ch <= "\ud7af" for ch in sample):
        return "ko"
    if any("\u0400" <= ch <= "\u04ff" for ch in sample):
        return "ru"
    if any("\u0600" <= ch <= "\u06ff" for ch in sample):
        return "ar"
    return "en"
