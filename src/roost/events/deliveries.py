"""The delivery rows and their attempts as `GET /_roost/deliveries` lists them (tests and tools)."""

from __future__ import annotations

from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.records import Row
from roost.storage.deliveries import DeliveryStore


def _iso(value: Any) -> str | None:
    return iso_ms(int(value)) if value is not None else None


def render_delivery(row: Row) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "webhook_id": str(row["webhook_id"]),
        "event_id": str(row["event_id"]),
        "event_position": int(row["event_position"]),
        "for_user_id": str(row["for_user_id"]),
        "route": row["route"],
        "state": row["state"],
        "attempts": int(row["attempts"]),
        "next_attempt_at": _iso(row["next_attempt_at"]),
        "last_status": row["last_status"],
        "last_latency_ms": row["last_latency_ms"],
        "delivered_at": _iso(row["delivered_at"]),
        "created_at": _iso(row["created_at"]),
        "payload": jsonio.loads(row["body"]),
    }


class DeliveryRecords:
    def __init__(self, store: DeliveryStore) -> None:
        self._store = store

    async def listing(self, webhook_id: int | None) -> list[dict[str, Any]]:
        """The rows of one webhook (of every webhook when None), rendered."""
        return [render_delivery(row) for row in await self._store.listing(webhook_id)]

    async def backlog(self) -> tuple[dict[str, int], int]:
        """Rows by state, and the events not yet turned into deliveries (the metrics' gauges)."""
        return await self._store.counts_by_state(), await self._store.lag()
