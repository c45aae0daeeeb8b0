"""The challenge-response check (CRC) and the signature helper every webhook product shares.

The platform sends `GET <url>?crc_token=<random>`; the receiver proves control of the URL by answering
200 with `{"response_token": "sha256=" + base64(HMAC-SHA256(consumer secret, crc_token))}`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

import httpx

REPLY_LIMIT_S = 10.0


def signature(consumer_secret: str, message: str | bytes) -> str:
    """`sha256=` + standard base64 (with padding) of HMAC-SHA256 keyed with the consumer secret."""
    raw = message.encode() if isinstance(message, str) else message
    digest = hmac.new(consumer_secret.encode(), raw, hashlib.sha256).digest()
    return "sha256=" + base64.b64encode(digest).decode("ascii")


@dataclass(frozen=True, slots=True)
class CrcOutcome:
    passed: bool
    # A definite failure (2XX with a wrong token, a 3XX, a TLS error) invalidates at once; a transient
    # one (4XX, 5XX, timeout, closed connection) only after the 28-hour rule.
    definite: bool
    detail: str


async def run_crc(
    url: str, consumer_secret: str, crc_token: str, timeout_s: float = REPLY_LIMIT_S
) -> CrcOutcome:
    expected = signature(consumer_secret, crc_token)
    try:
        async with httpx.AsyncClient(timeout=timeout_s, follow_redirects=False, trust_env=False) as client:
            response = await client.get(url, params={"crc_token": crc_token})
    except httpx.ConnectError as exc:
        if "SSL" in str(exc) or "certificate" in str(exc).lower():
            return CrcOutcome(False, True, "TLS handshake failed")
        return CrcOutcome(False, False, "Could not connect to the URL")
    except httpx.TimeoutException:
        return CrcOutcome(False, False, f"Response not received within {int(timeout_s)} seconds")
    except httpx.HTTPError:
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
