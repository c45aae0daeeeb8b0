"""OAuth 1.0a (RFC 5849) request parsing, HMAC-SHA1 signing/verification and replay protection.

Percent-encoding, parameter normalisation and base-string assembly are delegated to oauthlib so the
server computes byte-for-byte what oauthlib-based clients (requests-oauthlib, tweepy) compute.
"""

from __future__ import annotations

import base64
import hashlib
import heapq
import hmac
import itertools
import re
import threading
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

# oauthlib ships no type information; the stubs package is not a dependency.
from oauthlib.common import generate_nonce  # type: ignore[import-untyped, unused-ignore]
from oauthlib.oauth1.rfc5849 import signature as _sig  # type: ignore[import-untyped, unused-ignore]
from oauthlib.oauth1.rfc5849.utils import escape, unescape  # type: ignore[import-untyped, unused-ignore]

__all__ = [
    "NonceCache",
    "OAuth1Request",
    "base_string_uri",
    "collect",
    "hmac_sha1_signature",
    "parse_authorization_header",
    "sign_request",
    "signature_base_string",
    "verify_signature",
]

HMAC_SHA1 = "HMAC-SHA1"

# Scheme token, case-insensitive, followed by whitespace or the end of the value.
_SCHEME_RE = re.compile(r"[ \t]*oauth(?:[ \t]+|\Z)", re.IGNORECASE)
# One list element: an empty element (",") , trailing whitespace, or name=value with a quoted-string
# or a bare token value (RFC 5849 requires quotes, but being lenient costs nothing).
_ITEM_RE = re.compile(
    r'[ \t]*(?:,|\Z|([^\s=,"]+)[ \t]*=[ \t]*(?:"((?:[^"\\]|\\.)*)"|([^\s,"\\]*))[ \t]*(?:,|\Z))'
)
_QUOTED_PAIR_RE = re.compile(r"\\(.)")


def parse_authorization_header(value: str) -> list[tuple[str, str]] | None:
    """Parse `Authorization: OAuth k="v", ...` into decoded (name, value) pairs.

    Returns None if the scheme is not OAuth (case-insensitive) or the parameter list is malformed.
    The `realm` parameter is dropped (it never enters the signature). Duplicates are kept in order.
    """
    m = _SCHEME_RE.match(value)
    if m is None:
        return None
    pos = m.end()
    end = len(value)
    out: list[tuple[str, str]] = []
    while pos < end:
        m = _ITEM_RE.match(value, pos)
        if m is None:
            return None
        pos = m.end()
        name, quoted, bare = m.groups()
        if name is None:  # empty list element or trailing whitespace
            continue
        if quoted is not None:
            raw = _QUOTED_PAIR_RE.sub(r"\1", quoted) if "\\" in quoted else quoted
        else:
            raw = bare
        name = unescape(name)
        if name.lower() == "realm":
            continue
        out.append((name, unescape(raw)))
    return out


@dataclass(frozen=True, slots=True)
class OAuth1Request:
    """The OAuth-relevant view of one HTTP request."""

    # oauth_* protocol parameters, first occurrence wins (header, then query, then body).
    oauth: dict[str, str]
    # Everything that enters the signature base string (never oauth_signature), decoded, duplicates kept.
    params: list[tuple[str, str]]


def collect(
    authorization: str | None,
    query_pairs: list[tuple[str, str]],
    form_pairs: list[tuple[str, str]],
) -> OAuth1Request | None:
    """Gather OAuth parameters from the Authorization header, the query string and a form body.

    Clients differ in where they put the protocol parameters, so all three sources are merged
    (RFC 5849 3.4.1.3.1). `query_pairs` and `form_pairs` must already be decoded; pass an empty list
    for the body unless it is application/x-www-form-urlencoded. A non-OAuth or malformed
    Authorization header is ignored. Returns None when no oauth_consumer_key is present anywhere.
    """
    header_pairs = parse_authorization_header(authorization) if authorization else None
    oauth: dict[str, str] = {}
    params: list[tuple[str, str]] = []
    for source in (header_pairs or (), query_pairs, form_pairs):
        for name, value in source:
            if name.startswith("oauth_"):
                oauth.setdefault(name, value)
                if name == "oauth_signature":  # excluded from the base string wherever it appears
                    continue
            params.append((name, value))
    if "oauth_consumer_key" not in oauth:
        return None
    return OAuth1Request(oauth=oauth, params=params)


def base_string_uri(scheme: str, host: str, path: str) -> str:
    """RFC 5849 3.4.1.2 base string URI: lowercase scheme and host, no default port, no query.

    `host` is a Host-header style value (optionally with ":port"); `path` is the request path as sent on
    the wire (still percent-encoded). A malformed host yields a best-effort string that simply will not
    match any signature, instead of raising on attacker-controlled input.
    """
    scheme = scheme.lower()
    try:
        # oauthlib's own function, so normalisation (IPv6, ports, ";params", spaces) matches its clients.
        uri: str = _sig.base_string_uri(f"{scheme}://{host}{path or '/'}")
        return uri
    except ValueError:
        return f"{scheme}://{host.lower()}{path or '/'}"


def _normalize(params: list[tuple[str, str]]) -> str:
    # RFC 5849 3.4.1.3.1: oauth_signature never enters the base string, whatever its source.
    normalized: str = _sig.normalize_parameters([p for p in params if p[0] != "oauth_signature"])
    return normalized


def signature_base_string(method: str, uri: str, params: list[tuple[str, str]]) -> str:
    """RFC 5849 3.4.1.1 signature base string; `uri` is already a base string URI."""
    base: str = _sig.signature_base_string(method, uri, _normalize(params))
    return base


def _signing_key(consumer_secret: str, token_secret: str) -> bytes:
    # The "&" is mandatory even when the token secret is empty (RFC 5849 3.4.2).
    return f"{escape(consumer_secret or '')}&{escape(token_secret or '')}".encode()


def _digest(key: bytes, base_string: str) -> bytes:
    return base64.b64encode(hmac.new(key, base_string.encode(), hashlib.sha1).digest())


def hmac_sha1_signature(base_string: str, consumer_secret: str, token_secret: str) -> str:
    """Base64 HMAC-SHA1 of the base string keyed with the encoded secrets (RFC 5849 3.4.2)."""
    return _digest(_signing_key(consumer_secret, token_secret), base_string).decode("ascii")


def verify_signature(
    method: str,
    candidate_uris: list[str],
    params: list[tuple[str, str]],
    signature: str,
    consumer_secret: str,
    token_secret: str,
) -> bool:
    """True when `signature` is a valid HMAC-SHA1 signature for any of `candidate_uris`.

    `params` is `OAuth1Request.params`; its oauth_signature_method must be HMAC-SHA1. The strict RFC
    check runs first; if it fails, exact duplicate (name, value) pairs are collapsed and the check is
    repeated, because xdk and twitter-api-v2 send oauth_token in both the header and the query/body
    but sign it once. Pairs sharing a name with different values are never collapsed.
    """
    methods = [v for k, v in params if k == "oauth_signature_method"]
    if not methods or any(m != HMAC_SHA1 for m in methods) or not signature or not candidate_uris:
        return False
    try:
        # surrogatepass: compare_digest wants bytes, and a junk signature must fail, not raise.
        given = signature.encode("utf-8", "surrogatepass")
        key = _signing_key(consumer_secret, token_secret)
        variants = [params]
        deduped = list(dict.fromkeys(params))
        if len(deduped) != len(params):
            variants.append(deduped)
        method = method.upper()
        for variant in variants:
            normalized = _normalize(variant)  # independent of the URI: compute once per variant
            for uri in candidate_uris:
                base = _sig.signature_base_string(method, uri, normalized)
                if hmac.compare_digest(_digest(key, base), given):
                    return True
    except ValueError:  # e.g. lone surrogates in decoded input cannot be UTF-8 encoded
        return False
    return False


def sign_request(
    method: str,
    url: str,
    consumer_key: str,
    consumer_secret: str,
    token: str | None = None,
    token_secret: str = "",
    extra_params: list[tuple[str, str]] | None = None,
    nonce: str | None = None,
    timestamp: int | None = None,
    callback: str | None = None,
    verifier: str | None = None,
) -> str:
    """Client-side helper: return a complete `OAuth ...` Authorization header value.

    Query parameters in `url` are signed (decoded like a form, "+" is a space); `extra_params` are
    further decoded parameters to sign, typically the pairs of a form-encoded body.
    """
    oauth: list[tuple[str, str]] = [
        ("oauth_consumer_key", consumer_key),
        ("oauth_nonce", nonce if nonce is not None else generate_nonce()),
        ("oauth_signature_method", HMAC_SHA1),
        ("oauth_timestamp", str(timestamp if timestamp is not None else int(time.time()))),
        ("oauth_version", "1.0"),
    ]
    if token is not None:
        oauth.append(("oauth_token", token))
    if callback is not None:
        oauth.append(("oauth_callback", callback))
    if verifier is not None:
        oauth.append(("oauth_verifier", verifier))

    parts = urlsplit(url)
    params = oauth + parse_qsl(parts.query, keep_blank_values=True)
    if extra_params:
        params.extend(extra_params)
    uri = base_string_uri(parts.scheme, parts.netloc, parts.path)
    sig = hmac_sha1_signature(signature_base_string(method, uri, params), consumer_secret, token_secret)
    oauth.append(("oauth_signature", sig))
    return "OAuth " + ", ".join(f'{escape(k)}="{escape(v)}"' for k, v in oauth)


class NonceCache:
    """Replay and timestamp-window check, in memory and bounded.

    An entry is only needed while its timestamp could still pass the window check, so it is evicted
    once `now` is more than `window_seconds` past it. If more than `max_entries` are live at once the
    ones closest to expiry are dropped first. Call `check` only after the signature has verified, so
    unauthenticated traffic cannot fill the cache.
    """

    def __init__(self, window_seconds: int = 300, max_entries: int = 200_000) -> None:
        if window_seconds < 0 or max_entries < 1:
            raise ValueError("window_seconds must be >= 0 and max_entries >= 1")
        self.window_seconds = window_seconds
        self.max_entries = max_entries
        self._seen: set[tuple[str, str | None, str, int]] = set()
        # (timestamp, tie-breaker, key): a heap because future-dated timestamps arrive out of order.
        self._heap: list[tuple[int, int, tuple[str, str | None, str, int]]] = []
        self._counter = itertools.count()
        self._lock = threading.Lock()  # check-then-add must be atomic if called from worker threads

    def __len__(self) -> int:
        return len(self._seen)

    def check(self, consumer_key: str, token: str | None, nonce: str, timestamp: str, now: float) -> str:
        """Return "ok" (and remember the nonce), "stale" or "replay".

        "stale": the timestamp is not a plain non-negative integer or lies more than window_seconds
        from `now` (past or future). "replay": the same (consumer_key, token, nonce, timestamp) was
        already accepted inside the window.
        """
        # isascii+isdigit rejects "+1", " 1", "1_0", "1.5" and non-ASCII digits that int() would accept;
        # the length cap keeps int() cheap on hostile input.
        if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= 15):
            return "stale"
        ts = int(timestamp)
        if abs(ts - now) > self.window_seconds:
            return "stale"
        key = (consumer_key, token, nonce, ts)
        with self._lock:
            self._evict(now)
            if key in self._seen:
                return "replay"
            while len(self._seen) >= self.max_entries:
                self._seen.discard(heapq.heappop(self._heap)[2])
            self._seen.add(key)
            heapq.heappush(self._heap, (ts, next(self._counter), key))
        return "ok"

    def _evict(self, now: float) -> None:
        heap = self._heap
        horizon = now - self.window_seconds
        # Entries whose timestamp is now outside the window would be rejected as stale anyway.
        while heap and heap[0][0] < horizon:
            self._seen.discard(heapq.heappop(heap)[2])
