"""Reads for ads analytics: the change history of the entities whose configuration drives the
delivery model (campaigns, line items, promoted products), for one account, oldest first."""

from __future__ import annotations

from sqlalchemy import bindparam, select

from roost.core import jsonio
from roost.storage.db import Database, Row
from roost.storage.schema_ads import ads_history

# The history types whose past states decide when an entity served.
DELIVERY_HISTORY_TYPES = ("CAMPAIGN", "LINE_ITEM", "PROMOTED_TWEET", "PROMOTED_ACCOUNT")

_delivery_history = (
    select(ads_history.c.entity_type, ads_history.c.entity_id, ads_history.c.change_time, ads_history.c.body)
    .where(
        ads_history.c.account_id == bindparam("account_id"),
        ads_history.c.change_time < bindparam("until"),
    )
    .order_by(ads_history.c.change_time, ads_history.c.id)
)


class AdsStatsStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def delivery_history(self, account_id: str, until_ms: int) -> list[Row]:
        """Every recorded change before `until_ms` of the account's delivering entities:
        `entity_type`, `entity_id`, `change_time` and `body` (`{"changes", "entity_data"}`)."""
        rows = await self.db.fetch_all(_delivery_history, {"account_id": account_id, "until": until_ms})
        out = []
        for row in rows:
            if row["entity_type"] not in DELIVERY_HISTORY_TYPES:
                continue  # filtered here: the statement cache binds no expanding IN lists
            decoded = dict(row)
            body = decoded["body"]
            decoded["body"] = jsonio.loads(body) if isinstance(body, str | bytes) else body
            out.append(decoded)
        return out
