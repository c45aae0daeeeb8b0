"""The challenge-response check (CRC) and the signature helper every webhook product shares.

The platform sends `GET <url>?crc_token=<random>&nonce=<time>`; the receiver proves control of the URL by
answering 200 with `{"response_token": "sha256=" + base64(HMAC-SHA256(consumer secret, crc_token))}`.

Outcomes follow the webhook state table: a pass makes the webhook valid; a 2XX with a wrong token, any
3XX (never followed) or a TLS error is a definite failure (invalid at once); a 4XX, 5XX, timeout or
closed connection is transient (invalid only after 28 hours without a successful validation); that
table is the domain's rule (`domain/webhooks.judge`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ssl

import httpx

from roost.config import Settings
from roost.domain.outbound import CrcChallenge, CrcOutcome

REPLY_LIMIT_S = 10.0


def signature(consumer_secret: str, message: str | bytes) -> str:
    """`sha256=` + standard base64 (with padding) of HMAC-SHA256 keyed with the consumer secret."""
    raw = message.encode() if isinstance(message, str) else message
    digest = hmac.new(consumer_secret.encode(), raw, hashlib.sha256).digest()
    return "sha256=" + base64.b64encode(digest).decode("ascii")


def requestable(url: str) -> bool:
    """Whether the HTTP client can build the CRC request for `url`. Its parser is stricter than
    `urlsplit` (control characters, malformed IDNA labels such as `xn--`), and a URL it cannot
    request must be refused as malformed, not crash the check."""
    try:
        request = httpx.Request("GET", url, params={"crc_token": "-"})
        _ = request.url.host  # decodes the IDNA labels, which building the request may not do
    except (httpx.InvalidURL, ValueError):  # idna.IDNAError is a UnicodeError, hence a ValueError
        return False
    return True


def reply_limit(settings: Settings) -> float:
    """The CRC reply deadline: the feature setting `crc_timeout_seconds`, else 10 s (the v2 docs)."""
    value = settings.number("crc_timeout_seconds", REPLY_LIMIT_S, positive=True)
    return value if value <= 60 else REPLY_LIMIT_S


def _is_tls_error(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ssl.SSLError | ssl.CertificateError):
            return True
        text = str(current)
        if "SSL" in text or "certificate" in text.lower() or "TLS" in text:
            return True
        current = current.__cause__ or current.__context__
    return False


async def run_crc(
    url: str, consumer_secret: str, challenge: CrcChallenge, timeout_s: float = REPLY_LIMIT_S
) -> CrcOutcome:
    expected = signature(consumer_secret, challenge.crc_token)  # the token alone: the nonce is not signed
    try:
        async with httpx.AsyncClient(timeout=timeout_s, follow_redirects=False, trust_env=False) as client:
            response = await client.get(
                url, params={"crc_token": challenge.crc_token, "nonce": challenge.nonce}
            )
    except httpx.TimeoutException:
        return CrcOutcome(False, False, f"Response not received within {timeout_s:g} seconds")
    except httpx.HTTPError as exc:
        if _is_tls_error(exc):
            return CrcOutcome(False, True, "TLS handshake with the URL failed during CRC")
        if isinstance(exc, httpx.ConnectError):
            return CrcOutcome(False, False, "Could not connect to the URL")
        return CrcOutcome(False, False, "Connection closed before a response was received")
    status = response.status_code
    if 300 <= status < 400:
        return CrcOutcome(False, True, f"URL returned a redirect (HTTP {status}) during CRC")
    if not 200 <= status < 300:
        return CrcOutcome(False, False, f"URL returned HTTP {status} during CRC")
    try:
        token = response.json().get("response_token")
    except (ValueError, AttributeError):
        token = None
    if status != 200 or not isinstance(token, str) or not hmac.compare_digest(token, expected):
        return CrcOutcome(
            False, True, "URL returned bad response during CRC with error: Invalid `response_token`"
        )
    return CrcOutcome(True, False, "")
