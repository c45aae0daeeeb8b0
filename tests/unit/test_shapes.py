"""The reference-shape checker the payload tests rely on finds what it must: a missing key, an extra
one, a wrong type, a string of the wrong form, at the path where it is."""

from __future__ import annotations

from tests.support.shapes import DIGITS, ISO_MS, Either, MapOf, Opt, problems

DELETE = {"data": {"delete": {"tweet": {"id": DIGITS, "author_id": DIGITS}, "event_at": ISO_MS}}}
GOOD = {"data": {"delete": {"tweet": {"id": "1", "author_id": "2"}, "event_at": "2022-12-23T12:34:56.789Z"}}}


def test_a_matching_value_has_no_problems() -> None:
    assert problems(GOOD, DELETE) == []
    assert problems({"a": 1}, {"a": int, "b": Opt(str)}) == []


def test_missing_extra_and_mistyped_keys_are_named_by_path() -> None:
    assert problems({"data": {"delete": {"tweet": {"id": "1"}, "event_at": "x"}}}, DELETE) == [
        "$.data.delete.tweet.author_id: missing",
        "$.data.delete.event_at: 'x' does not match " + ISO_MS.pattern,
    ]
    extra = {"data": {"delete": {**GOOD["data"]["delete"], "quote_tweet_id": "3"}}}
    assert problems(extra, DELETE) == ["$.data.delete.quote_tweet_id: not in the reference shape"]
    assert problems({"n": True}, {"n": int}) == ["$.n: bool True, int expected"]
    assert problems({"t": "message"}, {"t": "message_create"}) == [
        "$.t: 'message', 'message_create' expected"
    ]
    assert problems({"l": [1, "2"]}, {"l": [int]}) == ["$.l[1]: str '2', int expected"]


def test_the_other_timestamp_form_is_refused() -> None:
    plus_zero = {"data": {"delete": {**GOOD["data"]["delete"], "event_at": "2022-06-27T23:49:41.839+00:00"}}}
    assert problems(plus_zero, DELETE) != []


def test_maps_and_alternatives() -> None:
    assert problems({"u": {"7": {}}}, {"u": MapOf(DIGITS, {"id": str})}) == ["$.u.7.id: missing"]
    assert problems({"u": {"x": {"id": "1"}}}, {"u": MapOf(DIGITS, {"id": str})}) != []
    assert problems([None, 3], [Either(int, None)]) == []
    assert problems(["3"], [Either(int, None)]) != []
