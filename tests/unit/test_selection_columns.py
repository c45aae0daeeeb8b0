"""Selections read only the storage columns their fields and expansions need, and the renderers bound
to a selection render what the kind's renderer does.

Post lookups fetch `Selection.columns` instead of whole rows; these tests hold the column
declarations (roost.domain.objects.POST_COLUMNS, each Expansion's `columns`) to the renderer and the
expansions' reference functions over rows that exercise every field.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.fields_support import ENGINE, NOW, mention, parse, post

from roost.core.fields import POST_VOCAB, TWEET_VOCAB, RenderContext, Row
from roost.domain.objects import EXPANSIONS, render_post

KIND = ENGINE.kinds["tweet"]
FIELDS = sorted({KIND.aliases.get(name, name) for name in KIND.fields})

ROWS = [
    post(10, 1, "plain"),
    post(
        11,
        1,
        "hi @bob https://t.co/x #tag",
        entities={
            "mentions": [mention("bob", 3)],
            "hashtags": [{"start": 23, "end": 27, "tag": "tag"}],
        },
        media_keys=["3_100"],
        edit_history=[9, 11],
        in_reply_to_post_id=8,
        in_reply_to_user_id=2,
        quoted_post_id=7,
        conversation_id=8,
        place_id="01a9a39529b27f36",
        poll_id=55,
        community_id=1_600_000_000_000_000_000,
        context_annotations='[{"domain": {"id": "1"}}]',
        withheld='{"copyright": true}',
        source="roost",
        lang="fr",
        possibly_sensitive=1,
        paid_partnership=1,
        reply_settings="following",
    ),
    # A long post: `text` is the whole note, `display_text` the shown part; a mention past the cut.
    post(
        12,
        1,
        "short part and the rest @carol",
        display_text="short part",
        entities={"mentions": [mention("carol", 24)]},
        reposted_post_id=3,
    ),
]


def restricted(row: Row, columns: tuple[str, ...]) -> Row:
    return {name: row[name] for name in columns}


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("vocab_param", ["tweet.fields", "post.fields"])
def test_the_declared_columns_render_every_field_as_the_whole_row_does(field: str, vocab_param: str) -> None:
    selection = parse("tweet", {vocab_param: field})
    assert selection.columns is not None, f"{field} falls back to reading every column"
    for viewer in (None, 1):  # the author sees private metrics
        context = RenderContext(selection.vocab, viewer, now_ms=NOW)
        names = selection.fields["tweet"]
        for row in ROWS:
            whole = render_post(row, names, context)
            assert render_post(restricted(row, selection.columns), names, context) == whole


@pytest.mark.parametrize(
    "expansion", [e for e in EXPANSIONS["tweet"] if not e.via_referenced], ids=lambda e: e.name
)
def test_the_declared_columns_give_each_expansion_its_references(expansion: Any) -> None:
    # The expansion's own declaration, without the columns of the fields it implies.
    assert expansion.columns is not None, f"{expansion.name} makes lookups read every column"
    columns = (*KIND.base_columns, *expansion.columns)
    for row in ROWS:
        assert list(expansion.refs(restricted(row, columns))) == list(expansion.refs(row))
    selection = parse("tweet", {"expansions": expansion.name})
    assert selection.columns is not None and set(columns) <= set(selection.columns)


def test_referenced_expansions_read_the_reference_columns() -> None:
    selection = parse("tweet", {"expansions": "referenced_tweets.id.author_id"})
    assert selection.columns is not None
    assert {"in_reply_to_post_id", "quoted_post_id", "reposted_post_id"} <= set(selection.columns)


def test_visibility_columns_are_always_read() -> None:
    selection = parse("tweet", {"tweet.fields": "lang"})
    assert selection.columns is not None
    assert {"id", "author_id", "deleted_at", "text", "display_text"} <= set(selection.columns)


class TestBoundRenderers:
    def test_one_renderer_per_kind_is_kept_on_the_selection(self) -> None:
        selection = parse("tweet", {"tweet.fields": "created_at", "expansions": "author_id"})
        first = ENGINE.renderer(KIND, selection, selection.vocab)
        assert ENGINE.renderer(KIND, selection, selection.vocab) is first
        assert set(selection.renderers) == {"tweet"}

    def test_another_vocabulary_is_rendered_in_its_own_names_and_not_kept(self) -> None:
        selection = parse("tweet", {"tweet.fields": "public_metrics,referenced_tweets"})
        assert selection.vocab == TWEET_VOCAB
        row = ROWS[1]
        as_posts = ENGINE.renderer(KIND, selection, POST_VOCAB)(row, RenderContext(POST_VOCAB, now_ms=NOW))
        assert "repost_count" in as_posts["public_metrics"] and "referenced_posts" in as_posts
        assert "edit_history_post_ids" in as_posts
        assert selection.renderers == {}
        as_tweets = ENGINE.renderer(KIND, selection, TWEET_VOCAB)(row, RenderContext(now_ms=NOW))
        assert "retweet_count" in as_tweets["public_metrics"] and "referenced_tweets" in as_tweets

    def test_the_bound_renderer_is_the_kinds_renderer(self) -> None:
        for query in ({}, {"tweet.fields": ",".join(FIELDS)}, {"post.fields": "note_tweet,entities"}):
            selection = parse("tweet", query)
            bound = ENGINE.renderer(KIND, selection, selection.vocab)
            context = RenderContext(selection.vocab, 1, now_ms=NOW)
            for row in ROWS:
                assert bound(row, context) == render_post(row, selection.fields["tweet"], context)
