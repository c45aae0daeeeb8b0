"""Likes, follows, blocks and mutes: the v2 write and read operations."""

from __future__ import annotations

from roost.core.operations import Operation

OPERATIONS: tuple[Operation, ...] = ()
