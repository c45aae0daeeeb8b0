"""Unit tests for roost.auth.oauth1 (RFC 5849 OAuth 1.0a, HMAC-SHA1): verifying signatures (the
duplicate-parameter quirk, candidate URIs, edge cases), sign_request, the NonceCache and the
sign-then-verify property."""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oauthlib.common import Request
from oauthlib.oauth1.rfc5849 import signature as oauthlib_sig
from tests.unit.oauth1_support import CK, CS, TK, TS

from roost.auth.oauth1 import (
    NonceCache,
    base_string_uri,
    collect,
    hmac_sha1_signature,
    parse_authorization_header,
    sign_request,
    signature_base_string,
    verify_signature,
)

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
