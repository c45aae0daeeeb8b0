"""`/2/connections` (`Domain.connections`): an app's active and historical streaming connections in
every server process sharing the database, and ending them. A deleted connection is closed at once
here when this process holds it; its row is closed and a `stream.connections.delete` event tells the
process holding any other one to end it (with the in-band `operational-disconnect` line).
"""

from __future__ import annotations

from typing import Any

from roost.core import errors, pagination
from roost.core.clock import Clock, iso_ms
from roost.core.ids import SnowflakeGenerator
from roost.core.pagination import PageToken
from roost.core.records import Row
from roost.events.connections import OPERATOR, TERMINATE_EVENT, Registry
from roost.storage.db import Database
from roost.storage.events import append_event
from roost.storage.streams import StreamStore

MAX_UUIDS = 100
PAGE_SCOPE = "connections"
_CHUNK = 200  # inactive rows read at a time while filling a page


def _history_item(row: Row, fields: frozenset[str]) -> dict[str, Any]:
    """A connection as listed: id, endpoint_name and connected_at always (2.159 requires the last
    two); the rest when asked for and known."""
    item: dict[str, Any] = {
        "id": str(row["id"]),
        "endpoint_name": str(row["endpoint"]),
        "connected_at": iso_ms(int(row["connected_at"])),
    }
    if "disconnected_at" in fields and row["disconnected_at"] is not None:
        item["disconnected_at"] = iso_ms(int(row["disconnected_at"]))
    if "disconnect_reason" in fields and row["disconnect_reason"] is not None:
        item["disconnect_reason"] = row["disconnect_reason"]
    if "client_ip" in fields and row.get("client_ip"):
        item["client_ip"] = row["client_ip"]
    return item


def _cursor(token: PageToken | None) -> tuple[int, str] | None:
    """The `pagination_token`: the (connected_at, id) of the last connection of the previous page."""
    if token is None:
        return None
    at, _, ident = token.key(PAGE_SCOPE).partition(":")
    if not (at.isascii() and at.isdigit() and ident):
        raise token.invalid()
    return int(at), ident


def _uuids(body: Any) -> list[str]:
    """The `{"uuids": [...]}` body of `DELETE /2/connections`, each uuid once."""
    if not isinstance(body, dict):
        raise errors.invalid_body("$: must be an object")
    extra = sorted(set(body) - {"uuids"})
    if extra:
        raise errors.invalid_body(
            f"$.{extra[0]}: is not defined in the schema and the schema does not allow additional properties"
        )
    uuids = body.get("uuids")
    if uuids is None:
        raise errors.invalid_body("$.uuids: is missing but it is required")
    if not isinstance(uuids, list) or not all(isinstance(u, str) for u in uuids):
        raise errors.invalid_body("$.uuids: must be an array of strings")
    if not 1 <= len(uuids) <= MAX_UUIDS:
        raise errors.invalid_body(f"$.uuids: must have between 1 and {MAX_UUIDS} items")
    return list(dict.fromkeys(uuids))


class ConnectionAdmin:
    def __init__(
        self, registry: Registry, store: StreamStore, db: Database, clock: Clock, ids: SnowflakeGenerator
    ) -> None:
        self._registry = registry
        self._store = store
        self._db = db
        self._clock = clock
        self._ids = ids

    async def active_rows(self, app_id: int) -> list[Row]:
        """The app's open connections in every process sharing the database, newest first."""
        return await self._store.active_of_app(app_id, self._registry.fresh_since())

    # ---- listing ----------------------------------------------------------------------------------

    async def listing(
        self,
        app_id: int,
        status: str,
        endpoints: frozenset[str] | None,
        max_results: int,
        token: PageToken | None,
        fields: frozenset[str] | None,
    ) -> dict[str, Any]:
        """`GET /2/connections`: `active`, `inactive` or `all` connections, newest first, paged."""
        fields = fields or frozenset()
        cursor = _cursor(token)

        def after_cursor(connected_at: int, ident: str) -> bool:
            return cursor is None or (-connected_at, ident) > (-cursor[0], cursor[1])

        found: list[tuple[int, str, dict[str, Any]]] = []  # newest first, then by id
        if status in ("active", "all"):
            found.extend(
                (int(row["connected_at"]), str(row["id"]), _history_item(row, fields))
                for row in await self.active_rows(app_id)
                if (endpoints is None or row["endpoint"] in endpoints)
                and after_cursor(int(row["connected_at"]), str(row["id"]))
            )
        if status in ("inactive", "all"):
            before_at, after_id = cursor if cursor is not None else (1 << 62, "")
            fresh = self._registry.fresh_since()
            # Read in chunks until the page (and one more, for next_token) is filled after filtering.
            while True:
                rows = await self._store.inactive_of_app(app_id, _CHUNK, fresh, before_at, after_id)
                found.extend(
                    (int(row["connected_at"]), str(row["id"]), _history_item(row, fields))
                    for row in rows
                    if endpoints is None or row["endpoint"] in endpoints
                )
                if len(rows) < _CHUNK or len(found) > max_results:
                    break
                before_at, after_id = int(rows[-1]["connected_at"]), str(rows[-1]["id"])
        found.sort(key=lambda f: (-f[0], f[1]))
        page = found[:max_results]
        meta: dict[str, Any] = {"result_count": len(page)}
        if len(found) > max_results:
            connected_at, ident, _ = page[-1]
            meta["next_token"] = pagination.encode_key(f"{connected_at}:{ident}", PAGE_SCOPE)
        body: dict[str, Any] = {"meta": meta}
        if page:
            body["data"] = [item for _, _, item in page]
        return body

    # ---- ending connections -----------------------------------------------------------------------

    async def _open_ids(self, app_id: int) -> dict[str, str]:
        """The app's open connections (uuid → endpoint) in every process."""
        return {str(row["id"]): str(row["endpoint"]) for row in await self.active_rows(app_id)}

    async def delete_all(self, app_id: int) -> dict[str, Any]:
        return await self._kills(app_id, list(await self._open_ids(app_id)))

    async def delete_endpoint(self, app_id: int, endpoint: str) -> dict[str, Any]:
        chosen = [ident for ident, name in (await self._open_ids(app_id)).items() if name == endpoint]
        return await self._kills(app_id, chosen)

    async def delete_uuids(self, app_id: int, body: Any) -> dict[str, Any]:
        uuids = _uuids(body)
        mine = await self._open_ids(app_id)
        return await self._kills(app_id, [u for u in uuids if u in mine], [u for u in uuids if u not in mine])

    async def _kills(
        self, app_id: int, chosen: list[str], missing: list[str] | None = None
    ) -> dict[str, Any]:
        missing = missing or []
        await self.terminate(app_id, chosen)
        results: list[dict[str, Any]] = [{"uuid": ident, "success": True} for ident in chosen]
        results.extend(
            {"uuid": u, "success": False, "error_message": "Connection not found"} for u in missing
        )
        return {"data": {"successful_kills": len(chosen), "failed_kills": len(missing), "results": results}}

    async def terminate(self, app_id: int, uuids: list[str]) -> None:
        """End connections wherever they are held: this process's at once; the rows are closed and a
        `stream.connections.delete` event tells the process holding any other one to end it."""
        if not uuids:
            return
        registry = self._registry
        for ident in uuids:
            entry = registry.active.get(ident)
            if entry is not None and entry.app_id == app_id:
                registry.kill(entry)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            for ident in uuids:
                await StreamStore.close_in(tx, ident, now, OPERATOR)
            await append_event(
                tx,
                event_id=self._ids.next_id(),
                kind=TERMINATE_EVENT,
                created_at=now,
                user_id=None,
                object_id=app_id,
                payload={"uuids": uuids},
            )
