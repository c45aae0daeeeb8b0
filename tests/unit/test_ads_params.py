"""Ads parameter kinds: typed values, echoes and the platform's message templates."""

from __future__ import annotations

import pytest

from roost.ads.errors import ParamProblem
from roost.ads.paging import decode_cursor, encode_cursor, page_of
from roost.ads.params import (
    AdsParam,
    Bool,
    Enum,
    EnumList,
    Int,
    Long,
    LongList,
    SortBy,
    Text,
    Time,
    parse_all,
)


def test_long_rejects_text_with_the_platform_message() -> None:
    with pytest.raises(ParamProblem) as caught:
        Long().parse("tweet_ids", "123abc")
    assert caught.value.item == {
        "code": "INVALID_PARAMETER",
        "message": 'Expected Long, got "123abc" for tweet_ids',
        "parameter": "tweet_ids",
    }
    assert Long().parse("bid", "5500000").echo == 5500000
    assert Long().parse("bid", 42).value == 42  # JSON numbers in batch bodies


def test_int_bounds() -> None:
    assert Int(1, 1000).parse("count", "1000").value == 1000
    with pytest.raises(ParamProblem):
        Int(1, 1000).parse("count", "0")


def test_enum_message_lists_the_values() -> None:
    with pytest.raises(ParamProblem) as caught:
        Enum(("APP_CLICK", "APP_INSTALL")).parse("charge_by", "LINK_CLICK")
    assert (
        caught.value.item["message"]
        == 'Expected a value in APP_CLICK, APP_INSTALL, got "LINK_CLICK" for charge_by'
    )


def test_enum_aliases_accept_both_brand_spellings() -> None:
    kind = EnumList(("ALL_ON_TWITTER", "TWITTER_TIMELINE"), aliases=(("ALL_ON_SERVICE", "ALL_ON_TWITTER"),))
    assert kind.parse("placements", "ALL_ON_SERVICE,TWITTER_TIMELINE").value == [
        "ALL_ON_TWITTER",
        "TWITTER_TIMELINE",
    ]
    # repeated keys and JSON arrays are lists too
    assert kind.parse("placements", ["ALL_ON_TWITTER", "TWITTER_TIMELINE"]).echo == [
        "ALL_ON_TWITTER",
        "TWITTER_TIMELINE",
    ]


def test_booleans_accept_the_spellings_clients_send() -> None:
    for raw, value in (("true", True), ("True", True), ("false", False), ("FALSE", False), (True, True)):
        assert Bool().parse("with_deleted", raw).value is value
    with pytest.raises(ParamProblem):
        Bool().parse("with_deleted", "yes please")


def test_time_normalises_to_seconds_in_utc() -> None:
    parsed = Time().parse("start_time", "2022-06-15")
    assert parsed.echo == "2022-06-15T00:00:00Z"
    assert Time().parse("start_time", "2022-06-15T10:30:00+02:00").echo == "2022-06-15T08:30:00Z"
    with pytest.raises(ParamProblem) as caught:
        Time().parse("start_time", "")
    assert caught.value.item["message"] == 'Expected time, got "" for start_time'


def test_long_list_and_sort_by() -> None:
    assert LongList(max_items=50).parse("tweet_ids", "1,2,3").echo == [1, 2, 3]
    with pytest.raises(ParamProblem):
        LongList(max_items=2).parse("tweet_ids", "1,2,3")
    parsed = SortBy(("created_at", "name")).parse("sort_by", "name-desc")
    assert parsed.value == ("name", True) and parsed.echo == ["name-desc"]


def test_parse_all_echoes_only_what_was_sent() -> None:
    declared = (
        AdsParam("account_id", in_path=True, required=True),
        AdsParam("name", Text(max_length=5), required=True),
        AdsParam("count", Int(1, 1000), default=200),
        AdsParam("end_time", Time(), nullable=True),
    )
    values, echo, problems = parse_all(declared, {"name": "abc", "end_time": ""}, {"account_id": "x1"})
    assert problems == []
    assert values == {"account_id": "x1", "name": "abc", "count": 200, "end_time": None}
    assert echo == {"account_id": "x1", "name": "abc", "end_time": ""}
    _, _, problems = parse_all(declared, {"name": "toolong"}, {"account_id": "x1"})
    assert [p["parameter"] for p in problems] == ["name"]
    _, _, problems = parse_all(declared, {}, {"account_id": "x1"})
    assert problems == [
        {"code": "MISSING_PARAMETER", "message": '"name" is a required parameter', "parameter": "name"}
    ]


def test_cursors_round_trip_and_refuse_made_up_values() -> None:
    for offset in range(0, 5000, 7):
        assert decode_cursor(encode_cursor(offset)) == offset
    with pytest.raises(Exception) as caught:
        decode_cursor("abc")
    assert getattr(caught.value, "status", None) == 400


def test_in_memory_pages_end_with_a_null_cursor() -> None:
    items = list(range(5))
    first = page_of(items, {"count": 2})
    assert first.data == [0, 1] and first.next_cursor is not None
    last = page_of(items, {"count": 2, "cursor": encode_cursor(4)})
    assert last.data == [4] and last.next_cursor is None
