"""The search document of a post: the normalised text the database's full-text index holds.

Computed in Python at write time from the same `PostView` the matcher reads, so the tokens the index
sees are exactly the matcher's search tokens (case- and accent-folded, URLs removed, emoji and
non-ASCII symbols as tokens of their own). Entity and attribute facts that operators test by set
membership (`#tag`, `@name`, `$tag`, `context:`, `entity:`, `has:`) become marker tokens after the
text tokens, so they are index look-ups too.

Every token is written in a form both full-text engines keep whole: `[a-z0-9]+` not starting with
`q` stays as it is (most words, readable), anything else becomes `q` + the hex of its UTF-8 bytes.
SQLite FTS5 (`ascii` tokenizer) and PostgreSQL `to_tsvector('simple', …)` then split on the spaces
only, with no stemming, stopwords or folding of their own. docs/search.md has the details.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from roost.search.matcher import _HAS  # the matcher's own has:* tests, so index and matcher agree
from roost.search.view import PostView, exact, fold

_PLAIN = re.compile(r"[a-pr-z0-9][a-z0-9]*")

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


def _markers(view: PostView) -> Iterable[str]:
    yield from sorted(hashtag_token(t) for t in view.hashtags)
    yield from sorted({mention_token(m) for m in view.mention_set})
    yield from sorted({cashtag_token(c) for c in view.cashtag_set})
    yield from sorted({encode(CONTEXT + c) for c in view.context_set})
    yield from sorted({encode(CONTEXT_DOMAIN + d) for d in view.context_domains})
    yield from sorted({encode(ENTITY_NAME + n) for n in view.context_name_set})
    for flag in HAS_FLAGS:
        if _HAS[flag](view, "search"):
            yield has_token(flag)


def search_text(view: PostView) -> str:
    """Space-separated index tokens: the post's own text tokens in order, then the markers."""
    words = [encode(t) for t in view.search_seqs[0]]
    words.extend(dict.fromkeys(_markers(view)))
    return " ".join(words)


def search_urls(view: PostView) -> str:
    """Lowercased expanded / display / unwound URLs, one a line, for `url:` substring matches."""
    return "\n".join(view.url_values)
