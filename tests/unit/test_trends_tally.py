"""The trends tally: hashtags, cashtags and terms counted once per post, two posts at least, the
most posts first and tags before terms of the same count."""

from __future__ import annotations

from roost.domain.trends import tally


def rows(*texts: str) -> list[dict[str, object]]:
    return [{"text": text, "created_at": 1000 + index} for index, text in enumerate(texts)]


def test_tags_and_terms_are_counted_once_per_post() -> None:
    ranked = tally(
        rows(
            "#Rust #rust release notes https://example.com/release",
            "#rust is here, release day",
            "$ACME up; $ACME again",
            "$acme and Release",
            "the other things",
        )
    )
    named = {entry.name: entry.posts for entry in ranked}
    assert named == {"release": 3, "#Rust": 2, "$ACME": 2}
    assert [entry.name for entry in ranked] == ["release", "#Rust", "$ACME"]
    assert ranked[0].since == 1000


def test_stopwords_short_words_and_single_posts_are_left_out() -> None:
    assert tally(rows("there would be", "there would be", "once only #lonely")) == []
