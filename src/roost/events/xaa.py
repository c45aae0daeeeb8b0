"""Activity-events (XAA) fan-out: event-log rows → activity envelopes for subscriptions with a webhook."""

from __future__ import annotations

from roost.events.outgoing import Outgoing
from roost.services import Services
from roost.storage.db import Row


async def xaa_outgoing(services: Services, event: Row) -> list[Outgoing]:
    return []
