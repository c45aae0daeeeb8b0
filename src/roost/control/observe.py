"""What watches the requests (issue 17): the journal's listeners (metrics counters, usage counts,
the access log when `--access-log` asks for it) and the control-plane routes that show them:
`/_roost/metrics`, `/_roost/usage`, `/_roost/prices`, `/_roost/limits`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from starlette.routing import BaseRoute

from roost.ads.api.registry import all_ads_operations
from roost.config import Settings
from roost.control.limits import limit_routes
from roost.control.metrics import RequestMetrics, metrics_routes
from roost.control.usage import usage_routes
from roost.core.access_log import AccessLog
from roost.core.journal import RequestJournal

if TYPE_CHECKING:
    from roost.wiring import Server


def observe(
    journal: RequestJournal, settings: Settings, server: Server, other_operations: Iterable[str] = ()
) -> list[BaseRoute]:
    """Attach the listeners to `journal`; the routes that show what they count. `other_operations`
    are operation names besides the v2 and ads ids that may be priced (the v1.1 paths)."""
    metrics = RequestMetrics()
    ledger = server.domain.ledger
    ledger.with_operations([*(op.operation_id for op in all_ads_operations()), *other_operations])
    journal.listeners += [metrics, ledger]
    if settings.access_log:
        journal.listeners.append(AccessLog())
    return [
        *metrics_routes(metrics, server.domain.deliveries, server.domain.streams),
        *usage_routes(ledger),
        *limit_routes(server.stages.limiter, server.stages.clock),
    ]
