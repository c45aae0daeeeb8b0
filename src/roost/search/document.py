"""The search document of a post: the normalised text the database's full-text index holds.

Computed in Python at write time from the post row, with the tokenizer and row readers of the
`PostView` the matcher reads, so the tokens the index sees are exactly the matcher's search tokens
(case- and accent-folded, URLs removed, emoji and non-ASCII symbols as tokens of their own). Entity
and attribute facts that operators test by set membership (`#tag`, `@name`, `$tag`, `context:`,
`entity:`, `has:`) become marker tokens after the text tokens, so they are index look-ups too.

Every token is written in a form both full-text engines keep whole: `[a-z0-9]+` not starting with
`q` stays as it is (most words, readable), anything else becomes `q` + the hex of its UTF-8 bytes.
SQLite FTS5 (`ascii` tokenizer) and PostgreSQL `to_tsvector('simple', …)` then split on the spaces
only, with no stemming, stopwords or folding of their own. docs/search.md has the details.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from roost.search.view import (
    context_of,
    entities_of,
    exact,
    fold,
    load_json,
    point_of,
    tags_of,
    text_tokens,
    url_values_of,
)

_PLAIN = re.compile(r"[a-pr-z0-9][a-z0-9]*")
_ALL_PLAIN = re.compile(r"[a-pr-z0-9][a-z0-9]*(?: [a-pr-z0-9][a-z0-9]*)*")  # plain tokens, one space apart

# Marker prefixes: private-use characters. The tokenizer turns a lone one in a post's text into a
# one-character token, so `<marker><value>` can never come from text.
HASHTAG = "\ue000"
MENTION = "\ue001"
CASHTAG = "\ue002"
CONTEXT = "\ue003"
CONTEXT_DOMAIN = "\ue004"
ENTITY_NAME = "\ue005"
HAS = "\ue006"
# A token no document contains: what a clause that can never match compiles to inside a text query.
NEVER = "q" + "\ue00f\ue00f".encode().hex()

HAS_FLAGS = ("hashtags", "cashtags", "links", "mentions", "media", "images", "video_link", "geo")


def encode(token: str) -> str:
    """The index form of one token (see the module docstring)."""
    return token if _PLAIN.fullmatch(token) else "q" + token.encode("utf-8").hex()


def hashtag_token(value: str) -> str:
    return encode(HASHTAG + fold(value))


def mention_token(value: str) -> str:
    return encode(MENTION + value.lower())


def cashtag_token(value: str) -> str:
    return encode(CASHTAG + value.lower())


def context_token(value: str) -> str:
    """`context:d.e` → one entity; `context:d.*` → the domain."""
    if value.endswith(".*"):
        return encode(CONTEXT_DOMAIN + value[:-2])
    return encode(CONTEXT + value)


def entity_token(value: str) -> str:
    return encode(ENTITY_NAME + exact(value))


def has_token(value: str) -> str:
    return encode(HAS + value.lower())


def _markers(
    hashtags: Iterable[str],
    mentions: Iterable[str],
    cashtags: Iterable[str],
    context: Collection[str],  # "domain_id.entity_id"
    context_names: Iterable[str],
    flags: Iterable[str],
) -> Iterable[str]:
    yield from sorted(hashtag_token(t) for t in hashtags)
    yield from sorted({mention_token(m) for m in mentions})
    yield from sorted({cashtag_token(c) for c in cashtags})
    yield from sorted({encode(CONTEXT + c) for c in context})
    yield from sorted({encode(CONTEXT_DOMAIN + c.split(".", 1)[0]) for c in context})
    yield from sorted({entity_token(n) for n in context_names})
    for flag in flags:
        yield has_token(flag)


def document_of(post: Mapping[str, Any], media_types: Iterable[str] = ()) -> tuple[str, str]:
    """The search document of a stored post (`media_types`: its media's, for has:images and
    has:video_link): space-separated index tokens (the post's own text tokens in order, then the
    markers) and its lowercased expanded / display / unwound URLs, one a line, for `url:` substring
    matches. Read from the row itself: these are the tokens and facts of `view_of(post, None)` that
    search tests, without building the matcher's whole view, which cost three times as much
    (tests/unit/test_search_document.py holds the two equal)."""
    entities = entities_of(post)
    hashtags = tags_of(entities, "hashtags")
    cashtags = tags_of(entities, "cashtags")
    mentions = [m["username"] for m in entities.get("mentions", ())]
    urls = url_values_of(entities)
    context, names = context_of(post)
    types = set(media_types)
    has_media = bool(load_json(post.get("media_keys"))) or bool(types)
    flags = {
        "hashtags": bool(hashtags),
        "cashtags": bool(cashtags),
        "links": bool(urls) or has_media,
        "mentions": bool(mentions),
        "media": has_media,
        "images": "photo" in types,
        "video_link": "video" in types,
        "geo": post.get("place_id") is not None or point_of(post) is not None,
    }
    words = _encoded(text_tokens(post.get("text"), True))
    markers = dict.fromkeys(_markers(hashtags, mentions, cashtags, context, names, _holding(flags)))
    search_text = " ".join([words, *markers]) if words else " ".join(markers)
    return search_text, "\n".join(u.lower() for u in urls)


def _encoded(tokens: Sequence[str]) -> str:
    """The tokens' index forms, space-separated: one pass of a regular expression when all are plain,
    as most posts' words are, instead of one per token."""
    joined = " ".join(tokens)
    if not joined or _ALL_PLAIN.fullmatch(joined):
        return joined
    return " ".join(map(encode, tokens))


def _holding(flags: dict[str, bool]) -> list[str]:
    """The `HAS_FLAGS` that hold, in their order."""
    return [flag for flag in HAS_FLAGS if flags[flag]]
