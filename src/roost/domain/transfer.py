"""Import and export of v2-format JSON (users, posts, media), keeping the original ids.

Import accepts objects as the platform returns them (any field set), either as
`{"users": [...], "tweets": [...], "media": [...]}` (`posts` also accepted) or as a v2 response
body `{"data": ..., "includes": {...}}`. Objects whose id already exists are skipped, and so is a post
whose author already has a live post with the same text (the same post stored under another id: the
demo data re-seeded by a reset has new ids), so importing the same objects again adds nothing.

A post without entities gets those of its text, as a post created here does (`#tag` searches find
it). Ids whose time part is past the server clock are refused: the id generator would have to make
ids from the future after them. Likes and follows: `transfer_edges.py`.
"""

from __future__ import annotations

from typing import Any

from roost.core import errors, jsonio
from roost.core.clock import Clock, iso_ms, parse_rfc3339
from roost.core.fields import RenderContext
from roost.core.ids import snowflake_floor, snowflake_ms
from roost.core.params import USERNAME_PATTERN
from roost.domain import list_transfer, objects, user_objects
from roost.domain.accounts import valid_username
from roost.domain.maintenance import Maintenance
from roost.domain.text import extract_entities, user_entities
from roost.domain.transfer_bookmarks import export_bookmarks, import_bookmarks
from roost.domain.transfer_community import export_community, import_community
from roost.domain.transfer_edges import StatedCounts, export_edges, import_edges
from roost.domain.transfer_media import export_media_uploads, import_media_uploads
from roost.domain.transfer_spaces import export_spaces, import_spaces
from roost.storage import posts as post_rows
from roost.storage import users as user_rows
from roost.storage.db import Database
from roost.storage.maintenance import all_keys
from roost.storage.posts import PostStore
from roost.storage.reposts import set_reply_hidden
from roost.storage.transfer_reads import post_with_text
from roost.storage.users import UserStore

# How far past the server clock an imported id's time may be (clocks of two machines differ a little).
FUTURE_MARGIN_MS = 60_000
_USER_COUNTERS = ("followers_count", "following_count", "like_count")


def _text_json(value: Any) -> str | None:
    return None if value in (None, [], {}) else jsonio.dumps(value).decode()


def _int(value: Any, what: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise errors.invalid_body(f"{what}: [{value}] is not a valid id") from None
    if not 0 < number < 1 << 63:
        raise errors.invalid_body(f"{what}: [{value}] is not a valid id")
    return number


def _time(value: Any, fallback_id: int) -> int:
    parsed = parse_rfc3339(value) if isinstance(value, str) else None
    return parsed if parsed is not None else snowflake_ms(fallback_id)


def _user_row(obj: dict[str, Any]) -> dict[str, Any]:
    uid = _int(obj.get("id"), "users[].id")
    metrics = obj.get("public_metrics") or {}
    username = _username(obj.get("username"), uid)
    description = obj.get("description", "") or ""
    url = obj.get("url", "") or ""
    affiliation = obj.get("affiliation")
    return {
        "id": uid,
        "username": username,
        "username_lower": username.lower(),
        "name": obj.get("name") or username,
        "created_at": _time(obj.get("created_at"), uid),
        "description": description,
        "location": obj.get("location"),
        "url": url,
        "profile_image_url": obj.get("profile_image_url"),
        "profile_banner_url": obj.get("profile_banner_url"),
        "protected": int(bool(obj.get("protected"))),
        "verified": int(bool(obj.get("verified"))),
        "verified_type": obj.get("verified_type", "none"),
        "subscription_type": obj.get("subscription_type", "None"),
        "parody": int(bool(obj.get("parody"))),
        "is_identity_verified": int(bool(obj.get("is_identity_verified"))),
        "pinned_post_id": _optional_id(obj.get("pinned_tweet_id") or obj.get("pinned_post_id")),
        "most_recent_post_id": _optional_id(
            obj.get("most_recent_tweet_id") or obj.get("most_recent_post_id")
        ),
        "affiliation": _text_json(affiliation),
        "withheld": _text_json(obj.get("withheld")),
        "entities": _text_json(obj.get("entities")) or user_entities(description, url),
        "email": None,
        "password_hash": None,
        "followers_count": metrics.get("followers_count", 0),
        "following_count": metrics.get("following_count", 0),
        "tweet_count": metrics.get("tweet_count", metrics.get("post_count", 0)),
        "listed_count": metrics.get("listed_count", 0),
        "like_count": metrics.get("like_count", 0),
        "media_count": metrics.get("media_count", 0),
    }


def _username(value: Any, uid: int) -> str:
    """The platform's names always fit the lookup pattern; one that does not is refused rather than
    altered (an altered name would no longer be the account's)."""
    if value in (None, ""):
        return f"user{uid}"[:15]
    if not valid_username(value):
        raise errors.invalid_body(f"users[].username: [{value}] does not match {USERNAME_PATTERN}")
    return value


def _optional_id(value: Any) -> int | None:
    return None if value in (None, "") else _int(value, "id")


def _post_row(obj: dict[str, Any]) -> dict[str, Any]:
    pid = _int(obj.get("id"), "tweets[].id")
    refs = {
        ref.get("type"): _int(ref.get("id"), "referenced_tweets[].id")
        for ref in obj.get("referenced_tweets") or obj.get("referenced_posts") or []
    }
    metrics = obj.get("public_metrics") or {}
    attachments = obj.get("attachments") or {}
    history = [int(i) for i in obj.get("edit_history_tweet_ids") or obj.get("edit_history_post_ids") or [pid]]
    note = obj.get("note_tweet") or obj.get("note_post")
    text = note["text"] if isinstance(note, dict) and note.get("text") else obj.get("text", "")
    controls = obj.get("edit_controls") or {}
    return {
        "id": pid,
        "author_id": _int(obj.get("author_id"), "tweets[].author_id"),
        "text": text,
        "display_text": obj.get("text") if note else None,
        "created_at": _time(obj.get("created_at"), pid),
        "conversation_id": _int(obj.get("conversation_id") or pid, "conversation_id"),
        "in_reply_to_post_id": refs.get("replied_to"),
        "in_reply_to_user_id": _optional_id(obj.get("in_reply_to_user_id")),
        "quoted_post_id": refs.get("quoted"),
        "reposted_post_id": refs.get("retweeted"),
        "lang": obj.get("lang"),
        "possibly_sensitive": int(bool(obj.get("possibly_sensitive"))),
        "reply_settings": obj.get("reply_settings", "everyone"),
        "source": obj.get("source"),
        "community_id": _optional_id(obj.get("community_id")),
        "share_with_followers": 0,
        "paid_partnership": int(bool(obj.get("paid_partnership"))),
        "place_id": (obj.get("geo") or {}).get("place_id"),
        "media_keys": _text_json(attachments.get("media_keys")),
        "poll_id": _optional_id((attachments.get("poll_ids") or [None])[0]),
        "entities": _text_json(
            (note or {}).get("entities")
            if isinstance(note, dict) and note.get("entities")
            else obj.get("entities")
        )
        or _text_json(extract_entities(text)),  # none given: those of the text, as at creation
        "context_annotations": _text_json(obj.get("context_annotations")),
        "withheld": _text_json(obj.get("withheld")),
        "edit_history": jsonio.dumps(history).decode() if len(history) > 1 else None,
        "edits_remaining": controls.get("edits_remaining", 5),
        "is_edit_eligible": int(controls.get("is_edit_eligible", True)),
        "superseded_by": history[history.index(pid) + 1] if pid in history and history[-1] != pid else None,
        "retweet_count": metrics.get("retweet_count", metrics.get("repost_count", 0)),
        "reply_count": metrics.get("reply_count", 0),
        "like_count": metrics.get("like_count", 0),
        "quote_count": metrics.get("quote_count", 0),
        "bookmark_count": metrics.get("bookmark_count", 0),
        "impression_count": metrics.get("impression_count", 0),
        "deleted_at": None,
        "reply_hidden": 0,
    }


def _media_row(obj: dict[str, Any]) -> dict[str, Any]:
    key = str(obj.get("media_key", ""))
    head, _, tail = key.partition("_")
    if not (head.isdigit() and tail.isdigit()):
        raise errors.invalid_body(f"media[].media_key: [{key}] does not match ^([0-9]+)_([0-9]+)$")
    return {
        "media_key": key,
        "id": int(tail),
        "type": obj.get("type", "photo"),
        "url": obj.get("url"),
        "preview_image_url": obj.get("preview_image_url"),
        "width": obj.get("width"),
        "height": obj.get("height"),
        "duration_ms": obj.get("duration_ms"),
        "alt_text": obj.get("alt_text"),
        "variants": _text_json(obj.get("variants")),
        "view_count": (obj.get("public_metrics") or {}).get("view_count"),
        "owner_id": None,
        "created_at": snowflake_ms(int(tail)),
    }


def _refuse_future_ids(
    now_ms: int, users: list[dict[str, Any]], posts: list[dict[str, Any]], media: list[dict[str, Any]]
) -> None:
    """Ids made after the server's clock would push the id generator past it (every id it made then
    would claim a later time): such a payload is refused; move the clock forward first."""
    limit = snowflake_floor(now_ms + FUTURE_MARGIN_MS)
    for section, rows in (("users", users), ("tweets", posts), ("media", media)):
        for row in rows:
            if row["id"] >= limit:
                raise errors.invalid_body(
                    f"{section}[].id: [{row['id']}] was made at {iso_ms(snowflake_ms(row['id']))}, after the "
                    f"server clock ({iso_ms(now_ms)}); move the clock forward (POST /_roost/clock) first"
                )


async def _resolve_mentions(tx: Any, entities: str | None) -> tuple[str | None, list[int]]:
    """The entities with each mention's user id where the user exists, and those users' ids."""
    parsed = jsonio.loads(entities) if entities else None
    mentions = parsed.get("mentions") if isinstance(parsed, dict) else None
    if not isinstance(mentions, list) or not mentions:
        return entities, []
    names = [str(m.get("username", "")) for m in mentions if isinstance(m, dict)]
    found = {u["username_lower"]: u["id"] for u in await user_rows.get_users_by_names_tx(tx, names)}
    for mention in mentions:
        if isinstance(mention, dict) and "id" not in mention:
            user_id = found.get(str(mention.get("username", "")).lower())
            if user_id is not None:
                mention["id"] = str(user_id)
    return jsonio.dumps(parsed).decode(), list(dict.fromkeys(found.values()))


def _renamed_posts(payload: dict[str, Any], stored_as: dict[int, int]) -> dict[str, Any]:
    """The payload with its bookmarks and hidden replies naming posts found under another id by those
    ids (a shallow copy; the payload is left as it was)."""
    if not stored_as:
        return payload

    def renamed(value: Any) -> Any:
        text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
        return str(stored_as[int(text)]) if text.isdigit() and int(text) in stored_as else value

    bookmarks = payload.get("bookmarks")
    hidden = payload.get("hidden_replies")
    changed = dict(payload)
    if isinstance(bookmarks, list):
        changed["bookmarks"] = [
            {**item, **{k: renamed(item[k]) for k in ("tweet_id", "post_id") if k in item}}
            if isinstance(item, dict)
            else item
            for item in bookmarks
        ]
    if isinstance(hidden, list):
        changed["hidden_replies"] = [renamed(item) for item in hidden]
    return changed


def _collect(payload: Any) -> dict[str, list[dict[str, Any]]]:
    if not isinstance(payload, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    buckets: dict[str, list[dict[str, Any]]] = {"users": [], "tweets": [], "media": []}
    sources = [payload, payload.get("includes") or {}]
    for source in sources:
        for key, bucket in (
            ("users", "users"),
            ("tweets", "tweets"),
            ("posts", "tweets"),
            ("media", "media"),
        ):
            items = source.get(key) or []
            if not isinstance(items, list):
                raise errors.invalid_body(f"$.{key}: array expected")
            buckets[bucket].extend(item for item in items if isinstance(item, dict))
    data = payload.get("data")
    if data is not None:
        items = data if isinstance(data, list) else [data]
        for item in items:
            if isinstance(item, dict):
                bucket = "users" if "username" in item else "media" if "media_key" in item else "tweets"
                buckets[bucket].append(item)
    return buckets


def _hidden_reply_ids(payload: dict[str, Any]) -> list[int]:
    """The `hidden_replies` section: ids of replies hidden by their conversation's author."""
    items = payload.get("hidden_replies") or []
    if not isinstance(items, list):
        raise errors.invalid_body("$.hidden_replies: array expected")
    return [_int(item, "hidden_replies[]") for item in items]


class Transfer:
    def __init__(
        self, db: Database, users: UserStore, posts: PostStore, clock: Clock, maintenance: Maintenance
    ) -> None:
        self._db = db
        self._users = users
        self._posts = posts
        self._clock = clock
        self._maintenance = maintenance  # the id floor rises past imported ids

    async def import_objects(self, payload: Any) -> dict[str, int]:
        buckets = _collect(payload)
        users = [_user_row(obj) for obj in buckets["users"]]
        posts = [_post_row(obj) for obj in buckets["tweets"]]
        media = [_media_row(obj) for obj in buckets["media"]]
        _refuse_future_ids(self._clock.now_ms(), users, posts, media)
        stated = StatedCounts()
        for obj, row in zip(buckets["users"], users, strict=True):
            stated.note("user", row["id"], obj.get("public_metrics"), _USER_COUNTERS)
        for obj, row in zip(buckets["tweets"], posts, strict=True):
            stated.note("post", row["id"], obj.get("public_metrics"), ("like_count",))
        stored_as: dict[int, int] = {}  # an imported post's id -> the id of the same post already stored
        counts = {"users": 0, "tweets": 0, "media": 0}
        async with self._db.transaction() as tx:
            for row in users:
                if await user_rows.get_user_tx(
                    tx, row["id"]
                ) is None and not await user_rows.get_users_by_names_tx(tx, [row["username"]]):
                    await user_rows.insert_user(tx, row)
                    counts["users"] += 1
            for row in media:
                if not await user_rows.get_media_tx(tx, [row["media_key"]]):
                    await user_rows.insert_media(tx, row)
                    counts["media"] += 1
            for row in posts:
                if await post_rows.get_for_update(tx, row["id"]) is not None:
                    continue
                same = await post_with_text(tx, row["author_id"], row["text"])
                if same is not None:
                    stored_as[row["id"]] = same
                    continue
                row["entities"], mentioned = await _resolve_mentions(tx, row["entities"])
                await post_rows.insert_post(tx, row, mentioned)
                counts["tweets"] += 1
            # Likes and follows, after the users and posts they name.
            counts.update(await import_edges(tx, payload, self._clock.now_ms(), stated, stored_as))
            # Issue 14: bookmarks and their folders, counted when the payload carries them.
            payload = _renamed_posts(payload, stored_as)  # sections below name posts by the stored ids
            counts.update(await import_bookmarks(tx, payload, self._clock.now_ms()))
            # Lists, memberships, follows and pins (issue 14), after the users they name.
            counts.update(await list_transfer.import_lists(tx, payload, self._clock.now_ms()))
            # ---- hidden replies (issue 14): ids of replies their conversation's author hid ----
            for hidden_id in _hidden_reply_ids(payload):
                await set_reply_hidden(tx, hidden_id, True)
            # Issue 15: Spaces, their tickets and account standing.
            counts.update(await import_spaces(tx, payload, self._clock.now_ms()))
            # Issue 15: uploaded media and their bytes.
            counts.update(await import_media_uploads(tx, payload, self._clock.now_ms()))
            # Issue 15: note writers and notes, news stories, communities and their members.
            counts.update(await import_community(tx, payload, self._clock.now_ms()))
        await self._maintenance.observe_ids()
        self._users.forget_protected()
        return counts

    async def export_objects(self) -> dict[str, list[Any]]:
        """Every object with every field, in the tweet vocabulary (re-importable)."""
        context = RenderContext(now_ms=self._clock.now_ms())
        users = await self._users.get_many(await all_keys(self._db, "users"))
        posts = await self._posts.get_many(await all_keys(self._db, "posts"))
        media = await self._users.media_many(await all_keys(self._db, "media"))
        return {
            "users": [user_objects.render_user(row, user_objects.USER_FIELDS, context) for row in users],
            "tweets": [
                objects.render_post(row, objects.TWEET_FIELDS, context)
                for row in posts
                if row["deleted_at"] is None
            ],
            "media": [objects.render_media(row, objects.MEDIA_FIELDS, context) for row in media],
            **await export_edges(self._db),  # likes and follows
            # Issue 14: bookmarks and their folders.
            **await export_bookmarks(self._db),
            **await list_transfer.export_lists(self._db, self._clock),  # lists (issue 14)
            # Hidden replies (issue 14): not a field of the post object, so a section of its own.
            "hidden_replies": [
                str(row["id"]) for row in posts if row["deleted_at"] is None and row["reply_hidden"]
            ],
            # Issue 15: Spaces, their tickets and account standing.
            **await export_spaces(self._db),
            # Issue 15: uploaded media and their bytes.
            **await export_media_uploads(self._db),
            # Issue 15: note writers and notes, news stories, communities and their members.
            **await export_community(self._db),
        }
