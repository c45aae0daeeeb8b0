"""Tracking tags: third-party impression tags attached to a line item."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.entities import Entities
from roost.storage.db import Database

KIND = "tracking_tag"
TAG_TYPES = ("IMPRESSION_TAG",)


def _checked_url(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in url.strip()):
        raise errors.invalid_parameter("tracking_tag_url", f'Expected URL, got "{url}" for tracking_tag_url')
    return url.strip()


class TrackingTags:
    def __init__(self, db: Database, entities: Entities) -> None:
        self._db = db
        self._entities = entities

    async def create(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        url = _checked_url(params["tracking_tag_url"])
        async with self._db.transaction() as tx:
            line_item = await self._entities.load(
                "line_item", actor.account_id, params["line_item_id"], parameter="line_item_id", reader=tx
            )
            line_item_id = line_item["body"]["id"]
            return await self._entities.create(
                tx,
                KIND,
                actor.account_id,
                {
                    "line_item_id": line_item_id,
                    "tracking_tag_type": params["tracking_tag_type"],
                    "tracking_tag_url": url,
                },
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=line_item_id,
            )

    async def delete(self, actor: Actor, tag_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._entities.load(KIND, actor.account_id, tag_id, reader=tx)
            return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)
