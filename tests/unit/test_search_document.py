"""The search document is read from the post row (`document_of`) for speed, but must hold exactly
the tokens and facts the matcher reads from its `PostView` of the same row: text tokens in order,
then the markers of every set the search operators test, then the `has:` flags as `_HAS` decides
them. Generated rows cover accents, scripts, emoji, URLs, tags, mentions, context annotations,
media kinds, places and coordinates."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from roost.domain.text import extract_entities
from roost.search.document import (
    CONTEXT,
    CONTEXT_DOMAIN,
    ENTITY_NAME,
    HAS_FLAGS,
    cashtag_token,
    document_of,
    encode,
    has_token,
    hashtag_token,
    mention_token,
)
from roost.search.matcher import _HAS
from roost.search.view import PostView, view_of

WORDS = ["cafe", "Café", "naïve", "Straße", "İstanbul", "日本", "😀", "€", "q", "quick", "foo_bar", "x-api"]
TAGS = ["#cats", "#Señal", "$ACME", "$acme", "#über", "@alice", "@Bob", "https://t.co/abc", "http://x.co/Y"]
ANNOTATIONS = [
    {"domain": {"id": "10", "name": "Person"}, "entity": {"id": "799", "name": "Ada Lovelace"}},
    {"domain": {"id": "10", "name": "Person"}, "entity": {"id": "800", "name": "Émile Zola"}},
    {"domain": {"id": "46", "name": "Brand"}, "entity": {"id": "1", "name": "ACME"}},
    {"entity": {"id": "2"}},  # no domain, no name
    {"domain": {"id": "3"}},  # no entity
]


@st.composite
def post_rows(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    parts = draw(st.lists(st.sampled_from(WORDS + TAGS), max_size=10))
    text = " ".join(parts)
    entities = extract_entities(text)
    if any(part.startswith("http") for part in parts):
        entities["urls"] = [
            {
                "url": "https://t.co/abc",
                "expanded_url": "https://Example.com/Path",
                "display_url": "example.com/P",
            },
            {"url": "http://x.co/Y", "expanded_url": "http://x.co/Y", "unwound_url": "https://Unwound.io/A"},
        ]
    annotations = draw(st.lists(st.sampled_from(ANNOTATIONS), max_size=3))
    row = {
        "id": 1,
        "author_id": 7,
        "text": draw(st.sampled_from([text, text, None])),
        "entities": json.dumps(entities) if entities else draw(st.sampled_from([None, ""])),
        "context_annotations": json.dumps(annotations) if annotations else None,
        "media_keys": draw(st.sampled_from([None, "[]", '["3_1"]'])),
        "place_id": draw(st.sampled_from([None, "01a9a39529b27f36"])),
    }
    if draw(st.booleans()):
        row["coordinates"] = draw(st.sampled_from([None, {"type": "Point", "coordinates": [-0.1, 51.5]}]))
    types = draw(st.lists(st.sampled_from(["photo", "video", "animated_gif"]), max_size=2))
    return row, types


def matcher_document(view: PostView) -> tuple[str, str]:
    """The document as the matcher's view defines it."""
    markers = [
        *sorted(hashtag_token(t) for t in view.hashtags),
        *sorted({mention_token(m) for m in view.mention_set}),
        *sorted({cashtag_token(c) for c in view.cashtag_set}),
        *sorted({encode(CONTEXT + c) for c in view.context_set}),
        *sorted({encode(CONTEXT_DOMAIN + d) for d in view.context_domains}),
        *sorted({encode(ENTITY_NAME + n) for n in view.context_name_set}),
        *(has_token(flag) for flag in HAS_FLAGS if _HAS[flag](view, "search")),
    ]
    words = [encode(t) for t in view.search_seqs[0]] + list(dict.fromkeys(markers))
    return " ".join(words), "\n".join(view.url_values)


@settings(max_examples=400, deadline=None)
@given(post_rows())
def test_the_document_holds_what_the_matcher_reads(post: tuple[dict[str, Any], list[str]]) -> None:
    row, media_types = post
    assert document_of(row, media_types) == matcher_document(view_of(row, None, media_types=media_types))


def test_a_rich_post_has_every_kind_of_marker() -> None:
    text = "Café #Señal $ACME @Bob https://t.co/abc 😀"
    entities = extract_entities(text)
    entities["urls"] = [
        {"url": "https://t.co/abc", "expanded_url": "https://Example.com/P", "display_url": "e.com"}
    ]
    row = {
        "id": 1,
        "text": text,
        "entities": json.dumps(entities),
        "context_annotations": json.dumps(ANNOTATIONS[:1]),
        "media_keys": '["3_1"]',
        "place_id": "01a9a39529b27f36",
    }
    search_text, urls = document_of(row, ["photo"])
    tokens = search_text.split(" ")
    assert tokens[:5] == ["cafe", "senal", "acme", "bob", encode("😀")]  # folded; the URL left out
    assert {hashtag_token("señal"), mention_token("bob"), cashtag_token("acme")} <= set(tokens)
    assert {
        encode(CONTEXT + "10.799"),
        encode(CONTEXT_DOMAIN + "10"),
        encode(ENTITY_NAME + "ada lovelace"),
    } <= set(tokens)
    assert [t for t in tokens if t in {has_token(f) for f in HAS_FLAGS}] == [
        has_token(f) for f in ("hashtags", "cashtags", "links", "mentions", "media", "images", "geo")
    ]
    assert urls == "https://example.com/p\ne.com"
