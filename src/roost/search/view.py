"""A flat snapshot of one post and its author (never changed once built): what the operators read.

Normalised token sets are computed once per post (in `__post_init__`), so evaluating thousands of
stream rules against the same post costs set look-ups, not re-tokenisation. See
docs/query-matching.md for the tokenizer and the meaning of every field.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from roost.core import jsonio

Row = Mapping[str, Any]

# Words are runs of letters/digits/underscore; every other non-space, non-punctuation character
# (emoji, symbols) is a token of its own. URLs are removed first: they are matched by `url:`.
_TOKEN_RE = re.compile(r"\w+|[^\w\s]")
_URL_RE = re.compile(r"https?://\S+", re.IGNORECASE)
_ASCII_WORD_RE = re.compile(r"\w+")
_SKIP_CATEGORIES = frozenset({"Mn", "Me", "Cf", "Cc", "Zs", "Zl", "Zp"})


def _keep(tok: str) -> bool:
    if len(tok) > 1 or tok.isalnum() or tok == "_":
        return True
    if tok.isascii():
        return False  # ASCII punctuation and symbols (+, <, $, …) separate tokens
    cat = unicodedata.category(tok)
    return cat[0] != "P" and cat not in _SKIP_CATEGORIES


def fold(text: str) -> str:
    """Lowercase and strip accents (search); ASCII text is only lowercased."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn"))


def exact(text: str) -> str:
    """Lowercase, accents kept (stream)."""
    return text.lower() if text.isascii() else unicodedata.normalize("NFC", text.casefold())


def tokenize(text: str, folded: bool = False) -> tuple[str, ...]:
    """The platform-style token sequence of `text`: case-insensitive, accents folded if `folded`."""
    if text.isascii():  # ASCII punctuation never makes a token: the words are all there is
        return tuple(_ASCII_WORD_RE.findall(text.lower()))
    return general_tokens(fold(text) if folded else exact(text))


def general_tokens(norm: str) -> tuple[str, ...]:
    """The tokens of normalised text, whatever its characters."""
    return tuple(t for t in _TOKEN_RE.findall(norm) if _keep(t))


@lru_cache(maxsize=65536)
def query_tokens(value: str, folded: bool) -> tuple[str, ...]:
    """Tokens of a keyword/phrase as written in a query (cached: rules repeat across posts)."""
    return tokenize(value, folded)


def text_tokens(text: str | None, folded: bool) -> tuple[str, ...]:
    if not text:
        return ()
    return tokenize(_URL_RE.sub(" ", text), folded)


def _lower_set(values: Iterable[str]) -> frozenset[str]:
    return frozenset(v.lower() for v in values)


@dataclass(slots=True)
class PostView:
    """One post as the matcher sees it. Ids are strings; absent values are None or empty. Not changed
    once built (not frozen only because a frozen dataclass sets each of its 50 fields through
    `object.__setattr__`, which doubled the cost of building one for every post written)."""

    id: str
    text: str = ""
    quoted_text: str | None = None  # the quoted post's text: the stream matches it, search does not
    author_id: str = ""
    username: str = ""
    name: str = ""
    bio: str = ""
    location: str = ""
    followers_count: int = 0
    following_count: int = 0
    tweet_count: int = 0
    listed_count: int = 0
    verified: bool = False
    lang: str | None = None
    hashtags: tuple[str, ...] = ()
    cashtags: tuple[str, ...] = ()
    mention_usernames: tuple[str, ...] = ()
    mention_ids: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()  # expanded and display forms of every URL entity
    quoted_hashtags: tuple[str, ...] = ()
    quoted_cashtags: tuple[str, ...] = ()
    quoted_mentions: tuple[str, ...] = ()
    quoted_urls: tuple[str, ...] = ()
    has_media: bool = False
    has_images: bool = False
    has_video: bool = False
    conversation_id: str | None = None
    in_reply_to_user_id: str | None = None
    in_reply_to_username: str | None = None
    in_reply_to_tweet_id: str | None = None
    is_retweet: bool = False
    retweets_of_user_id: str | None = None
    retweets_of_username: str | None = None
    retweeted_tweet_id: str | None = None
    is_quote: bool = False
    quoted_tweet_id: str | None = None
    is_reply: bool = False
    place_id: str | None = None
    place_full_name: str | None = None
    place_country_code: str | None = None
    place_bbox: tuple[float, float, float, float] | None = None  # west, south, east, north
    geo_point: tuple[float, float] | None = None  # longitude, latitude
    context: tuple[str, ...] = ()  # "domain_id.entity_id"
    context_entity_names: tuple[str, ...] = ()
    source: str | None = None
    like_count: int = 0
    reply_count: int = 0
    repost_count: int = 0
    list_ids: frozenset[str] = frozenset()  # lists the author belongs to, for `list:`
    nullcast: bool = False  # roost has no promoted-only posts

    # Derived, normalised once.
    stream_words: frozenset[str] = field(init=False)
    search_words: frozenset[str] = field(init=False)
    stream_seqs: tuple[tuple[str, ...], ...] = field(init=False)
    search_seqs: tuple[tuple[str, ...], ...] = field(init=False)
    hashtag_set: frozenset[str] = field(init=False)
    search_hashtag_set: frozenset[str] = field(init=False)
    stream_hashtag_set: frozenset[str] = field(init=False)
    cashtag_set: frozenset[str] = field(init=False)
    stream_cashtag_set: frozenset[str] = field(init=False)
    mention_set: frozenset[str] = field(init=False)
    stream_mention_set: frozenset[str] = field(init=False)
    url_values: tuple[str, ...] = field(init=False)
    stream_url_values: tuple[str, ...] = field(init=False)
    bio_seq: tuple[str, ...] = field(init=False)
    name_seq: tuple[str, ...] = field(init=False)
    location_seq: tuple[str, ...] = field(init=False)
    place_seq: tuple[str, ...] = field(init=False)
    context_domains: frozenset[str] = field(init=False)
    context_set: frozenset[str] = field(init=False)
    context_name_set: frozenset[str] = field(init=False)
    username_lower: str = field(init=False)

    def __post_init__(self) -> None:
        own = text_tokens(self.text, False)
        quoted = text_tokens(self.quoted_text, False)
        own_folded = own if self.text.isascii() else text_tokens(self.text, True)
        self.stream_seqs = (own, quoted) if quoted else (own,)
        self.search_seqs = (own_folded,)
        self.stream_words = frozenset(own) | frozenset(quoted)
        self.search_words = frozenset(own_folded)
        tags = _lower_set(self.hashtags)
        self.hashtag_set = tags
        self.search_hashtag_set = frozenset(fold(t) for t in self.hashtags)
        self.stream_hashtag_set = tags | _lower_set(self.quoted_hashtags)
        cash = _lower_set(self.cashtags)
        self.cashtag_set = cash
        self.stream_cashtag_set = cash | _lower_set(self.quoted_cashtags)
        mentions = _lower_set(self.mention_usernames)
        self.mention_set = mentions
        self.stream_mention_set = mentions | _lower_set(self.quoted_mentions)
        urls = tuple(u.lower() for u in self.urls)
        self.url_values = urls
        self.stream_url_values = urls + tuple(u.lower() for u in self.quoted_urls)
        self.bio_seq = tokenize(self.bio)
        self.name_seq = tokenize(self.name)
        self.location_seq = tokenize(self.location)
        self.place_seq = tokenize(self.place_full_name or "")
        self.context_set = frozenset(self.context)
        self.context_domains = frozenset(c.split(".", 1)[0] for c in self.context)
        self.context_name_set = frozenset(exact(n) for n in self.context_entity_names)
        self.username_lower = self.username.lower()
        self.is_reply = self.is_reply or self.in_reply_to_tweet_id is not None
        self.is_quote = self.is_quote or self.quoted_tweet_id is not None
        self.is_retweet = self.is_retweet or self.retweeted_tweet_id is not None


# ---- from storage rows ---------------------------------------------------------------------------


def _get(row: Row | None, key: str, default: Any = None) -> Any:
    if row is None:
        return default
    value = row.get(key, default) if hasattr(row, "get") else row[key]
    return default if value is None else value


def _sid(value: Any) -> str | None:
    return None if value is None else str(value)


def load_json(value: Any) -> Any:
    if value is None or value == "":
        return None
    return jsonio.loads(value) if isinstance(value, str | bytes) else value


def entities_of(row: Row | None) -> dict[str, list[dict[str, Any]]]:
    return load_json(_get(row, "entities")) or {}


def url_values_of(entities: Mapping[str, Any]) -> tuple[str, ...]:
    out: list[str] = []
    for ent in entities.get("urls", ()):
        out += [ent[k] for k in ("expanded_url", "display_url", "unwound_url") if ent.get(k)]
    return tuple(out)


def tags_of(entities: Mapping[str, Any], kind: str) -> tuple[str, ...]:
    return tuple(e["tag"] for e in entities.get(kind, ()))


def context_of(post: Row) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A post's context annotations: each one's "domain_id.entity_id", and each entity's name."""
    annotations = load_json(_get(post, "context_annotations")) or []
    ids = tuple(
        f"{a['domain']['id']}.{a['entity']['id']}" for a in annotations if "domain" in a and "entity" in a
    )
    return ids, tuple(a["entity"].get("name", "") for a in annotations if "entity" in a)


def _bbox(place: Row | None) -> tuple[float, float, float, float] | None:
    geo = load_json(_get(place, "geo"))
    box = geo.get("bbox") if isinstance(geo, dict) else None
    return tuple(float(v) for v in box) if box and len(box) == 4 else None  # type: ignore[return-value]


def point_of(post: Row) -> tuple[float, float] | None:
    # roost stores no exact coordinates today; accept them when a caller supplies them.
    coords = load_json(_get(post, "coordinates"))
    if isinstance(coords, dict):
        coords = coords.get("coordinates")
    return (float(coords[0]), float(coords[1])) if coords and len(coords) == 2 else None


def view_of(
    post: Row,
    author: Row | None,
    quoted: Row | None = None,
    *,
    place: Row | None = None,
    media_types: Iterable[str] = (),
    in_reply_to_user: Row | None = None,
    retweeted_author: Row | None = None,
    list_ids: Iterable[Any] = (),
) -> PostView:
    """Build the view from storage rows (`posts`, `users`, `places`; media types from `media.type`).

    `in_reply_to_user` and `retweeted_author` supply usernames for `to:` / `retweets_of:` (ids come
    from the post row); `list_ids` are the lists the author is a member of (`list:`).
    """
    ents = entities_of(post)
    qents = entities_of(quoted)
    mentions = ents.get("mentions", ())
    context, names = context_of(post)
    types = set(media_types)
    media_keys = load_json(_get(post, "media_keys")) or []
    return PostView(
        id=str(post["id"]),
        text=_get(post, "text", ""),
        quoted_text=_get(quoted, "text"),
        author_id=str(_get(post, "author_id", "")),
        username=_get(author, "username", ""),
        name=_get(author, "name", ""),
        bio=_get(author, "description", ""),
        location=_get(author, "location", ""),
        followers_count=int(_get(author, "followers_count", 0)),
        following_count=int(_get(author, "following_count", 0)),
        tweet_count=int(_get(author, "tweet_count", 0)),
        listed_count=int(_get(author, "listed_count", 0)),
        verified=bool(_get(author, "verified", 0)),
        lang=_get(post, "lang"),
        hashtags=tags_of(ents, "hashtags"),
        cashtags=tags_of(ents, "cashtags"),
        mention_usernames=tuple(m["username"] for m in mentions),
        mention_ids=tuple(str(m["id"]) for m in mentions if m.get("id") is not None),
        urls=url_values_of(ents),
        quoted_hashtags=tags_of(qents, "hashtags"),
        quoted_cashtags=tags_of(qents, "cashtags"),
        quoted_mentions=tuple(m["username"] for m in qents.get("mentions", ())),
        quoted_urls=url_values_of(qents),
        has_media=bool(media_keys) or bool(types),
        has_images="photo" in types,
        has_video="video" in types,
        conversation_id=_sid(_get(post, "conversation_id")),
        in_reply_to_user_id=_sid(_get(post, "in_reply_to_user_id")),
        in_reply_to_username=_get(in_reply_to_user, "username"),
        in_reply_to_tweet_id=_sid(_get(post, "in_reply_to_post_id")),
        retweets_of_user_id=_sid(_get(retweeted_author, "id")),
        retweets_of_username=_get(retweeted_author, "username"),
        retweeted_tweet_id=_sid(_get(post, "reposted_post_id")),
        quoted_tweet_id=_sid(_get(post, "quoted_post_id")),
        place_id=_get(post, "place_id"),
        place_full_name=_get(place, "full_name"),
        place_country_code=_get(place, "country_code"),
        place_bbox=_bbox(place),
        geo_point=point_of(post),
        context=context,
        context_entity_names=names,
        source=_get(post, "source"),
        like_count=int(_get(post, "like_count", 0)),
        reply_count=int(_get(post, "reply_count", 0)),
        repost_count=int(_get(post, "retweet_count", 0)),
        list_ids=frozenset(str(i) for i in list_ids),
    )
