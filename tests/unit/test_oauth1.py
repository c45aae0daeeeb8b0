"""Unit tests for roost.auth.oauth1 (RFC 5849 OAuth 1.0a, HMAC-SHA1)."""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st
from oauthlib.common import Request
from oauthlib.oauth1 import Client
from oauthlib.oauth1.rfc5849 import signature as oauthlib_sig
from requests_oauthlib import OAuth1

from roost.auth.oauth1 import (
    NonceCache,
    OAuth1Request,
    base_string_uri,
    collect,
    hmac_sha1_signature,
    parse_authorization_header,
    sign_request,
    signature_base_string,
    verify_signature,
)

CK, CS = "ck-roost", "cs-roost-secret"
TK, TS = "123-token", "ts-roost-secret"


def server_view(method: str, url: str, headers: dict[str, str], body: str | bytes | None) -> OAuth1Request:
    """What the server would do: split query, decode a form body, merge with the header."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    form: list[tuple[str, str]] = []
    ctype = headers.get("Content-Type", "")
    if body and ctype.startswith("application/x-www-form-urlencoded"):
        text = body.decode() if isinstance(body, bytes) else body
        form = parse_qsl(text, keep_blank_values=True)
    req = collect(headers.get("Authorization"), query, form)
    assert req is not None
    return req


def server_verifies(
    method: str, url: str, headers: dict[str, str], body: str | bytes | None, cs: str = CS, ts: str = TS
) -> bool:
    req = server_view(method, url, headers, body)
    parts = urlsplit(url)
    uri = base_string_uri(parts.scheme, parts.netloc, parts.path)
    return verify_signature(method, [uri], req.params, req.oauth["oauth_signature"], cs, ts)


# --------------------------------------------------------------------------- RFC 5849 vectors


RFC_3_4_1_BASE = (
    "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q"
    "%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_"
    "key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_m"
    "ethod%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk"
    "9d7dh3k39sjv7"
)

RFC_3_4_1_HEADER = (
    'OAuth realm="Example",\n'
    '               oauth_consumer_key="9djdj82h48djs9d2",\n'
    '               oauth_token="kkk9d7dh3k39sjv7",\n'
    '               oauth_signature_method="HMAC-SHA1",\n'
    '               oauth_timestamp="137131201",\n'
    '               oauth_nonce="7d8f3e4a",\n'
    '               oauth_signature="bYT5CMsGcbgUdFHObYMEfcx6bsw%3D"'
).replace("\n", "")  # an HTTP parser unfolds the header lines


def test_rfc5849_3_4_1_signature_base_string() -> None:
    query = parse_qsl("b5=%3D%253D&a3=a&c%40=&a2=r%20b", keep_blank_values=True)
    form = parse_qsl("c2&a3=2+q", keep_blank_values=True)
    req = collect(RFC_3_4_1_HEADER, query, form)
    assert req is not None
    assert req.oauth["oauth_signature"] == "bYT5CMsGcbgUdFHObYMEfcx6bsw="
    assert "realm" not in dict(req.params)
    assert all(name != "oauth_signature" for name, _ in req.params)
    uri = base_string_uri("http", "example.com", "/request")
    assert uri == "http://example.com/request"
    assert signature_base_string("POST", uri, req.params) == RFC_3_4_1_BASE
    # Lower-case method is normalised too.
    assert signature_base_string("post", uri, req.params) == RFC_3_4_1_BASE


def test_rfc5849_3_4_1_3_2_normalized_parameters() -> None:
    req = collect(
        RFC_3_4_1_HEADER,
        parse_qsl("b5=%3D%253D&a3=a&c%40=&a2=r%20b", keep_blank_values=True),
        parse_qsl("c2&a3=2+q", keep_blank_values=True),
    )
    assert req is not None
    base = signature_base_string("POST", "http://example.com/request", req.params)
    normalized = (
        "a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_consumer_key=9dj"
        "dj82h48djs9d2&oauth_nonce=7d8f3e4a&oauth_signature_method=HMAC-SHA1"
        "&oauth_timestamp=137131201&oauth_token=kkk9d7dh3k39sjv7"
    )
    assert unquote(base.split("&", 2)[2]) == normalized


@pytest.mark.parametrize(
    ("method", "scheme", "path", "oauth", "secret", "token_secret", "expected"),
    [
        (  # temporary credentials request, section 1.2
            "POST",
            "https",
            "/initiate",
            [
                ("oauth_consumer_key", "dpf43f3p2l4k3l03"),
                ("oauth_signature_method", "HMAC-SHA1"),
                ("oauth_timestamp", "137131200"),
                ("oauth_nonce", "wIjqoS"),
                ("oauth_callback", "http://printer.example.com/ready"),
            ],
            "kd94hf93k423kf44",
            "",
            "74KNZJeDHnMBp0EMJ9ZHt/XKycU=",
        ),
        (  # token request, section 1.2
            "POST",
            "https",
            "/token",
            [
                ("oauth_consumer_key", "dpf43f3p2l4k3l03"),
                ("oauth_token", "hh5s93j4hdidpola"),
                ("oauth_signature_method", "HMAC-SHA1"),
                ("oauth_timestamp", "137131201"),
                ("oauth_nonce", "walatlh"),
                ("oauth_verifier", "hfdp7dh39dks9884"),
            ],
            "kd94hf93k423kf44",
            "hdhd0244k9j7ao03",
            "gKgrFCywp7rO0OXSjdot/IHF7IU=",
        ),
        (  # protected resource request, section 1.2
            "GET",
            "http",
            "/photos",
            [
                ("oauth_consumer_key", "dpf43f3p2l4k3l03"),
                ("oauth_token", "nnch734d00sl2jdk"),
                ("oauth_signature_method", "HMAC-SHA1"),
                ("oauth_timestamp", "137131202"),
                ("oauth_nonce", "chapoH"),
                ("file", "vacation.jpg"),
                ("size", "original"),
            ],
            "kd94hf93k423kf44",
            "pfkkdhi9sl3r4s00",
            "MdpQcU8iPSUjWoN/UDMsK2sui9I=",
        ),
    ],
)
def test_rfc5849_section_1_2_signatures(
    method: str,
    scheme: str,
    path: str,
    oauth: list[tuple[str, str]],
    secret: str,
    token_secret: str,
    expected: str,
) -> None:
    uri = base_string_uri(scheme, "photos.example.net", path)
    base = signature_base_string(method, uri, oauth)
    assert hmac_sha1_signature(base, secret, token_secret) == expected
    assert verify_signature(method, [uri], oauth, expected, secret, token_secret)
    assert not verify_signature(method, [uri], oauth, expected, secret, token_secret + "x")


def test_rfc5849_section_1_2_header_round_trip() -> None:
    header = (
        'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", '
        'oauth_token="nnch734d00sl2jdk", oauth_signature_method="HMAC-SHA1", '
        'oauth_timestamp="137131202", oauth_nonce="chapoH", '
        'oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D"'
    )
    req = collect(header, [("file", "vacation.jpg"), ("size", "original")], [])
    assert req is not None
    uri = base_string_uri("http", "photos.example.net", "/photos")
    assert verify_signature(
        "GET", [uri], req.params, req.oauth["oauth_signature"], "kd94hf93k423kf44", "pfkkdhi9sl3r4s00"
    )


# --------------------------------------------------------------------------- platform documentation example

DOC_CK = "xvz1evFS4wEEPTGEFPHBog"
DOC_CS = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"
DOC_TK = "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"
DOC_TS = "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"
DOC_NONCE = "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"
DOC_STATUS = "Hello Ladies + Gentlemen, a signed OAuth request!"
DOC_URL = "https://api.twitter.com/1.1/statuses/update.json"
DOC_SIG = "hCtSmYh+iHYCEqBWrE7C7hYmtUk="
DOC_PARAMS = [
    ("status", DOC_STATUS),
    ("include_entities", "true"),
    ("oauth_consumer_key", DOC_CK),
    ("oauth_nonce", DOC_NONCE),
    ("oauth_signature_method", "HMAC-SHA1"),
    ("oauth_timestamp", "1318622958"),
    ("oauth_token", DOC_TK),
    ("oauth_version", "1.0"),
]


def test_platform_doc_example_base_string_and_signature() -> None:
    uri = base_string_uri("https", "api.twitter.com", "/1.1/statuses/update.json")
    base = signature_base_string("POST", uri, DOC_PARAMS)
    assert base == (
        "POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue"
        "%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZ"
        "eNu2VS4cg%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958%26oauth_token%3D37"
        "0773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb%26oauth_version%3D1.0%26status%3DHello%2520Lad"
        "ies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521"
    )
    assert hmac_sha1_signature(base, DOC_CS, DOC_TS) == DOC_SIG
    assert verify_signature("POST", [uri], DOC_PARAMS, DOC_SIG, DOC_CS, DOC_TS)


def test_platform_doc_example_via_sign_request() -> None:
    header = sign_request(
        "POST",
        DOC_URL + "?include_entities=true",
        DOC_CK,
        DOC_CS,
        token=DOC_TK,
        token_secret=DOC_TS,
        extra_params=[("status", DOC_STATUS)],
        nonce=DOC_NONCE,
        timestamp=1318622958,
    )
    assert header.startswith("OAuth ")
    assert 'oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D"' in header
    req = collect(header, [("include_entities", "true")], [("status", DOC_STATUS)])
    assert req is not None
    assert req.oauth["oauth_signature"] == DOC_SIG
    assert req.oauth["oauth_consumer_key"] == DOC_CK
    assert req.oauth["oauth_token"] == DOC_TK
    assert req.oauth["oauth_version"] == "1.0"
    assert sorted(req.params) == sorted(DOC_PARAMS)


# --------------------------------------------------------------------------- real client libraries


def _prepare(
    method: str, url: str, data: dict[str, str] | None = None, **auth_kw: str
) -> requests.PreparedRequest:
    auth = OAuth1(CK, client_secret=CS, resource_owner_key=TK, resource_owner_secret=TS, **auth_kw)
    return requests.Request(method, url, data=data, auth=auth).prepare()


def _headers(prepared: requests.PreparedRequest) -> dict[str, str]:
    return {k: v.decode() if isinstance(v, bytes) else v for k, v in prepared.headers.items()}


def test_requests_oauthlib_form_post_verifies_and_tampering_fails() -> None:
    url = "https://api.x.com/1.1/statuses/update.json?include_entities=true"
    p = _prepare("POST", url, data={"status": "héllo wörld + 100% & more"})
    headers = _headers(p)
    assert p.url is not None
    assert server_verifies("POST", p.url, headers, p.body)

    body = p.body.encode() if isinstance(p.body, str) else p.body
    assert body is not None
    tampered = body[:-1] + (b"X" if body[-1:] != b"X" else b"Y")
    assert not server_verifies("POST", p.url, headers, tampered)
    assert not server_verifies("POST", p.url.replace("update.json", "update.jsom"), headers, p.body)
    other_query = p.url.replace("include_entities=true", "include_entities=truf")
    assert not server_verifies("POST", other_query, headers, p.body)
    assert not server_verifies("PUT", p.url, headers, p.body)
    assert not server_verifies("POST", p.url, headers, p.body, cs=CS + "x")
    assert not server_verifies("POST", p.url, headers, p.body, ts=TS[:-1])
    assert not server_verifies("POST", p.url, headers, p.body, ts="")


def test_requests_oauthlib_get_with_query_verifies() -> None:
    p = _prepare("GET", "https://api.x.com/2/tweets?ids=1,2,3&tweet.fields=created_at,author_id&x=a%2Bb")
    assert p.url is not None
    assert server_verifies("GET", p.url, _headers(p), p.body)
    assert not server_verifies("GET", p.url.replace("ids=1", "ids=4"), _headers(p), p.body)


def test_requests_oauthlib_signature_in_query_string() -> None:
    # signature_type="query" puts every oauth_* parameter in the URL instead of the header.
    p = _prepare("GET", "https://api.x.com/2/users/me?user.fields=id", signature_type="query")
    headers = _headers(p)
    assert "Authorization" not in headers
    assert p.url is not None
    assert "oauth_signature=" in p.url
    assert server_verifies("GET", p.url, headers, None)


def test_requests_oauthlib_signature_in_form_body() -> None:
    p = _prepare("POST", "https://api.x.com/oauth/access_token", data={"x": "1"}, signature_type="body")
    headers = _headers(p)
    assert "Authorization" not in headers
    assert p.url is not None
    assert server_verifies("POST", p.url, headers, p.body)


def test_oauthlib_client_with_callback_and_verifier() -> None:
    client = Client(
        CK,
        client_secret=CS,
        resource_owner_key=TK,
        resource_owner_secret=TS,
        callback_uri="https://app.example/cb?x=1",
        verifier="v3r1f13r",
    )
    url, headers, body = client.sign("https://api.x.com/oauth/access_token", http_method="POST")
    assert server_verifies("POST", url, headers, body)
    req = server_view("POST", url, headers, body)
    assert req.oauth["oauth_callback"] == "https://app.example/cb?x=1"
    assert req.oauth["oauth_verifier"] == "v3r1f13r"


def test_oauthlib_client_without_token() -> None:
    client = Client(CK, client_secret=CS, callback_uri="oob")
    url, headers, body = client.sign("https://api.x.com/oauth/request_token", http_method="POST")
    assert server_verifies("POST", url, headers, body, ts="")
    assert not server_verifies("POST", url, headers, body, ts="anything")


# --------------------------------------------------------------------------- duplicate-parameter quirk


def _quirk_request(query_token: str) -> tuple[str, list[tuple[str, str]], str]:
    """Header signed with oauth_token once; the query repeats oauth_token (xdk / twitter-api-v2)."""
    url = "https://api.x.com/2/tweets?max_results=5"
    header = sign_request("GET", url, CK, CS, token=TK, token_secret=TS, nonce="n1", timestamp=1700000000)
    query = [("max_results", "5"), ("oauth_token", query_token)]
    return header, query, base_string_uri("https", "api.x.com", "/2/tweets")


def test_duplicate_oauth_token_in_header_and_query_is_collapsed() -> None:
    header, query, uri = _quirk_request(TK)
    req = collect(header, query, [])
    assert req is not None
    assert [v for k, v in req.params if k == "oauth_token"] == [TK, TK]  # collect keeps duplicates
    assert verify_signature("GET", [uri], req.params, req.oauth["oauth_signature"], CS, TS)


def test_duplicate_in_form_body_is_collapsed() -> None:
    url = "https://api.x.com/1.1/media/upload.json"
    header = sign_request("POST", url, CK, CS, token=TK, token_secret=TS, extra_params=[("command", "INIT")])
    req = collect(header, [], [("command", "INIT"), ("oauth_token", TK)])
    assert req is not None
    uri = base_string_uri("https", "api.x.com", "/1.1/media/upload.json")
    assert verify_signature("POST", [uri], req.params, req.oauth["oauth_signature"], CS, TS)


def test_different_values_for_same_name_are_not_collapsed() -> None:
    header, query, uri = _quirk_request("999-other-token")
    req = collect(header, query, [])
    assert req is not None
    assert req.oauth["oauth_token"] == TK  # first occurrence (the header) wins
    assert not verify_signature("GET", [uri], req.params, req.oauth["oauth_signature"], CS, TS)


def test_strict_duplicates_still_verify() -> None:
    # A client that signs both copies (strict RFC 5849) must keep working.
    params = [
        ("oauth_consumer_key", CK),
        ("oauth_signature_method", "HMAC-SHA1"),
        ("oauth_token", TK),
        ("ids", "1"),
        ("ids", "1"),
    ]
    uri = "https://api.x.com/2/tweets"
    sig = hmac_sha1_signature(signature_base_string("GET", uri, params), CS, TS)
    assert verify_signature("GET", [uri], params, sig, CS, TS)
    # ... and a signature over the collapsed list also verifies with the duplicated list.
    sig_once = hmac_sha1_signature(signature_base_string("GET", uri, params[:-1]), CS, TS)
    assert sig_once != sig
    assert verify_signature("GET", [uri], params, sig_once, CS, TS)


# --------------------------------------------------------------------------- candidate URIs


def test_candidate_uris_any_match() -> None:
    header = sign_request("GET", "https://api.x.com/2/tweets", CK, CS, token=TK, token_secret=TS)
    req = collect(header, [], [])
    assert req is not None
    sig = req.oauth["oauth_signature"]
    local = base_string_uri("http", "127.0.0.1:8080", "/2/tweets")
    public = base_string_uri("https", "api.x.com", "/2/tweets")
    assert local == "http://127.0.0.1:8080/2/tweets"
    assert verify_signature("GET", [local, public], req.params, sig, CS, TS)
    assert not verify_signature("GET", [local], req.params, sig, CS, TS)
    assert not verify_signature("GET", [], req.params, sig, CS, TS)


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


# --------------------------------------------------------------------------- verify_signature edge cases


def _signed_params() -> tuple[str, list[tuple[str, str]], str]:
    uri = "https://api.x.com/2/tweets"
    params = [("oauth_consumer_key", CK), ("oauth_signature_method", "HMAC-SHA1"), ("oauth_token", TK)]
    return uri, params, hmac_sha1_signature(signature_base_string("POST", uri, params), CS, TS)


def test_verify_rejects_other_signature_methods() -> None:
    uri, params, sig = _signed_params()
    assert verify_signature("POST", [uri], params, sig, CS, TS)
    for method in ("PLAINTEXT", "HMAC-SHA256", "RSA-SHA1", "hmac-sha1"):
        swapped = [(k, method if k == "oauth_signature_method" else v) for k, v in params]
        sig2 = hmac_sha1_signature(signature_base_string("POST", uri, swapped), CS, TS)
        assert not verify_signature("POST", [uri], swapped, sig2, CS, TS)
    missing = [p for p in params if p[0] != "oauth_signature_method"]
    sig3 = hmac_sha1_signature(signature_base_string("POST", uri, missing), CS, TS)
    assert not verify_signature("POST", [uri], missing, sig3, CS, TS)


def test_verify_garbage_signatures_return_false() -> None:
    uri, params, sig = _signed_params()
    for bad in ("", "x", sig[:-1], sig + "=", "ünïcödé", "\udc80", sig.lower()):
        assert not verify_signature("POST", [uri], params, bad, CS, TS)


def test_verify_ignores_oauth_signature_in_params() -> None:
    uri, params, sig = _signed_params()
    assert verify_signature("POST", [uri], [*params, ("oauth_signature", sig)], sig, CS, TS)


def test_verify_unencodable_params_return_false() -> None:
    uri, params, sig = _signed_params()
    assert not verify_signature("POST", [uri], [*params, ("x", "\ud800")], sig, CS, TS)


def test_secrets_are_percent_encoded_in_key() -> None:
    base = "GET&http%3A%2F%2Fexample.com%2F&a%3Db"
    # "&" inside a secret must be encoded, so these two secret splits sign differently.
    assert hmac_sha1_signature(base, "a&b", "c") != hmac_sha1_signature(base, "a", "b&c")


# --------------------------------------------------------------------------- sign_request


def test_sign_request_header_shape() -> None:
    header = sign_request(
        "post",
        "https://api.x.com/oauth/request_token",
        CK,
        CS,
        nonce="abc",
        timestamp=123,
        callback="https://app.example/cb",
    )
    pairs = parse_authorization_header(header)
    assert pairs is not None
    d = dict(pairs)
    assert d["oauth_consumer_key"] == CK
    assert d["oauth_nonce"] == "abc"
    assert d["oauth_timestamp"] == "123"
    assert d["oauth_signature_method"] == "HMAC-SHA1"
    assert d["oauth_version"] == "1.0"
    assert d["oauth_callback"] == "https://app.example/cb"
    assert "oauth_token" not in d
    assert "oauth_verifier" not in d
    assert 'oauth_callback="https%3A%2F%2Fapp.example%2Fcb"' in header


def test_sign_request_accepted_by_oauthlib_server_side_check() -> None:
    # Cross-check against oauthlib's own verifier, independent of our verify_signature.
    url = "https://api.x.com/2/tweets?a=1&b=x+y"
    header = sign_request("POST", url, CK, CS, token=TK, token_secret=TS, extra_params=[("c", "3")])
    headers = {"Authorization": header, "Content-Type": "application/x-www-form-urlencoded"}
    request = Request(url, "POST", body="c=3", headers=headers)
    request.params = oauthlib_sig.collect_parameters(
        uri_query=urlsplit(url).query, body="c=3", headers=request.headers
    )
    request.signature = dict(parse_authorization_header(header) or [])["oauth_signature"]
    assert oauthlib_sig.verify_hmac_sha1(request, CS, TS)


def test_sign_request_default_nonce_and_timestamp_vary() -> None:
    a = sign_request("GET", "https://api.x.com/2/users/me", CK, CS, token=TK, token_secret=TS)
    b = sign_request("GET", "https://api.x.com/2/users/me", CK, CS, token=TK, token_secret=TS)
    da, db = dict(parse_authorization_header(a) or []), dict(parse_authorization_header(b) or [])
    assert da["oauth_nonce"] != db["oauth_nonce"]
    assert da["oauth_timestamp"].isdigit()


# --------------------------------------------------------------------------- NonceCache


NOW = 1_700_000_000.0


def test_nonce_ok_then_replay() -> None:
    cache = NonceCache()
    assert cache.check(CK, TK, "n1", str(int(NOW)), NOW) == "ok"
    assert cache.check(CK, TK, "n1", str(int(NOW)), NOW + 1) == "replay"
    # any differing component makes it a new request
    assert cache.check(CK, TK, "n2", str(int(NOW)), NOW) == "ok"
    assert cache.check(CK, None, "n1", str(int(NOW)), NOW) == "ok"
    assert cache.check(CK, "other", "n1", str(int(NOW)), NOW) == "ok"
    assert cache.check("ck2", TK, "n1", str(int(NOW)), NOW) == "ok"
    assert cache.check(CK, TK, "n1", str(int(NOW) + 1), NOW) == "ok"
    assert cache.check(CK, None, "n1", str(int(NOW)), NOW) == "replay"


def test_nonce_stale_past_and_future() -> None:
    cache = NonceCache(window_seconds=300)
    t = int(NOW)
    assert cache.check(CK, TK, "a", str(t - 301), NOW) == "stale"
    assert cache.check(CK, TK, "b", str(t + 301), NOW) == "stale"
    assert cache.check(CK, TK, "c", str(t - 300), NOW) == "ok"
    assert cache.check(CK, TK, "d", str(t + 300), NOW) == "ok"
    assert cache.check(CK, TK, "e", "0", NOW) == "stale"
    assert len(cache) == 2  # stale requests are not remembered


@pytest.mark.parametrize(
    "timestamp",
    [
        "",
        "abc",
        "1700000000.5",
        "-1700000000",
        "+1700000000",
        " 1700000000",
        "1_700_000_000",
        "١٧٠٠٠٠٠٠٠٠",
        "1" * 5000,
        "1e9",
    ],
)
def test_nonce_non_integer_timestamp_is_stale(timestamp: str) -> None:
    assert NonceCache().check(CK, TK, "n", timestamp, NOW) == "stale"


def test_nonce_eviction_after_window() -> None:
    cache = NonceCache(window_seconds=300)
    t = int(NOW)
    assert cache.check(CK, TK, "old", str(t), NOW) == "ok"
    assert cache.check(CK, TK, "future", str(t + 200), NOW) == "ok"
    assert len(cache) == 2
    later = NOW + 301
    # the first entry's timestamp has left the window: it is evicted (and would be stale anyway)
    assert cache.check(CK, TK, "new", str(int(later)), later) == "ok"
    assert len(cache) == 2
    assert cache.check(CK, TK, "old", str(t), later) == "stale"
    # the future-dated entry is still inside its window, so its replay is still caught
    assert cache.check(CK, TK, "future", str(t + 200), later) == "replay"
    much_later = NOW + 10_000
    assert cache.check(CK, TK, "x", str(int(much_later)), much_later) == "ok"
    assert len(cache) == 1


def test_nonce_cache_is_bounded() -> None:
    cache = NonceCache(window_seconds=300, max_entries=3)
    t = int(NOW)
    for i in range(10):
        assert cache.check(CK, TK, f"n{i}", str(t - 10 + i), NOW) == "ok"
        assert len(cache) <= 3
    # the most recent ones are still remembered
    assert cache.check(CK, TK, "n9", str(t - 1), NOW) == "replay"


def test_nonce_cache_rejects_bad_config() -> None:
    with pytest.raises(ValueError):
        NonceCache(window_seconds=-1)
    with pytest.raises(ValueError):
        NonceCache(max_entries=0)


# --------------------------------------------------------------------------- property test

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
_name = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda n: n != "realm" and not n.startswith("oauth_")
)


@settings(max_examples=200, deadline=None)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]),
    query=st.lists(st.tuples(_name, _text), max_size=5),
    body=st.lists(st.tuples(_name, _text), max_size=5),
    consumer_secret=_text,
    token_secret=_text,
    token=st.none() | st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=20),
    path=st.text(st.characters(whitelist_categories=("L", "N")), max_size=10),
)
def test_property_sign_then_verify(
    method: str,
    query: list[tuple[str, str]],
    body: list[tuple[str, str]],
    consumer_secret: str,
    token_secret: str,
    token: str | None,
    path: str,
) -> None:
    raw_path = "/2/" + quote(path)
    url = "https://API.x.com:443" + raw_path + ("?" + urlencode(query) if query else "")
    header = sign_request(
        method, url, "ck", consumer_secret, token=token, token_secret=token_secret, extra_params=body
    )
    # The server re-parses the query string from the wire, exactly as the signer did.
    parts = urlsplit(url)
    req = collect(header, parse_qsl(parts.query, keep_blank_values=True), body)
    assert req is not None
    uri = base_string_uri("https", "api.x.com", raw_path)
    sig = req.oauth["oauth_signature"]
    assert verify_signature(method, [uri], req.params, sig, consumer_secret, token_secret)
    assert not verify_signature(method, [uri], req.params, sig, consumer_secret + "!", token_secret)
    assert not verify_signature(method, [uri + "x"], req.params, sig, consumer_secret, token_secret)
