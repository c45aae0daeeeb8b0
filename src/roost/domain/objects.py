"""The platform's object kinds (post, user, media, poll, place): fields, defaults, expansions, rendering.

Rows come straight from storage; each renderer writes the selected fields in the request's vocabulary
(`tweet` names as live traffic uses them, or `post` names of the newer specification).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.fields import POST_VOCAB, BoundRenderer, Expansion, ObjectKind, RenderContext, Row
from roost.core.ids import snowflake_ms
from roost.domain.user_objects import USER_ALIASES, USER_FIELDS, compile_user, render_user

EDIT_WINDOW_MS = 3_600_000

TWEET_FIELDS = tuple(
    sorted(
        {
            "article",
            "article_title",
            "attachments",
            "author_id",
            "card_uri",
            "community_id",
            "context_annotations",
            "conversation_id",
            "created_at",
            "display_text_range",
            "edit_controls",
            "edit_history_tweet_ids",
            "entities",
            "geo",
            "id",
            "in_reply_to_user_id",
            "lang",
            "matched_media_notes",
            "media_metadata",
            "non_public_metrics",
            "note_post",
            "note_request_suggestions",
            "note_tweet",
            "organic_metrics",
            "paid_partnership",
            "possibly_sensitive",
            "promoted_metrics",
            "public_metrics",
            "referenced_tweets",
            "reply_settings",
            "scopes",
            "source",
            "suggested_source_links",
            "suggested_source_links_with_counts",
            "text",
            "withheld",
        }
    )
)
TWEET_ALIASES = {
    "edit_history_post_ids": "edit_history_tweet_ids",
    "referenced_posts": "referenced_tweets",
    "note_post": "note_tweet",
}

MEDIA_FIELDS = (
    "alt_text",
    "duration_ms",
    "height",
    "media_key",
    "non_public_metrics",
    "organic_metrics",
    "preview_image_url",
    "promoted_metrics",
    "public_metrics",
    "type",
    "url",
    "variants",
    "width",
)
POLL_FIELDS = ("duration_minutes", "end_datetime", "id", "options", "voting_status")
PLACE_FIELDS = ("contained_within", "country", "country_code", "full_name", "geo", "id", "name", "place_type")


def _json(value: str | None) -> Any:
    return None if value is None else jsonio.loads(value)


# ---- posts -----------------------------------------------------------------------------------


def edit_history(row: Row) -> list[int]:
    history = row["edit_history"]
    return [row["id"]] if history is None else jsonio.loads(history)


def referenced(row: Row) -> list[tuple[str, int]]:
    refs: list[tuple[str, int]] = []
    if row["in_reply_to_post_id"] is not None:
        refs.append(("replied_to", row["in_reply_to_post_id"]))
    if row["quoted_post_id"] is not None:
        refs.append(("quoted", row["quoted_post_id"]))
    if row["reposted_post_id"] is not None:
        refs.append(("retweeted", row["reposted_post_id"]))
    return refs


def _display_entities(row: Row) -> dict[str, Any] | None:
    entities = _json(row["entities"])
    if not entities or row["display_text"] is None:
        return entities
    limit = len(row["display_text"])
    visible = {key: [e for e in items if e["end"] <= limit] for key, items in entities.items()}
    return {key: items for key, items in visible.items() if items} or None


def _post_metrics(row: Row, ctx: RenderContext) -> dict[str, int]:
    return {
        "repost_count" if ctx.vocab == POST_VOCAB else "retweet_count": row["retweet_count"],
        "reply_count": row["reply_count"],
        "like_count": row["like_count"],
        "quote_count": row["quote_count"],
        "bookmark_count": row["bookmark_count"],
        "impression_count": row["impression_count"],
    }


def _edit_history_ids(row: Row, ctx: RenderContext) -> list[str]:
    history = row["edit_history"]
    if history is None:  # never edited: the post alone
        return [str(row["id"])]
    return [str(post_id) for post_id in jsonio.loads(history)]


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _attachments(row: Row, ctx: RenderContext) -> dict[str, Any] | None:
    attachments: dict[str, Any] = {}
    if row["media_keys"]:
        attachments["media_keys"] = jsonio.loads(row["media_keys"])
    if row["poll_id"] is not None:
        attachments["poll_ids"] = [str(row["poll_id"])]
    return attachments or None


def _edit_controls(row: Row, ctx: RenderContext) -> dict[str, Any]:
    # The window runs from the first version, whichever version is shown (as edits enforce it).
    history = edit_history(row)
    opened = row["created_at"] if len(history) < 2 else snowflake_ms(history[0])
    return {
        "edits_remaining": row["edits_remaining"],
        "is_edit_eligible": bool(row["is_edit_eligible"]),
        "editable_until": iso_ms(opened + EDIT_WINDOW_MS),
    }


def _note_tweet(row: Row, ctx: RenderContext) -> dict[str, Any] | None:
    if row["display_text"] is None:
        return None
    note: dict[str, Any] = {"text": row["text"]}
    entities = _json(row["entities"])
    if entities:
        note["entities"] = entities
    return note


def _display_text_range(row: Row, ctx: RenderContext) -> list[int]:
    shown = row["display_text"] if row["display_text"] is not None else row["text"]
    return [0, len(shown)]


def _private_metrics(row: Row, ctx: RenderContext) -> dict[str, int] | None:
    # Private metrics exist only for the author's own posts.
    if ctx.viewer_id != row["author_id"]:
        return None
    return {"impression_count": row["impression_count"], "url_link_clicks": 0, "user_profile_clicks": 0}


def _organic_metrics(row: Row, ctx: RenderContext) -> dict[str, int] | None:
    base = _private_metrics(row, ctx)
    if base is not None:
        base.update(
            like_count=row["like_count"], reply_count=row["reply_count"], retweet_count=row["retweet_count"]
        )
    return base


# Each selectable post field (canonical name) -> its value for a row, None to leave it out; the
# fields roost stores nothing for are absent (never rendered). `id` and `text` are always written.
_POST_FIELDS: dict[str, Callable[[Row, RenderContext], Any]] = {
    "edit_history_tweet_ids": _edit_history_ids,
    "author_id": lambda row, ctx: str(row["author_id"]),
    "created_at": lambda row, ctx: iso_ms(row["created_at"]),
    "conversation_id": lambda row, ctx: str(row["conversation_id"]),
    "public_metrics": _post_metrics,
    "entities": lambda row, ctx: _display_entities(row),
    "in_reply_to_user_id": lambda row, ctx: _optional_str(row["in_reply_to_user_id"]),
    "referenced_tweets": lambda row, ctx: (
        [{"type": kind, "id": str(ref)} for kind, ref in referenced(row)] or None
    ),
    "lang": lambda row, ctx: row["lang"],
    "possibly_sensitive": lambda row, ctx: bool(row["possibly_sensitive"]),
    "reply_settings": lambda row, ctx: row["reply_settings"],
    "attachments": _attachments,
    "edit_controls": _edit_controls,
    "geo": lambda row, ctx: None if row["place_id"] is None else {"place_id": row["place_id"]},
    "community_id": lambda row, ctx: _optional_str(row["community_id"]),
    "paid_partnership": lambda row, ctx: bool(row["paid_partnership"]),
    "note_tweet": _note_tweet,
    "display_text_range": _display_text_range,
    "context_annotations": lambda row, ctx: _json(row["context_annotations"]),
    "withheld": lambda row, ctx: _json(row["withheld"]),
    "source": lambda row, ctx: row["source"],
    "card_uri": lambda row, ctx: row.get("card_uri"),  # ads cards (issue 23); rows made before it lack it
    "non_public_metrics": _private_metrics,
    "organic_metrics": _organic_metrics,
}


_METRICS = ("retweet_count", "reply_count", "like_count", "quote_count", "bookmark_count", "impression_count")
_REFERENCES = ("in_reply_to_post_id", "quoted_post_id", "reposted_post_id")
# The columns `render_post` reads for each field (tests check the declaration against the renderer).
POST_COLUMNS: dict[str, tuple[str, ...]] = {
    **{name: () for name in TWEET_FIELDS},  # fields roost stores nothing for render from no column
    "id": (),
    "text": (),
    "edit_history_tweet_ids": ("edit_history",),
    "author_id": ("author_id",),
    "created_at": ("created_at",),
    "conversation_id": ("conversation_id",),
    "public_metrics": _METRICS,
    "entities": ("entities",),
    "in_reply_to_user_id": ("in_reply_to_user_id",),
    "referenced_tweets": _REFERENCES,
    "lang": ("lang",),
    "possibly_sensitive": ("possibly_sensitive",),
    "reply_settings": ("reply_settings",),
    "attachments": ("media_keys", "poll_id"),
    "edit_controls": ("edit_history", "created_at", "edits_remaining", "is_edit_eligible"),
    "geo": ("place_id",),
    "community_id": ("community_id",),
    "paid_partnership": ("paid_partnership",),
    "note_tweet": ("entities",),
    "display_text_range": (),
    "context_annotations": ("context_annotations",),
    "withheld": ("withheld",),
    "source": ("source",),
    "card_uri": ("card_uri",),
    "non_public_metrics": ("impression_count",),
    "organic_metrics": ("impression_count", "like_count", "reply_count", "retweet_count"),
}
# Read for every post: identity, the text shown, and what visibility checks need.
POST_BASE_COLUMNS = ("id", "text", "display_text", "author_id", "deleted_at")

_POST_KEYS = {
    POST_VOCAB: {
        "edit_history_tweet_ids": "edit_history_post_ids",
        "referenced_tweets": "referenced_posts",
        "note_tweet": "note_post",
    }
}


def compile_post(names: tuple[str, ...], vocab: str) -> BoundRenderer:
    """A post renderer for one field selection: which fields, under which names, decided once."""
    keys = _POST_KEYS.get(vocab, {})
    plan = tuple((keys.get(name, name), _POST_FIELDS[name]) for name in names if name in _POST_FIELDS)

    def render(row: Row, ctx: RenderContext) -> dict[str, Any]:
        text = row["display_text"]
        out: dict[str, Any] = {"id": str(row["id"]), "text": row["text"] if text is None else text}
        for key, value_of in plan:
            value = value_of(row, ctx)
            if value is not None:
                out[key] = value
        return out

    return render


_compiled_post = lru_cache(maxsize=256)(compile_post)


def render_post(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    return _compiled_post(tuple(names), ctx.vocab)(row, ctx)


# ---- media, polls, places -------------------------------------------------------------------


def render_media(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {"media_key": row["media_key"], "type": row["type"]}
    for name in names:
        if name in ("media_key", "type"):
            continue
        if name in ("url", "preview_image_url", "width", "height", "duration_ms", "alt_text"):
            value = row[name]
        elif name == "variants":
            value = _json(row["variants"])
        elif name == "public_metrics":
            value = None if row["view_count"] is None else {"view_count": row["view_count"]}
        else:
            value = None
        if value is not None:
            out[name] = value
    return out


def render_poll(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {"id": str(row["id"]), "options": jsonio.loads(row["options"])}
    for name in names:
        if name == "duration_minutes":
            out[name] = row["duration_minutes"]
        elif name == "end_datetime":
            out[name] = iso_ms(row["end_datetime"])
        elif name == "voting_status":
            out[name] = "closed" if row["end_datetime"] <= ctx.now_ms else "open"
    return out


def render_place(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {"full_name": row["full_name"], "id": row["id"]}
    for name in names:
        if name in ("name", "country", "country_code", "place_type"):
            if row[name] is not None:
                out[name] = row[name]
        elif name in ("geo", "contained_within"):
            value = _json(row[name])
            if value is not None:
                out[name] = value
    return out


# ---- kinds and expansions --------------------------------------------------------------------


def _one(value: Any) -> Iterable[Any]:
    return () if value is None else (value,)


def _mentions(row: Row) -> list[str]:
    entities = _display_entities(row) or {}
    return [m["username"] for m in entities.get("mentions", ())]


def _note_mentions(row: Row) -> list[str]:
    if row["display_text"] is None:
        return []
    entities = _json(row["entities"]) or {}
    limit = len(row["display_text"])
    return [m["username"] for m in entities.get("mentions", ()) if m["end"] > limit]


def _media_keys(row: Row) -> list[str]:
    return jsonio.loads(row["media_keys"]) if row["media_keys"] else []


def _affiliates(row: Row) -> list[int]:
    affiliation = _json(row["affiliation"]) or {}
    return [int(i) for i in affiliation.get("user_id", [])]


KINDS = (
    ObjectKind(
        "tweet",
        "tweet",
        ("tweet.fields", "post.fields"),
        TWEET_FIELDS,
        TWEET_ALIASES,
        ("id", "text", "edit_history_tweet_ids"),
        {"tweet": "tweets", "post": "posts"},
        render_post,
        lambda row: row["id"],
        frozenset({"edit_history_post_ids", "referenced_posts", "note_post"}),
        POST_COLUMNS,
        POST_BASE_COLUMNS,
        restricted=True,
        compile=compile_post,
    ),
    ObjectKind(
        "media",
        "media",
        ("media.fields",),
        MEDIA_FIELDS,
        {},
        ("media_key", "type"),
        {"tweet": "media", "post": "media"},
        render_media,
        lambda row: row["media_key"],
    ),
    ObjectKind(
        "poll",
        "poll",
        ("poll.fields",),
        POLL_FIELDS,
        {},
        ("id", "options"),
        {"tweet": "polls", "post": "polls"},
        render_poll,
        lambda row: row["id"],
    ),
    ObjectKind(
        "place",
        "place",
        ("place.fields",),
        PLACE_FIELDS,
        {},
        ("full_name", "id"),
        {"tweet": "places", "post": "places"},
        render_place,
        lambda row: row["id"],
    ),
    ObjectKind(
        "user",
        "user",
        ("user.fields",),
        USER_FIELDS,
        USER_ALIASES,
        ("id", "name", "username"),
        {"tweet": "users", "post": "users"},
        render_user,
        lambda row: row["id"],
        frozenset({"most_recent_post_id", "pinned_post_id"}),
        compile=compile_user,
    ),
)

_NOTHING: tuple[()] = ()

TWEET_EXPANSIONS = (
    Expansion(
        "attachments.poll_ids",
        "poll",
        lambda r: _one(r["poll_id"]),
        implies=("attachments",),
        columns=("poll_id",),
    ),
    Expansion(
        "attachments.media_keys",
        "media",
        _media_keys,
        lookup="key",
        implies=("attachments",),
        columns=("media_keys",),
    ),
    Expansion(
        "author_id", "user", lambda r: (r["author_id"],), implies=("author_id",), columns=("author_id",)
    ),
    Expansion(
        "edit_history_tweet_ids",
        "tweet",
        edit_history,
        aliases=("edit_history_post_ids",),
        columns=("edit_history",),
    ),
    Expansion(
        "entities.mentions.username",
        "user",
        _mentions,
        lookup="username",
        aliases=("username",),
        implies=("entities",),
        columns=("entities",),
    ),
    Expansion(
        "geo.place_id",
        "place",
        lambda r: _one(r["place_id"]),
        lookup="key",
        implies=("geo",),
        columns=("place_id",),
    ),
    Expansion(
        "in_reply_to_user_id",
        "user",
        lambda r: _one(r["in_reply_to_user_id"]),
        implies=("in_reply_to_user_id",),
        columns=("in_reply_to_user_id",),
    ),
    Expansion(
        "entities.note.mentions.username",
        "user",
        _note_mentions,
        lookup="username",
        implies=("note_tweet",),
        columns=("entities",),
    ),
    Expansion(
        "referenced_tweets.id",
        "tweet",
        lambda r: [ref for _, ref in referenced(r)],
        aliases=("referenced_posts", "referenced_posts.id"),
        implies=("referenced_tweets",),
        columns=_REFERENCES,
    ),
    Expansion(
        "referenced_tweets.id.attachments.media_keys",
        "media",
        _media_keys,
        lookup="key",
        via_referenced=True,
        aliases=("referenced_posts.id.attachments.media_keys",),
        implies=("referenced_tweets", "attachments"),
        columns=_REFERENCES,
    ),
    Expansion(
        "referenced_tweets.id.author_id",
        "user",
        lambda r: (r["author_id"],),
        via_referenced=True,
        aliases=("referenced_posts.id.author_id",),
        implies=("referenced_tweets", "author_id"),
        columns=_REFERENCES,
    ),
    Expansion("attachments.media_source_tweet", "tweet", lambda r: _NOTHING, columns=()),
    Expansion("article.cover_media", "media", lambda r: _NOTHING, lookup="key", columns=()),
    Expansion("article.media_entities", "media", lambda r: _NOTHING, lookup="key", columns=()),
)

USER_EXPANSIONS = (
    Expansion(
        "pinned_tweet_id",
        "tweet",
        lambda r: _one(r["pinned_post_id"]),
        aliases=("pinned_post_id",),
        implies=("pinned_tweet_id",),
    ),
    Expansion(
        "most_recent_tweet_id",
        "tweet",
        lambda r: _one(r["most_recent_post_id"]),
        aliases=("most_recent_post_id",),
        implies=("most_recent_tweet_id",),
    ),
    Expansion(
        "affiliation.user_id",
        "user",
        _affiliates,
        aliases=("affiliation",),
        implies=("affiliation",),
    ),
)

EXPANSIONS = {"tweet": TWEET_EXPANSIONS, "user": USER_EXPANSIONS}
