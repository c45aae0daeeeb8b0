"""DM blocks and DM event deletion: the statements behind `/2/users/{id}/dm/block|unblock` and
`DELETE /2/dm_events/{event_id}`."""

from __future__ import annotations

from sqlalchemy import and_, bindparam, delete, select

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import dm_events
from roost.storage.schema_social import dm_blocks
from roost.storage.statements import insert_all

_pair = and_(dm_blocks.c.source_id == bindparam("source"), dm_blocks.c.target_id == bindparam("target"))
_block_exists = select(dm_blocks.c.source_id).where(_pair)
_insert_block = insert_all(dm_blocks)
_delete_block = delete(dm_blocks).where(_pair)
_all_blocks = select(dm_blocks).order_by(dm_blocks.c.source_id, dm_blocks.c.target_id)
_event = select(dm_events).where(dm_events.c.id == bindparam("id"))
_delete_event = delete(dm_events).where(dm_events.c.id == bindparam("id"))


async def dm_blocked(tx: Executor, source_id: int, target_id: int) -> bool:
    """Whether `source_id` refuses direct messages from `target_id`."""
    return await tx.fetch_one(_block_exists, {"source": source_id, "target": target_id}) is not None


async def insert_dm_block(tx: Executor, source_id: int, target_id: int, at_ms: int) -> None:
    await tx.execute(_insert_block, {"source_id": source_id, "target_id": target_id, "created_at": at_ms})


async def delete_dm_block(tx: Executor, source_id: int, target_id: int) -> bool:
    return await tx.execute(_delete_block, {"source": source_id, "target": target_id}) > 0


async def get_event_tx(tx: Executor, event_id: int) -> Row | None:
    return await tx.fetch_one(_event, {"id": event_id})


async def delete_event(tx: Executor, event_id: int) -> bool:
    return await tx.execute(_delete_event, {"id": event_id}) > 0


class DmBlockStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def all_blocks(self) -> list[Row]:
        """Every DM block (the export)."""
        return await self._db.fetch_all(_all_blocks)
