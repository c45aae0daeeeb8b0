"""Filtered stream: rules and the stream itself."""

from __future__ import annotations

from roost.core.operations import Operation

OPERATIONS: tuple[Operation, ...] = ()
