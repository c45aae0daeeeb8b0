"""What the domain asks of the world outside the database, declared here and implemented by the event
layer (`events/outbound.py`), which `wiring.py` hands to the services that need it. The domain itself
makes no network calls and starts no background work.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from roost.core.ids import TokenSource


@dataclass(frozen=True, slots=True)
class CrcOutcome:
    """How a challenge-response check (CRC) of a webhook URL went."""

    passed: bool
    # A definite failure (2XX with a wrong token, a 3XX, a TLS error) invalidates at once; a transient
    # one (4XX, 5XX, timeout, closed connection) only after the 28-hour rule.
    definite: bool
    detail: str


class CrcChallenge(NamedTuple):
    """The query of a CRC request, as the platform's look (recorded requests of 2026): `crc_token`,
    unpadded base64 of a random UUID's text, and `nonce`, unpadded base64 of the epoch milliseconds."""

    crc_token: str
    nonce: str


def crc_challenge(tokens: TokenSource, now_ms: int) -> CrcChallenge:
    ident = str(uuid.UUID(int=tokens.randint(0, (1 << 128) - 1), version=4))
    return CrcChallenge(_unpadded(ident), _unpadded(str(now_ms)))


def _unpadded(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode("ascii")).decode("ascii").rstrip("=")


class Outbound(Protocol):
    def requestable(self, url: str) -> bool:
        """Whether a CRC request to `url` can be built at all (the HTTP client's URL rules)."""
        ...

    async def crc(self, url: str, consumer_secret: str, challenge: CrcChallenge) -> CrcOutcome:
        """Send the CRC to `url` and judge the reply."""
        ...

    def replay_job_created(self) -> None:
        """A replay job was stored: the worker that runs them looks for it at once."""
        ...
