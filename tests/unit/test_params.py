"""Behaviour of roost.core.params: every parameter kind and the platform's exact validation messages."""

from __future__ import annotations

import string
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roost.core.errors import ParamError
from roost.core.pagination import PageToken
from roost.core.params import (
    MEDIA_KEY_PATTERN,
    SNOWFLAKE_PATTERN,
    USERNAME_PATTERN,
    CsvOf,
    Enum,
    EnumSet,
    IntRange,
    Kind,
    MediaKey,
    Snowflake,
    Timestamp,
    Token,
    Username,
    duplicate_parameter_message,
    empty_parameter_message,
    unknown_parameter_message,
)

ASCII_DIGITS = string.digits


def error_of(kind: Kind, name: str, raw: str) -> str:
    with pytest.raises(ParamError) as caught:
        kind.parse(name, raw)
    assert str(caught.value) == caught.value.message
    return caught.value.message


# --- Snowflake ----------------------------------------------------------------------------------
class TestSnowflake:
    @pytest.mark.parametrize(
        ("raw", "value"),
        [
            ("0", 0),
            ("1", 1),
            ("20", 20),
            ("1445880548472328192", 1445880548472328192),
            ("0000000000000000001", 1),
            ("9223372036854775807", 9223372036854775807),
        ],
    )
    def test_accepts_one_to_nineteen_digits(self, raw: str, value: int) -> None:
        assert Snowflake().parse("id", raw) == value

    def test_refuses_ids_above_the_64_bit_range(self) -> None:
        with pytest.raises(ParamError) as caught:
            Snowflake().parse("id", "9223372036854775808")
        assert caught.value.message == "The `id` query parameter value [9223372036854775808] is not valid"

    @pytest.mark.parametrize(
        "raw",
        [
            "",
            "abc",
            "-1",
            "+1",
            "1.0",
            "1e5",
            " 1",
            "1 ",
            "1\n",
            "12345678901234567890",
            "１２３",  # fullwidth digits
            "١٢٣",  # Arabic-Indic digits
            "²",
            "0x1f",
        ],
    )
    def test_rejects_with_pattern_message(self, raw: str) -> None:
        assert error_of(Snowflake(), "id", raw) == (
            f"The `id` query parameter value [{raw}] does not match ^[0-9]{{1,19}}$"
        )

    def test_message_uses_the_parameter_name(self) -> None:
        assert error_of(Snowflake(), "tweet_id", "x") == (
            "The `tweet_id` query parameter value [x] does not match ^[0-9]{1,19}$"
        )

    def test_openapi_pattern(self) -> None:
        assert SNOWFLAKE_PATTERN == "^[0-9]{1,19}$"
        assert Snowflake.openapi == {"type": "string", "pattern": SNOWFLAKE_PATTERN}

    @given(st.text(alphabet=ASCII_DIGITS, min_size=1, max_size=19).filter(lambda s: int(s) < 1 << 63))
    def test_any_digit_string_parses_to_its_int(self, raw: str) -> None:
        if int(raw) <= 2**63 - 1:
            assert Snowflake().parse("id", raw) == int(raw)
        else:
            assert error_of(Snowflake(), "id", raw) == f"The `id` query parameter value [{raw}] is not valid"

    @given(st.integers(min_value=0, max_value=2**63 - 1))
    def test_every_64_bit_id_parses(self, value: int) -> None:
        assert Snowflake().parse("id", str(value)) == value

    @given(st.text(min_size=1, max_size=25).filter(lambda s: any(c not in ASCII_DIGITS for c in s)))
    def test_any_string_with_a_non_digit_is_rejected(self, raw: str) -> None:
        assert error_of(Snowflake(), "id", raw) == (
            f"The `id` query parameter value [{raw}] does not match {SNOWFLAKE_PATTERN}"
        )

    @given(st.text(alphabet=ASCII_DIGITS, min_size=20, max_size=40))
    def test_twenty_or_more_digits_are_rejected(self, raw: str) -> None:
        with pytest.raises(ParamError):
            Snowflake().parse("id", raw)


# --- Username -----------------------------------------------------------------------------------
class TestUsername:
    @pytest.mark.parametrize("raw", ["a", "jack", "Jack_Dorsey", "_", "123", "A" * 15, "x_y_Z_0"])
    def test_accepts(self, raw: str) -> None:
        assert Username().parse("username", raw) == raw

    @pytest.mark.parametrize(
        "raw", ["", "A" * 16, "ja ck", "jäck", "@jack", "ja-ck", "ja.ck", "jack\n", "ｊａｃｋ"]
    )
    def test_rejects_with_pattern_message(self, raw: str) -> None:
        assert error_of(Username(), "username", raw) == (
            f"The `username` query parameter value [{raw}] does not match ^[A-Za-z0-9_]{{1,15}}$"
        )

    def test_openapi_pattern(self) -> None:
        assert USERNAME_PATTERN == "^[A-Za-z0-9_]{1,15}$"
        assert Username.openapi["pattern"] == USERNAME_PATTERN

    @given(st.from_regex(r"\A[A-Za-z0-9_]{1,15}\Z"))
    def test_every_pattern_match_is_accepted(self, raw: str) -> None:
        assert Username().parse("username", raw) == raw


# --- MediaKey -----------------------------------------------------------------------------------
class TestMediaKey:
    @pytest.mark.parametrize("raw", ["3_1", "7_1445880548472328192", "16_99", "13_0"])
    def test_accepts(self, raw: str) -> None:
        assert MediaKey().parse("media_key", raw) == raw

    @pytest.mark.parametrize("raw", ["", "3_", "_1", "3-1", "a_1", "3_b", "3_1_2", "31", " 3_1"])
    def test_rejects_with_pattern_message(self, raw: str) -> None:
        assert error_of(MediaKey(), "media_keys", raw) == (
            f"The `media_keys` query parameter value [{raw}] does not match ^([0-9]+)_([0-9]+)$"
        )

    def test_openapi_pattern(self) -> None:
        assert MediaKey.openapi["pattern"] == MEDIA_KEY_PATTERN == "^([0-9]+)_([0-9]+)$"


# --- CsvOf --------------------------------------------------------------------------------------
class TestCsvOf:
    def test_parses_each_item_in_order(self) -> None:
        assert CsvOf(Snowflake()).parse("ids", "3,1,2") == [3, 1, 2]

    def test_single_item(self) -> None:
        assert CsvOf(Snowflake()).parse("ids", "20") == [20]

    def test_keeps_duplicates(self) -> None:
        assert CsvOf(Snowflake()).parse("ids", "1,1") == [1, 1]

    def test_item_error_names_the_bad_item_not_the_list(self) -> None:
        assert error_of(CsvOf(Snowflake()), "ids", "1,abc,2") == (
            "The `ids` query parameter value [abc] does not match ^[0-9]{1,19}$"
        )

    def test_item_error_names_the_first_bad_item(self) -> None:
        assert error_of(CsvOf(Snowflake()), "ids", "1,x,y") == (
            "The `ids` query parameter value [x] does not match ^[0-9]{1,19}$"
        )

    def test_item_above_the_64_bit_range_is_named(self) -> None:
        assert error_of(CsvOf(Snowflake()), "ids", "1,9999999999999999999") == (
            "The `ids` query parameter value [9999999999999999999] is not valid"
        )

    def test_empty_item_is_an_item_error(self) -> None:
        assert error_of(CsvOf(Snowflake()), "ids", "1,,2") == (
            "The `ids` query parameter value [] does not match ^[0-9]{1,19}$"
        )

    def test_trailing_comma_is_an_empty_item(self) -> None:
        assert error_of(CsvOf(Username()), "usernames", "jack,") == (
            "The `usernames` query parameter value [] does not match ^[A-Za-z0-9_]{1,15}$"
        )

    def test_item_error_of_username_items(self) -> None:
        assert error_of(CsvOf(Username()), "usernames", "jack,not valid") == (
            "The `usernames` query parameter value [not valid] does not match ^[A-Za-z0-9_]{1,15}$"
        )

    def test_item_error_without_a_pattern_is_not_valid(self) -> None:
        assert (
            error_of(CsvOf(IntRange(1, 10)), "n", "1,x") == "The `n` query parameter value [x] is not valid"
        )

    def test_empty_value_is_below_the_minimum(self) -> None:
        assert error_of(CsvOf(Snowflake()), "ids", "") == (
            "The number of values in the `ids` query parameter list [0] is not between 1 and 100"
        )

    def test_default_maximum_is_one_hundred(self) -> None:
        assert len(CsvOf(Snowflake()).parse("ids", ",".join(["1"] * 100))) == 100
        assert error_of(CsvOf(Snowflake()), "ids", ",".join(["1"] * 101)) == (
            "The number of values in the `ids` query parameter list [101] is not between 1 and 100"
        )

    def test_custom_bounds(self) -> None:
        kind = CsvOf(Username(), max_items=3, min_items=2)
        assert kind.parse("usernames", "a,b") == ["a", "b"]
        assert kind.parse("usernames", "a,b,c") == ["a", "b", "c"]
        assert error_of(kind, "usernames", "a") == (
            "The number of values in the `usernames` query parameter list [1] is not between 2 and 3"
        )
        assert error_of(kind, "usernames", "a,b,c,d") == (
            "The number of values in the `usernames` query parameter list [4] is not between 2 and 3"
        )

    def test_length_is_checked_before_items(self) -> None:
        assert error_of(CsvOf(Snowflake(), max_items=2), "ids", "x,y,z") == (
            "The number of values in the `ids` query parameter list [3] is not between 1 and 2"
        )

    def test_openapi(self) -> None:
        assert CsvOf(Snowflake(), max_items=50).openapi == {
            "type": "array",
            "items": {"type": "string", "pattern": SNOWFLAKE_PATTERN},
            "minItems": 1,
            "maxItems": 50,
        }

    @given(st.lists(st.integers(min_value=0, max_value=(1 << 63) - 1), min_size=1, max_size=100))
    def test_any_list_within_bounds_round_trips(self, ids: list[int]) -> None:
        assert CsvOf(Snowflake()).parse("ids", ",".join(map(str, ids))) == ids

    @given(st.integers(min_value=101, max_value=300))
    def test_any_list_over_the_bound_is_refused_with_its_length(self, count: int) -> None:
        assert error_of(CsvOf(Snowflake()), "ids", ",".join(["1"] * count)) == (
            f"The number of values in the `ids` query parameter list [{count}] is not between 1 and 100"
        )

    @given(
        st.integers(min_value=1, max_value=20),
        st.integers(min_value=0, max_value=20),
        st.integers(min_value=1, max_value=40),
    )
    def test_length_bound_property(self, low: int, extra: int, count: int) -> None:
        kind = CsvOf(Snowflake(), max_items=low + extra, min_items=low)
        raw = ",".join(["7"] * count)
        if low <= count <= low + extra:
            assert kind.parse("ids", raw) == [7] * count
        else:
            assert error_of(kind, "ids", raw) == (
                f"The number of values in the `ids` query parameter list [{count}] is not between "
                f"{low} and {low + extra}"
            )


# --- IntRange -----------------------------------------------------------------------------------
class TestIntRange:
    KIND = IntRange(5, 100)

    @pytest.mark.parametrize(("raw", "value"), [("5", 5), ("10", 10), ("100", 100), ("007", 7)])
    def test_accepts_within_bounds(self, raw: str, value: int) -> None:
        assert self.KIND.parse("max_results", raw) == value

    @pytest.mark.parametrize("raw", ["4", "0", "101", "1000000", "-1", "-5", "-0", "999999999999999999"])
    def test_out_of_range(self, raw: str) -> None:
        assert error_of(self.KIND, "max_results", raw) == (
            f"The `max_results` query parameter value [{raw}] is not between 5 and 100"
        )

    @pytest.mark.parametrize(
        "raw", ["", "abc", "1.5", "10.0", "1e3", "0x10", "ten", "5a", "--5", "-", "+-5", "1_000"]
    )
    def test_non_integers(self, raw: str) -> None:
        assert error_of(self.KIND, "max_results", raw) == (
            f"The `max_results` query parameter value [{raw}] is not a valid Int"
        )

    @pytest.mark.parametrize(
        "raw", ["99999999999999999999", "-99999999999999999999", "1" * 40, "9" * 5000, "-" + "9" * 19]
    )
    def test_huge_values_are_not_valid_ints(self, raw: str) -> None:
        assert error_of(self.KIND, "max_results", raw) == (
            f"The `max_results` query parameter value [{raw}] is not a valid Int"
        )

    def test_negative_bounds(self) -> None:
        kind = IntRange(-10, -1)
        assert kind.parse("offset", "-10") == -10
        assert kind.parse("offset", "-1") == -1
        assert (
            error_of(kind, "offset", "0")
            == "The `offset` query parameter value [0] is not between -10 and -1"
        )

    def test_superscript_digit_is_not_a_valid_int(self) -> None:
        assert error_of(self.KIND, "max_results", "²") == (
            "The `max_results` query parameter value [²] is not a valid Int"
        )

    def test_openapi(self) -> None:
        assert self.KIND.openapi == {"type": "integer", "minimum": 5, "maximum": 100}

    @given(st.integers(min_value=5, max_value=100))
    def test_every_value_in_range_parses(self, value: int) -> None:
        assert self.KIND.parse("max_results", str(value)) == value

    @given(st.integers(min_value=-(10**16), max_value=10**17).filter(lambda v: not 5 <= v <= 100))
    def test_every_value_out_of_range_is_refused(self, value: int) -> None:
        assert error_of(self.KIND, "max_results", str(value)) == (
            f"The `max_results` query parameter value [{value}] is not between 5 and 100"
        )


# --- Enum and EnumSet ---------------------------------------------------------------------------
class TestEnum:
    KIND = Enum(("recency", "relevancy"))

    @pytest.mark.parametrize("raw", ["recency", "relevancy"])
    def test_accepts(self, raw: str) -> None:
        assert self.KIND.parse("sort_order", raw) == raw

    @pytest.mark.parametrize("raw", ["", "foo", "Recency", "recency,relevancy", " recency"])
    def test_rejects_listing_values_in_declared_order(self, raw: str) -> None:
        assert error_of(self.KIND, "sort_order", raw) == (
            f"The `sort_order` query parameter value [{raw}] is not one of [recency,relevancy]"
        )

    def test_openapi(self) -> None:
        assert self.KIND.openapi == {"type": "string", "enum": ["recency", "relevancy"]}


class TestEnumSet:
    KIND = EnumSet(("retweets", "replies"))

    @pytest.mark.parametrize(
        ("raw", "value"),
        [
            ("retweets", {"retweets"}),
            ("replies", {"replies"}),
            ("retweets,replies", {"retweets", "replies"}),
            ("replies,retweets,replies", {"retweets", "replies"}),
        ],
    )
    def test_accepts_subsets(self, raw: str, value: set[str]) -> None:
        parsed = self.KIND.parse("exclude", raw)
        assert isinstance(parsed, frozenset)
        assert parsed == value

    @pytest.mark.parametrize(
        ("raw", "bad"), [("foo", "foo"), ("retweets,foo", "foo"), ("", ""), ("a,b", "a")]
    )
    def test_rejects_naming_the_bad_item(self, raw: str, bad: str) -> None:
        assert error_of(self.KIND, "exclude", raw) == (
            f"The `exclude` query parameter value [{bad}] is not one of [retweets,replies]"
        )

    def test_openapi(self) -> None:
        assert self.KIND.openapi == {
            "type": "array",
            "items": {"type": "string", "enum": ["retweets", "replies"]},
        }


# --- Timestamp ----------------------------------------------------------------------------------
class TestTimestamp:
    @pytest.mark.parametrize(
        ("raw", "ms"),
        [
            ("2021-10-07T07:41:18Z", 1633592478000),
            ("2021-10-07T07:41:18z", 1633592478000),
            ("2021-10-07t07:41:18Z", 1633592478000),
            ("2021-10-07T07:41:18.000Z", 1633592478000),
            ("2021-10-07T07:41:18.123Z", 1633592478123),
            ("2021-10-07T07:41:18.5Z", 1633592478500),
            ("2021-10-07T07:41:18.123456Z", 1633592478123),
            ("2021-10-07T07:41:18+00:00", 1633592478000),
            ("2021-10-07T09:41:18+02:00", 1633592478000),
            ("2021-10-07T02:11:18-05:30", 1633592478000),
            ("2021-10-07T09:41:18.250+02:00", 1633592478250),
            ("1970-01-01T00:00:00Z", 0),
            ("2010-11-04T01:42:54.657Z", 1288834974657),
        ],
    )
    def test_accepts_rfc3339(self, raw: str, ms: int) -> None:
        assert Timestamp().parse("start_time", raw) == ms

    @pytest.mark.parametrize(
        "raw",
        [
            "",
            "yesterday",
            "1633592478",
            "2021-10-07",
            "2021-10-07T07:41",
            "2021-10-07T07:41Z",
            "2021-10-07T07:41:18",  # no offset
            "2021-13-07T07:41:18Z",
            "2021-02-30T07:41:18Z",
            "2021-10-07T25:41:18Z",
            "2021-10-07X07:41:18Z",
            "07/10/2021 07:41:18Z",
            "2021-10-07T07:41:18+25:00",
        ],
    )
    def test_rejects_garbage(self, raw: str) -> None:
        assert error_of(Timestamp(), "start_time", raw) == (
            f"The `start_time` query parameter value [{raw}] is not a valid RFC3339 date-time"
        )

    def test_millisecond_fraction_is_exact(self) -> None:
        assert Timestamp().parse("start_time", "1987-05-10T10:40:21.915Z") == 547641621915

    def test_openapi(self) -> None:
        assert Timestamp.openapi == {"type": "string", "format": "date-time"}

    @given(st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2100, 1, 1)))
    def test_whole_seconds_round_trip(self, moment: datetime) -> None:
        whole = moment.replace(microsecond=0, tzinfo=UTC)
        raw = whole.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert Timestamp().parse("end_time", raw) == int(whole.timestamp()) * 1000


# --- Token and the plain kind -------------------------------------------------------------------
class TestToken:
    @pytest.mark.parametrize("raw", ["a", "7140dibdnow9c7btw423", "5CS0O0C6II61EZZZ"])
    def test_any_non_empty_value_passes_through(self, raw: str) -> None:
        assert Token().parse("pagination_token", raw) == PageToken("pagination_token", raw)

    def test_empty_is_not_a_valid_token(self) -> None:
        assert error_of(Token(), "pagination_token", "") == (
            "The `pagination_token` query parameter value [] is not a valid token"
        )
        assert (
            error_of(Token(), "next_token", "")
            == "The `next_token` query parameter value [] is not a valid token"
        )

    def test_openapi(self) -> None:
        assert Token.openapi == {"type": "string", "minLength": 1}


def test_plain_kind_returns_the_raw_string() -> None:
    assert Kind().parse("query", "from:jack") == "from:jack"
    assert Kind.openapi == {"type": "string"}


def test_param_error_carries_its_message() -> None:
    error = ParamError("boom")
    assert error.message == "boom"
    assert str(error) == "boom"


# --- request-level messages ---------------------------------------------------------------------
def test_unknown_parameter_message() -> None:
    allowed = [
        "id",
        "expansions",
        "tweet.fields",
        "media.fields",
        "poll.fields",
        "place.fields",
        "user.fields",
    ]
    assert unknown_parameter_message("dummy", allowed) == (
        "The query parameter [dummy] is not one of "
        "[id,expansions,tweet.fields,media.fields,poll.fields,place.fields,user.fields]"
    )


def test_duplicate_parameter_message() -> None:
    assert (
        duplicate_parameter_message("id") == "Duplicate parameters are not allowed: the `id` query parameter"
    )


def test_empty_parameter_message() -> None:
    assert empty_parameter_message("query") == "The `query` query parameter can not be empty"
