"""Activity events (XAA): subscriptions and the persistent activity stream."""

from __future__ import annotations

from roost.core.operations import Operation

OPERATIONS: tuple[Operation, ...] = ()
