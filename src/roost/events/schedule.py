"""Scheduled CRC checks: every 30 minutes for a webhook not validated in the last 24 hours, and the
28-hour rule that marks a webhook invalid after transient failures."""

from __future__ import annotations

from roost.services import Services


class CrcScheduler:
    def __init__(self, services: Services) -> None:
        self.services = services

    async def tick(self) -> None:
        """Called on every dispatcher round (and at once after the clock moves); must not block on
        the network: CRC requests run as tasks of their own."""
        return None

    async def stop(self) -> None:
        return None
