"""Unit tests for roost.auth.oauth1 (RFC 5849 OAuth 1.0a, HMAC-SHA1): known-answer vectors (RFC 5849,
the platform's documentation example) and requests signed by real client libraries."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit

import pytest
import requests
from oauthlib.oauth1 import Client
from requests_oauthlib import OAuth1
from tests.unit.oauth1_support import CK, CS, TK, TS

from roost.auth.oauth1 import (
    OAuth1Request,
    base_string_uri,
    collect,
    hmac_sha1_signature,
    sign_request,
    signature_base_string,
    verify_signature,
)


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
