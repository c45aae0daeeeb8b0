"""What the domain asks of the world outside the database, declared here and implemented by the event
layer (`events/outbound.py`), which `wiring.py` hands to the services that need it. The domain itself
makes no network calls and starts no background work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class CrcOutcome:
    """How a challenge-response check (CRC) of a webhook URL went."""

    passed: bool
    # A definite failure (2XX with a wrong token, a 3XX, a TLS error) invalidates at once; a transient
    # one (4XX, 5XX, timeout, closed connection) only after the 28-hour rule.
    definite: bool
    detail: str


class Outbound(Protocol):
    def requestable(self, url: str) -> bool:
        """Whether a CRC request to `url` can be built at all (the HTTP client's URL rules)."""
        ...

    async def crc(self, url: str, consumer_secret: str, crc_token: str) -> CrcOutcome:
        """Send the CRC to `url` and judge the reply."""
        ...

    def replay_job_created(self) -> None:
        """A replay job was stored: the worker that runs them looks for it at once."""
        ...
