"""Unit tests for roost.auth.oauth1 (RFC 5849 OAuth 1.0a): the base string URI, collecting the
parameters from header, query and form, and parsing the Authorization header."""

from __future__ import annotations

import pytest
from tests.unit.oauth1_support import CK

from roost.auth.oauth1 import (
    OAuth1Request,
    base_string_uri,
    collect,
    parse_authorization_header,
)

# --------------------------------------------------------------------------- base string URI


@pytest.mark.parametrize(
    ("scheme", "host", "path", "expected"),
    [
        ("HTTP", "Example.COM:80", "/r%20v", "http://example.com/r%20v"),
        ("https", "API.X.com:443", "/2/tweets", "https://api.x.com/2/tweets"),
        ("http", "example.com:443", "/a", "http://example.com:443/a"),
        ("https", "example.com:80", "/a", "https://example.com:80/a"),
        ("https", "example.com:8443", "/a", "https://example.com:8443/a"),
        ("http", "example.com", "", "http://example.com/"),
        ("http", "example.com", "/a?b=c", "http://example.com/a"),
        ("https", "[::1]:443", "/x", "https://[::1]/x"),
        ("http", "[::1]:8080", "/x", "http://[::1]:8080/x"),
    ],
)
def test_base_string_uri(scheme: str, host: str, path: str, expected: str) -> None:
    assert base_string_uri(scheme, host, path) == expected


def test_base_string_uri_malformed_host_does_not_raise() -> None:
    assert base_string_uri("https", "Host:99999", "/x") == "https://host:99999/x"


# --------------------------------------------------------------------------- parameter sources / collect


def test_collect_from_query_only() -> None:
    query = [
        ("oauth_consumer_key", CK),
        ("oauth_signature", "sig="),
        ("a", "1"),
        ("oauth_nonce", "n"),
    ]
    req = collect(None, query, [])
    assert req == OAuth1Request(
        oauth={"oauth_consumer_key": CK, "oauth_signature": "sig=", "oauth_nonce": "n"},
        params=[("oauth_consumer_key", CK), ("a", "1"), ("oauth_nonce", "n")],
    )


def test_collect_from_form_only_and_non_oauth_header_ignored() -> None:
    form = [("oauth_consumer_key", CK), ("status", "hi")]
    req = collect("Bearer AAAA", [], form)
    assert req is not None
    assert req.oauth == {"oauth_consumer_key": CK}
    assert req.params == form


def test_collect_first_occurrence_wins_and_order_is_header_query_form() -> None:
    req = collect(
        'OAuth oauth_consumer_key="h", oauth_nonce="hn"',
        [("oauth_consumer_key", "q"), ("q", "1")],
        [("oauth_consumer_key", "f"), ("oauth_timestamp", "5")],
    )
    assert req is not None
    assert req.oauth == {"oauth_consumer_key": "h", "oauth_nonce": "hn", "oauth_timestamp": "5"}
    assert req.params == [
        ("oauth_consumer_key", "h"),
        ("oauth_nonce", "hn"),
        ("oauth_consumer_key", "q"),
        ("q", "1"),
        ("oauth_consumer_key", "f"),
        ("oauth_timestamp", "5"),
    ]


def test_collect_none_without_consumer_key() -> None:
    assert collect(None, [], []) is None
    assert collect("", [("a", "b")], []) is None
    assert collect('OAuth oauth_token="t"', [("oauth_nonce", "n")], [("x", "y")]) is None
    assert collect("Basic dXNlcjpwYXNz", [], []) is None
    # a non-oauth_ parameter that merely looks like one is not the consumer key
    assert collect(None, [("consumer_key", CK)], []) is None


def test_collect_ignores_malformed_header_but_uses_query() -> None:
    req = collect('OAuth oauth_consumer_key="unterminated', [("oauth_consumer_key", CK)], [])
    assert req is not None
    assert req.oauth == {"oauth_consumer_key": CK}


# --------------------------------------------------------------------------- header parsing


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ('OAuth oauth_consumer_key="abc"', [("oauth_consumer_key", "abc")]),
        ('oauth oauth_consumer_key="abc"', [("oauth_consumer_key", "abc")]),
        ('OAUTH   a="1",b="2"', [("a", "1"), ("b", "2")]),
        ('OAuth a = "1" ,  b="2" , ', [("a", "1"), ("b", "2")]),
        ('OAuth realm="Photos", a="1"', [("a", "1")]),
        ('OAuth Realm="x", a="1", realm="y"', [("a", "1")]),
        ('OAuth a="x%20y%2Bz%3D", b="%E2%9C%93"', [("a", "x y+z="), ("b", "✓")]),
        ('OAuth a="+"', [("a", "+")]),  # "+" is literal in OAuth percent-encoding
        ('OAuth a="", b="2"', [("a", ""), ("b", "2")]),
        ('OAuth a="with, comma", b="2"', [("a", "with, comma"), ("b", "2")]),
        ('OAuth a="q\\"uote"', [("a", 'q"uote')]),
        ("OAuth a=bare, b=2", [("a", "bare"), ("b", "2")]),
        ('OAuth a="1", a="2"', [("a", "1"), ("a", "2")]),
        ('OAuth oauth%5Fx="1"', [("oauth_x", "1")]),
        ("OAuth", []),
        ("OAuth   ", []),
        ('\tOAuth\ta="1"', [("a", "1")]),
        ('OAuth a="1",,b="2"', [("a", "1"), ("b", "2")]),
    ],
)
def test_parse_authorization_header(header: str, expected: list[tuple[str, str]]) -> None:
    assert parse_authorization_header(header) == expected


@pytest.mark.parametrize(
    "header",
    [
        "Bearer AAAA",
        "Basic dXNlcjpwYXNz",
        'OAuthx a="1"',
        'OAuth2 a="1"',
        "",
        'OAuth a="1" b="2"',  # missing comma
        'OAuth a="1',  # unterminated
        "OAuth a",  # no "="
        'OAuth ="1"',  # no name
        'OAuth a="1"junk',
        'OAuth a=b"c',
    ],
)
def test_parse_authorization_header_rejects(header: str) -> None:
    assert parse_authorization_header(header) is None
