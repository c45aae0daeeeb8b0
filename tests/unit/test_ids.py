"""Behaviour of roost.core.ids (snowflakes, media keys, tokens) and roost.core.clock."""

from __future__ import annotations

import itertools
import string
import time
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roost.core.clock import Clock, iso_ms, parse_rfc3339
from roost.core.ids import (
    MAX_SNOWFLAKE,
    MEDIA_TYPE_DIGITS,
    PLATFORM_EPOCH_MS,
    SnowflakeGenerator,
    TokenSource,
    media_key,
    snowflake_floor,
    snowflake_ms,
)

T0 = 1_700_000_000_123  # 2023-11-14T22:13:20.123Z
MAX_41_BITS = (1 << 41) - 1


def wall_ms() -> int:
    """The wall clock as `Clock` reads it. Readings taken before and after an operation bracket exactly
    what a running clock may show during it, with no tolerance to guess."""
    return int(time.time() * 1000)


def wait_for_wall_clock_past(ms: int) -> None:
    """Until the wall clock reads later than `ms`: a running clock would have moved by then."""
    while wall_ms() <= ms:
        time.sleep(0.001)


def layout(ms: int, datacenter: int, worker: int, sequence: int) -> int:
    return (ms - PLATFORM_EPOCH_MS) << 22 | datacenter << 17 | worker << 12 | sequence


def fields_of(snowflake: int) -> tuple[int, int, int, int]:
    """(ms, datacenter, worker, sequence)."""
    return (
        (snowflake >> 22) + PLATFORM_EPOCH_MS,
        (snowflake >> 17) & 0x1F,
        (snowflake >> 12) & 0x1F,
        snowflake & 0xFFF,
    )


# --- SnowflakeGenerator -------------------------------------------------------------------------
class TestSnowflakeGenerator:
    def test_constants(self) -> None:
        assert PLATFORM_EPOCH_MS == 1288834974657
        assert MAX_SNOWFLAKE == 2**63 - 1

    def test_layout_of_the_first_id(self) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0), datacenter=3, worker=9)
        assert generator.next_id() == layout(T0, 3, 9, 0)

    def test_default_node(self) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0))
        assert fields_of(generator.next_id()) == (T0, 1, 1, 0)

    def test_known_value(self) -> None:
        # 2021-10-07T07:41:18.000Z on datacenter 0, worker 0, sequence 0.
        generator = SnowflakeGenerator(Clock(frozen_ms=1633592478000), datacenter=0, worker=0)
        assert generator.next_id() == (1633592478000 - 1288834974657) << 22

    def test_node_bits_are_masked_to_five_bits(self) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0), datacenter=32 + 2, worker=64 + 5)
        assert fields_of(generator.next_id()) == (T0, 2, 5, 0)

    def test_frozen_clock_counts_the_sequence(self) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0), datacenter=2, worker=4)
        ids = [generator.next_id() for _ in range(5)]
        assert ids == [layout(T0, 2, 4, seq) for seq in range(5)]

    def test_strictly_increasing_with_a_frozen_clock(self) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0))
        ids = [generator.next_id() for _ in range(10_000)]
        assert all(a < b for a, b in itertools.pairwise(ids))

    def test_new_millisecond_resets_the_sequence(self) -> None:
        clock = Clock(frozen_ms=T0)
        generator = SnowflakeGenerator(clock, datacenter=1, worker=2)
        generator.next_id()
        generator.next_id()
        clock.advance(0.005)
        assert generator.next_id() == layout(T0 + 5, 1, 2, 0)

    def test_strictly_increasing_when_the_clock_moves_backwards(self) -> None:
        clock = Clock(frozen_ms=T0)
        generator = SnowflakeGenerator(clock)
        first = generator.next_id()
        clock.set(T0 - 60_000)
        second = generator.next_id()
        clock.advance(-3600)
        third = generator.next_id()
        assert first < second < third
        # Ids never go back in time even though the clock did.
        assert snowflake_ms(third) == T0

    def test_running_clock_ids_increase(self) -> None:
        generator = SnowflakeGenerator(Clock())
        earliest = wall_ms()
        ids = [generator.next_id() for _ in range(1000)]
        latest = wall_ms()
        assert ids == sorted(set(ids))
        # 1,000 ids fit in one millisecond's sequence numbers: none is stamped ahead of the clock.
        assert earliest <= snowflake_ms(ids[0]) <= snowflake_ms(ids[-1]) <= latest

    def test_observe_never_hands_out_an_id_at_or_below_an_observed_one(self) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0))
        stored = layout(T0 + 86_400_000, 7, 7, 123)  # from the future (an import, another node)
        generator.observe(stored)
        assert generator.next_id() > stored

    def test_observe_of_an_older_id_changes_nothing(self) -> None:
        reference = SnowflakeGenerator(Clock(frozen_ms=T0))
        generator = SnowflakeGenerator(Clock(frozen_ms=T0))
        generator.observe(layout(T0 - 1000, 1, 1, 0))
        assert generator.next_id() == reference.next_id()

    def test_observe_after_ids_were_handed_out(self) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0))
        handed = generator.next_id()
        generator.observe(handed - 10)
        assert generator.next_id() > handed

    @given(st.lists(st.integers(min_value=1, max_value=MAX_SNOWFLAKE - 1_000_000), min_size=1, max_size=20))
    def test_observe_property(self, observed: list[int]) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0))
        handed: list[int] = []
        for value in observed:
            generator.observe(value)
            handed.append(generator.next_id())
            assert handed[-1] > value
        assert all(a < b for a, b in itertools.pairwise(handed))
        assert handed[-1] > max(observed)

    def test_sequence_overflow_keeps_the_node_bits(self) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0), datacenter=3, worker=9)
        ids = [generator.next_id() for _ in range(4097)]
        assert all(a < b for a, b in itertools.pairwise(ids))
        assert {fields_of(i)[1:3] for i in ids} == {(3, 9)}


class TestSnowflakeTime:
    def test_snowflake_ms_of_a_generated_id(self) -> None:
        generator = SnowflakeGenerator(Clock(frozen_ms=T0), datacenter=31, worker=31)
        assert snowflake_ms(generator.next_id()) == T0

    def test_snowflake_ms_known_value(self) -> None:
        # The top 41 bits of a platform id are milliseconds since 2010-11-04T01:42:54.657Z.
        assert snowflake_ms(1445880548472328192) == 1633559760574
        assert iso_ms(snowflake_ms(1445880548472328192)) == "2021-10-06T22:36:00.574Z"

    def test_snowflake_floor(self) -> None:
        assert snowflake_floor(T0) == (T0 - PLATFORM_EPOCH_MS) << 22
        assert snowflake_floor(PLATFORM_EPOCH_MS) == 0

    def test_snowflake_floor_before_the_epoch_is_zero(self) -> None:
        assert snowflake_floor(0) == 0
        assert snowflake_floor(PLATFORM_EPOCH_MS - 1) == 0

    @given(st.integers(min_value=PLATFORM_EPOCH_MS, max_value=PLATFORM_EPOCH_MS + MAX_41_BITS))
    def test_round_trip(self, ms: int) -> None:
        assert snowflake_ms(snowflake_floor(ms)) == ms

    @given(
        st.integers(min_value=PLATFORM_EPOCH_MS + 1, max_value=PLATFORM_EPOCH_MS + MAX_41_BITS),
        st.integers(min_value=0, max_value=31),
        st.integers(min_value=0, max_value=31),
    )
    def test_floor_bounds_ids_of_that_millisecond(self, ms: int, datacenter: int, worker: int) -> None:
        at = SnowflakeGenerator(Clock(frozen_ms=ms), datacenter, worker).next_id()
        before = SnowflakeGenerator(Clock(frozen_ms=ms - 1), datacenter, worker).next_id()
        assert snowflake_floor(ms) <= at
        assert before < snowflake_floor(ms)
        assert snowflake_ms(at) == ms

    def test_ids_fit_in_63_bits_until_the_41_bit_horizon(self) -> None:
        last = SnowflakeGenerator(Clock(frozen_ms=PLATFORM_EPOCH_MS + MAX_41_BITS), 31, 31).next_id()
        assert 0 < last <= MAX_SNOWFLAKE


# --- media keys ---------------------------------------------------------------------------------
class TestMediaKey:
    @pytest.mark.parametrize(
        ("media_type", "expected"),
        [
            ("photo", "3_1445880548472328192"),
            ("video", "7_1445880548472328192"),
            ("animated_gif", "16_1445880548472328192"),
            ("amplify_video", "13_1445880548472328192"),
        ],
    )
    def test_prefixes(self, media_type: str, expected: str) -> None:
        assert media_key(media_type, 1445880548472328192) == expected

    def test_unknown_type_falls_back_to_photo(self) -> None:
        assert media_key("hologram", 5) == "3_5"

    def test_table(self) -> None:
        assert MEDIA_TYPE_DIGITS["photo"] == 3
        assert MEDIA_TYPE_DIGITS["video"] == 7
        assert MEDIA_TYPE_DIGITS["animated_gif"] == 16


# --- TokenSource --------------------------------------------------------------------------------
class TestTokenSource:
    def test_same_seed_same_sequence(self) -> None:
        a, b = TokenSource(seed=42), TokenSource(seed=42)
        assert [a.token() for _ in range(5)] == [b.token() for _ in range(5)]
        assert [a.randint(0, 10**9) for _ in range(5)] == [b.randint(0, 10**9) for _ in range(5)]

    def test_different_seeds_differ(self) -> None:
        assert TokenSource(seed=1).token() != TokenSource(seed=2).token()

    def test_successive_tokens_differ(self) -> None:
        source = TokenSource(seed=7)
        assert len({source.token() for _ in range(100)}) == 100

    def test_default_length_and_alphabet(self) -> None:
        token = TokenSource(seed=3).token()
        assert len(token) == 40
        assert set(token) <= set(string.ascii_letters + string.digits)

    def test_custom_length_and_alphabet(self) -> None:
        token = TokenSource(seed=3).token(16, "01")
        assert len(token) == 16
        assert set(token) <= {"0", "1"}

    def test_randint_bounds(self) -> None:
        source = TokenSource(seed=9)
        values = [source.randint(3, 5) for _ in range(200)]
        assert set(values) == {3, 4, 5}

    def test_unseeded_source_is_random(self) -> None:
        a, b = TokenSource(), TokenSource()
        assert a.token() != b.token()


# --- Clock --------------------------------------------------------------------------------------
class TestClock:
    def test_frozen_clock_stands_still(self) -> None:
        clock = Clock(frozen_ms=T0)
        assert clock.now_ms() == T0
        wait_for_wall_clock_past(wall_ms())
        assert clock.now_ms() == T0
        assert clock.now() == T0 / 1000.0

    def test_advance_frozen(self) -> None:
        clock = Clock(frozen_ms=T0)
        clock.advance(1.5)
        assert clock.now_ms() == T0 + 1500
        clock.advance(-0.5)
        assert clock.now_ms() == T0 + 1000

    def test_set_frozen(self) -> None:
        clock = Clock(frozen_ms=T0)
        clock.set(5)
        assert clock.now_ms() == 5

    def test_running_clock_follows_wall_time(self) -> None:
        clock = Clock()
        earliest = wall_ms()
        now = clock.now_ms()
        assert earliest <= now <= wall_ms()

    def test_offset(self) -> None:
        clock = Clock(offset_ms=3_600_000)
        earliest = wall_ms()
        now = clock.now_ms()
        assert earliest + 3_600_000 <= now <= wall_ms() + 3_600_000

    def test_advance_running_clock_keeps_running(self) -> None:
        clock = Clock()
        started = wall_ms()
        before = clock.now_ms()
        clock.advance(86_400)
        after = clock.now_ms()
        # A day more, plus the wall time that passed between the two readings.
        assert 0 <= after - before - 86_400_000 <= wall_ms() - started
        wait_for_wall_clock_past(after - 86_400_000)
        assert clock.now_ms() > after

    def test_set_running_clock(self) -> None:
        clock = Clock()
        started = wall_ms()
        clock.set(T0)
        assert T0 <= clock.now_ms() <= T0 + (wall_ms() - started)
        started = wall_ms()
        clock.set(0)
        assert 0 <= clock.now_ms() <= wall_ms() - started

    def test_freeze_pins_the_current_instant(self) -> None:
        clock = Clock()
        started = wall_ms()
        clock.set(T0)
        clock.freeze()
        pinned = clock.now_ms()
        assert T0 <= pinned <= T0 + (wall_ms() - started)
        wait_for_wall_clock_past(wall_ms())
        assert clock.now_ms() == pinned

    def test_freeze_at(self) -> None:
        clock = Clock()
        clock.freeze(T0)
        assert clock.now_ms() == T0
        clock.advance(2)
        assert clock.now_ms() == T0 + 2000
        clock.set(T0 - 1)
        assert clock.now_ms() == T0 - 1

    def test_advance_by_fractional_seconds_is_exact(self) -> None:
        clock = Clock(frozen_ms=0)
        clock.advance(1.001)
        assert clock.now_ms() == 1001


class TestIsoMs:
    @pytest.mark.parametrize(
        ("ms", "text"),
        [
            (0, "1970-01-01T00:00:00.000Z"),
            (1, "1970-01-01T00:00:00.001Z"),
            (999, "1970-01-01T00:00:00.999Z"),
            (1633592478000, "2021-10-07T07:41:18.000Z"),
            (1633592478042, "2021-10-07T07:41:18.042Z"),
            (PLATFORM_EPOCH_MS, "2010-11-04T01:42:54.657Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (951782400000, "2000-02-29T00:00:00.000Z"),
        ],
    )
    def test_format(self, ms: int, text: str) -> None:
        assert iso_ms(ms) == text

    @given(st.integers(min_value=0, max_value=253402300799999))
    def test_shape_and_agreement_with_datetime(self, ms: int) -> None:
        text = iso_ms(ms)
        assert len(text) == 24
        assert text[4] == "-" and text[7] == "-" and text[10] == "T" and text[19] == "." and text[-1] == "Z"
        expected = (
            datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"
        )
        assert text == expected


class TestParseRfc3339:
    @pytest.mark.parametrize(
        ("text", "ms"),
        [
            ("2021-10-07T07:41:18Z", 1633592478000),
            ("2021-10-07T07:41:18.000Z", 1633592478000),
            ("2021-10-07T07:41:18.042Z", 1633592478042),
            ("2021-10-07T07:41:18.9Z", 1633592478900),
            ("2021-10-07T07:41:18.123456789Z", 1633592478123),
            ("2021-10-07t07:41:18z", 1633592478000),
            ("2021-10-07T08:41:18+01:00", 1633592478000),
            ("2021-10-07T00:11:18-07:30", 1633592478000),
            ("1969-12-31T23:59:59Z", -1000),
        ],
    )
    def test_valid(self, text: str, ms: int) -> None:
        assert parse_rfc3339(text) == ms

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "garbage",
            "2021-10-07",
            "2021-10-07T07:41:18",
            "2021-10-07 07",
            "2021-10-07T07:41Z",
            "2021-00-07T07:41:18Z",
            "2021-10-32T07:41:18Z",
            "2021-10-07T07:61:18Z",
            "2021-10-07_07:41:18Z",
            "ZZZZZZZZZZZZZZZZZZZZ",
        ],
    )
    def test_invalid(self, text: str) -> None:
        assert parse_rfc3339(text) is None

    @given(st.integers(min_value=0, max_value=4_000_000_000))
    def test_round_trips_whole_seconds(self, seconds: int) -> None:
        assert parse_rfc3339(iso_ms(seconds * 1000)) == seconds * 1000

    @pytest.mark.parametrize(
        "ms", [547641621915, 2178489544595, -544483292614], ids=["1987", "2039", "1952-negative"]
    )
    def test_round_trips_milliseconds(self, ms: int) -> None:
        assert parse_rfc3339(iso_ms(ms)) == ms
