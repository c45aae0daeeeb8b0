"""Behaviour of roost.core.pagination: opaque, checksummed, scoped pagination tokens."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from roost.core.errors import ParamError
from roost.core.pagination import NEXT, PREVIOUS, decode, encode

MAX_ID = 2**63 - 1
BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"
LOWER_BASE36 = re.compile(r"[0-9a-z]+")

ids = st.integers(min_value=0, max_value=MAX_ID)
directions = st.sampled_from([NEXT, PREVIOUS])
scopes = st.text(max_size=30)


def refused(token: str, scope: str = "", name: str = "pagination_token") -> str:
    with pytest.raises(ParamError) as caught:
        decode(name, token, scope)
    return caught.value.message


def test_directions_are_distinct() -> None:
    assert NEXT != PREVIOUS


@given(ids, directions, scopes)
def test_round_trip(cursor: int, direction: int, scope: str) -> None:
    assert decode("pagination_token", encode(cursor, direction, scope), scope) == (cursor, direction)


@given(ids)
def test_default_direction_and_scope(cursor: int) -> None:
    assert decode("pagination_token", encode(cursor)) == (cursor, NEXT)


@given(ids, directions, scopes)
def test_tokens_are_lowercase_base36_and_short(cursor: int, direction: int, scope: str) -> None:
    token = encode(cursor, direction, scope)
    assert LOWER_BASE36.fullmatch(token)
    assert not token.startswith("0")
    assert len(token) <= 40


@given(ids, scopes)
def test_tokens_are_opaque(cursor: int, scope: str) -> None:
    token = encode(cursor, NEXT, scope)
    assert token != str(cursor)
    assert token != encode(cursor, PREVIOUS, scope)


def test_tokens_are_deterministic() -> None:
    assert encode(1445880548472328192, NEXT, "tweets") == encode(1445880548472328192, NEXT, "tweets")


def test_largest_cursor() -> None:
    token = encode(MAX_ID, PREVIOUS, "users:followers")
    assert len(token) <= 40
    assert decode("pagination_token", token, "users:followers") == (MAX_ID, PREVIOUS)


@given(ids, directions, scopes, scopes)
def test_token_from_another_scope_is_refused(cursor: int, direction: int, scope: str, other: str) -> None:
    assume(scope != other)
    token = encode(cursor, direction, scope)
    assert (
        refused(token, other)
        == f"The `pagination_token` query parameter value [{token}] is not a valid token"
    )


def test_token_of_a_known_scope_is_refused_elsewhere() -> None:
    token = encode(1445880548472328192, NEXT, "users/tweets")
    assert refused(token, "users/mentions", "next_token") == (
        f"The `next_token` query parameter value [{token}] is not a valid token"
    )


@given(ids, directions, st.data())
def test_changing_one_character_is_refused(cursor: int, direction: int, data: st.DataObject) -> None:
    token = encode(cursor, direction, "tweets")
    index = data.draw(st.integers(min_value=0, max_value=len(token) - 1))
    replacement = data.draw(st.sampled_from([c for c in BASE36 if c != token[index]]))
    tampered = token[:index] + replacement + token[index + 1 :]
    assert refused(tampered, "tweets") == (
        f"The `pagination_token` query parameter value [{tampered}] is not a valid token"
    )


@given(ids, scopes)
def test_flipping_the_direction_is_refused(cursor: int, scope: str) -> None:
    payload = int(encode(cursor, NEXT, scope), 36) ^ (1 << 32)
    digits = []
    while payload:
        payload, rest = divmod(payload, 36)
        digits.append(BASE36[rest])
    flipped = "".join(reversed(digits))
    with pytest.raises(ParamError):
        decode("pagination_token", flipped, scope)


@pytest.mark.parametrize(
    "token",
    [
        "",
        "0",
        "abc",
        "hello",
        "not-a-token",
        "!!!",
        "7140dibdnow9c7btw423",
        "4611686018799963893",
        "b26v89c19zqg8o3fpzbn1e0ffhxjiofzw6po136rvbnul",
        "z" * 41,
        "ü",
    ],
)
def test_made_up_tokens_are_refused(token: str) -> None:
    assert (
        refused(token, "tweets")
        == f"The `pagination_token` query parameter value [{token}] is not a valid token"
    )


def test_valid_token_padded_beyond_forty_characters_is_refused() -> None:
    token = encode(42, NEXT, "tweets")
    padded = "0" * (41 - len(token)) + token
    assert len(padded) == 41
    assert refused(padded, "tweets").endswith("is not a valid token")


def test_huge_made_up_token_is_refused_not_crashing() -> None:
    assert refused("9" * 5000, "tweets").endswith("is not a valid token")


@pytest.mark.parametrize(
    "alter",
    [
        str.upper,
        lambda t: " " + t,
        lambda t: t + "\n",
        lambda t: "+" + t,
        lambda t: t[:3] + "_" + t[3:],
        lambda t: "0" + t,
    ],
    ids=["upper", "leading-space", "trailing-newline", "plus-sign", "underscore", "leading-zero"],
)
def test_altered_spellings_of_a_token_are_refused(alter: Callable[[str], str]) -> None:
    token = encode(1445880548472328192, NEXT, "tweets")
    altered = alter(token)
    assert altered != token
    with pytest.raises(ParamError):
        decode("pagination_token", altered, "tweets")
