"""Entity lifecycle shared by every ads resource: ids, timestamps, soft delete, history, lookups
and list pages. Resource services add their own rules on top; none of this knows HTTP."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from roost.ads import errors
from roost.ads.ids import entity_id
from roost.ads.paging import AdsResult, page_window, stored_page
from roost.ads.params import format_time
from roost.core.ids import SnowflakeGenerator
from roost.core.records import Row
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Executor

# account_history names the kinds it tracks.
HISTORY_TYPES = {
    "campaign": "CAMPAIGN",
    "line_item": "LINE_ITEM",
    "promoted_tweet": "PROMOTED_TWEET",
    "targeting_criterion": "TARGETING_CRITERIA",
    "promoted_account": "PROMOTED_ACCOUNT",
}
_TAIL = ("created_at", "updated_at", "deleted")

# Sort attributes the objects no longer carry, derived from ones they do: promoted products lost
# `paused` to `entity_status` but their lists still sort by it (not paused first when ascending).
DERIVED_SORTS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "paused": lambda body: body.get("entity_status") == "PAUSED",
}


def _ordered(body: dict[str, Any]) -> dict[str, Any]:
    """`id` first and the timestamps and `deleted` last, as the platform orders its objects."""
    head = {"id": body["id"]}
    head.update((k, v) for k, v in body.items() if k != "id" and k not in _TAIL)
    head.update((k, body[k]) for k in _TAIL if k in body)
    return head


class Entities:
    """Entities of every kind in the ads store: writes inside the caller's transaction (each one
    recorded in the account history when its kind is tracked), reads and list pages."""

    def __init__(self, store: AdsStore, ids: SnowflakeGenerator) -> None:
        self._store = store
        self._ids = ids  # history rows

    # ---- writes (inside the caller's transaction) -------------------------------------------

    async def create(
        self,
        tx: Executor,
        kind: str,
        account_id: str,
        attributes: dict[str, Any],
        *,
        now_ms: int,
        user_id: int | None,
        parent_id: str | None = None,
        funding_instrument_id: str | None = None,
        ident: str | None = None,
    ) -> dict[str, Any]:
        """Store a new entity; returns its API object. `ident`: an id the kind takes elsewhere (the
        snowflake ids of cards and draft and scheduled posts) instead of one from its sequence."""
        if ident is None:
            ident = entity_id(kind, await self._store.next_sequence(tx, kind))
        stamp = format_time(now_ms)
        body = _ordered(
            {
                "id": ident,
                **attributes,
                "created_at": stamp,
                "updated_at": stamp,
                "deleted": False,
            }
        )
        await self._store.insert_entity(
            tx,
            {
                "kind": kind,
                "account_id": account_id,
                "parent_id": parent_id,
                "funding_instrument_id": funding_instrument_id,
                "created_at": now_ms,
                "updated_at": now_ms,
                "body": body,
            },
        )
        await self._history(tx, kind, account_id, body, "CREATE", now_ms, user_id, attributes)
        return body

    async def update(
        self,
        tx: Executor,
        row: Row,
        changes: dict[str, Any],
        *,
        now_ms: int,
        user_id: int | None,
        parent_id: str | None = None,
    ) -> dict[str, Any]:
        """Apply changed attributes to a stored entity; returns the new API object."""
        before = row["body"]
        body = _ordered({**before, **changes, "updated_at": format_time(now_ms)})
        await self._store.update_entity(
            tx,
            {
                "parent_id": parent_id if parent_id is not None else row["parent_id"],
                "funding_instrument_id": row["funding_instrument_id"],
                "updated_at": now_ms,
                "body": body,
            },
        )
        diff = {k: {"old": before.get(k), "new": v} for k, v in changes.items() if before.get(k) != v}
        await self._history(tx, row["kind"], row["account_id"], body, "UPDATE", now_ms, user_id, diff)
        return body

    async def delete(
        self, tx: Executor, row: Row, *, now_ms: int, user_id: int | None, **changes: Any
    ) -> dict[str, Any]:
        """Soft delete: the object stays readable with `with_deleted=true`."""
        body = _ordered({**row["body"], **changes, "deleted": True, "updated_at": format_time(now_ms)})
        await self._store.update_entity(
            tx,
            {
                "parent_id": row["parent_id"],
                "funding_instrument_id": row["funding_instrument_id"],
                "updated_at": now_ms,
                "body": body,
            },
        )
        await self._history(tx, row["kind"], row["account_id"], body, "DELETE", now_ms, user_id, {})
        return body

    async def _history(
        self,
        tx: Executor,
        kind: str,
        account_id: str,
        body: dict[str, Any],
        change_type: str,
        now_ms: int,
        user_id: int | None,
        changes: dict[str, Any],
    ) -> None:
        entity_type = HISTORY_TYPES.get(kind)
        if entity_type is None:
            return
        await self._store.append_history(
            tx,
            {
                "id": self._ids.next_id(),
                "account_id": account_id,
                "entity_type": entity_type,
                "entity_id": body["id"],
                "change_type": change_type,
                "change_time": now_ms,
                "user_id": user_id,
                "body": {"changes": changes, "entity_data": body},
            },
        )

    # ---- reads ------------------------------------------------------------------------------

    async def load(
        self,
        kind: str,
        account_id: str,
        ident: str,
        *,
        with_deleted: bool = False,
        parameter: str | None = None,
        reader: Executor | None = None,
    ) -> Row:
        """The stored entity or the platform's 404 (`Campaign x was not found for Account y`)."""
        row = await self._store.entity(ident, reader)
        if (
            row is None
            or row["kind"] != kind
            or row["account_id"] != account_id
            or (row["deleted"] and not with_deleted)
        ):
            raise errors.not_found(kind, ident, account_id, parameter)
        return row

    async def get(self, kind: str, account_id: str, ident: str, *, with_deleted: bool) -> dict[str, Any]:
        """The API object of a single-entity GET (`with_deleted` honoured)."""
        return (await self.load(kind, account_id, ident, with_deleted=with_deleted))["body"]

    async def page(
        self,
        kind: str,
        account_id: str,
        params: dict[str, Any],
        *,
        ids: Sequence[str] | None = None,
        parent_ids: Sequence[str] | None = None,
    ) -> AdsResult:
        """A list request's page of one kind, filtered by ids and parents when given."""
        return await self.list_page(EntityQuery(kind, account_id, ids=ids, parent_ids=parent_ids), params)

    async def list_page(
        self, query: EntityQuery, params: dict[str, Any], reader: Executor | None = None
    ) -> AdsResult:
        """A list request's page: count, cursor, sort_by, with_deleted and with_total_count applied."""
        offset, count = page_window(params)
        sort = params.get("sort_by")
        if sort is not None and sort[0] in DERIVED_SORTS:
            return await self._derived_page(query, params, sort, reader)
        query = replace(
            query,
            with_deleted=bool(params.get("with_deleted")),
            sort=sort,
            offset=offset,
            limit=count,
            with_total=bool(params.get("with_total_count")),
        )
        rows, total = await self._store.entities(query, reader)
        return stored_page([row["body"] for row in rows], offset, count, total, params)

    async def _derived_page(
        self,
        query: EntityQuery,
        params: dict[str, Any],
        sort: tuple[str, bool],
        reader: Executor | None,
    ) -> AdsResult:
        """A page sorted by a derived attribute: every match is read (oldest first, the tie order of
        the other sorts) and sorted here; the stable sort keeps that order among equals."""
        offset, count = page_window(params)
        query = replace(query, with_deleted=bool(params.get("with_deleted")), sort=None)
        rows, _ = await self._store.entities(query, reader)
        key = DERIVED_SORTS[sort[0]]
        bodies = sorted((row["body"] for row in rows), key=key, reverse=sort[1])
        total = len(bodies) if params.get("with_total_count") else None
        return stored_page(bodies[offset : offset + count + 1], offset, count, total, params)
