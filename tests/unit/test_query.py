"""The pipeline's query-string parser agrees with the standard library's."""

from __future__ import annotations

from urllib.parse import parse_qsl

from hypothesis import given
from hypothesis import strategies as st

from roost.core.wire import parse_query

PIECES = st.sampled_from(
    ["a", "ids", "tweet.fields", "=", "&", "%2C", "%ff", "+", ",", "1", "é", ";", "%", ""]
)


@given(st.lists(PIECES, max_size=12).map("".join))
def test_parse_query_matches_parse_qsl(text: str) -> None:
    raw = text.encode()
    assert parse_query(raw) == parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True)


@given(st.binary(max_size=40))
def test_parse_query_never_fails_on_bytes(raw: bytes) -> None:
    assert parse_query(raw) == parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True)


def test_plain_pairs_keep_blank_values() -> None:
    assert parse_query(b"ids=1,2&expansions=&x") == [("ids", "1,2"), ("expansions", ""), ("x", "")]
