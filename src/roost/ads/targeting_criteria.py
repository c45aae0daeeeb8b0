"""Targeting criteria of line items: reads, the single create and delete, the units of work a
targeting batch repeats, and the audience estimate. The value rules live in targeting.py."""

from __future__ import annotations

from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.entities import Entities
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Text, parse_all
from roost.ads.params import Enum as EnumKind
from roost.ads.targeting import (
    OPERATORS,
    TARGETING_TYPES,
    Resolved,
    Resolver,
    check_content_categories,
    check_line_item,
    localized,
)
from roost.ads.targeting_estimate import estimate, has_primary
from roost.storage import ads_targeting
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database, Executor

KIND = "targeting_criterion"
ESTIMATE_MAX = 1_000  # criteria per estimate
# One criterion of an audience estimate's body.
ESTIMATE_CRITERION = (
    AdsParam("targeting_type", EnumKind(TARGETING_TYPES), required=True),
    AdsParam("targeting_value", Text(max_length=1024), required=True),
    AdsParam("operator_type", EnumKind(OPERATORS), default="EQ"),
)


class Workspace:
    """The live criteria of the line items one request touches, read once inside its transaction
    and kept in step with what the request writes, so later batch items see earlier ones."""

    def __init__(self, store: AdsStore, tx: Executor, actor: Actor) -> None:
        self._store = store
        self.tx = tx
        self.actor = actor
        self._criteria: dict[str, list[dict[str, Any]]] = {}
        self.iab_touched: set[str] = set()

    async def criteria(self, line_item_id: str) -> list[dict[str, Any]]:
        if line_item_id not in self._criteria:
            await ads_targeting.lock_entity(self.tx, line_item_id)
            query = EntityQuery(KIND, self.actor.account_id, parent_ids=[line_item_id])
            rows, _ = await self._store.entities(query, self.tx)
            self._criteria[line_item_id] = [row["body"] for row in rows]
        return self._criteria[line_item_id]

    async def added(self, body: dict[str, Any]) -> None:
        (await self.criteria(body["line_item_id"])).append(body)

    async def removed(self, body: dict[str, Any]) -> None:
        current = await self.criteria(body["line_item_id"])
        current[:] = [c for c in current if c["id"] != body["id"]]


class Targeting:
    """Targeting criteria: one implementation for the single POST and DELETE and every batch item,
    which run `create_in` / `delete_in` inside one transaction and one `Workspace`."""

    def __init__(self, db: Database, store: AdsStore, entities: Entities, resolver: Resolver) -> None:
        self._db = db
        self._store = store
        self._entities = entities
        self._resolver = resolver

    # ---- reads ------------------------------------------------------------------------------

    async def page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        query = EntityQuery(
            KIND,
            account_id,
            ids=params.get("targeting_criterion_ids"),
            parent_ids=params["line_item_ids"],
        )
        result = await self._entities.list_page(query, params)
        result.data = [localized(body, params.get("lang")) for body in result.data]
        return result

    async def get(
        self, account_id: str, criterion_id: str, *, with_deleted: bool, lang: str | None
    ) -> dict[str, Any]:
        body = await self._entities.get(KIND, account_id, criterion_id, with_deleted=with_deleted)
        return localized(body, lang)

    # ---- single-item writes -----------------------------------------------------------------

    async def create(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            ws = self.workspace(tx, actor)
            body = await self.create_in(ws, params)
            await self.finish(ws)
            return body

    async def delete(self, actor: Actor, criterion_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            return await self.delete_in(self.workspace(tx, actor), criterion_id)

    # ---- the units of work (single requests and batch items) --------------------------------

    def workspace(self, tx: Executor, actor: Actor) -> Workspace:
        return Workspace(self._store, tx, actor)

    async def create_in(self, ws: Workspace, params: dict[str, Any]) -> dict[str, Any]:
        """Validate and store one criterion inside the workspace's transaction."""
        tx, actor = ws.tx, ws.actor
        line_item = await self._entities.load(
            "line_item", actor.account_id, params["line_item_id"], parameter="line_item_id", reader=tx
        )
        line_item_id = line_item["body"]["id"]
        resolved = await self._resolver.resolve(
            actor.account_id,
            params["targeting_type"],
            params["targeting_value"],
            params["operator_type"],
            tx,
        )
        current = await ws.criteria(line_item_id)
        existing = check_line_item(current, resolved)
        if existing is not None:
            return existing
        body = await self._entities.create(
            tx,
            KIND,
            actor.account_id,
            resolved.attributes(line_item_id),
            now_ms=actor.now_ms,
            user_id=actor.user_id,
            parent_id=line_item_id,
        )
        await ws.added(body)
        if resolved.targeting_type == "IAB_CATEGORY":
            ws.iab_touched.add(line_item_id)
        return body

    async def delete_in(self, ws: Workspace, criterion_id: str) -> dict[str, Any]:
        actor = ws.actor
        row = await self._entities.load(
            KIND, actor.account_id, criterion_id, parameter="targeting_criterion_id", reader=ws.tx
        )
        body = await self._entities.delete(ws.tx, row, now_ms=actor.now_ms, user_id=actor.user_id)
        await ws.removed(body)
        return body

    async def finish(self, ws: Workspace) -> None:
        """Rules over a request's whole result: a request that adds IAB categories must leave whole
        content categories (deleting is always allowed, so a category can be taken apart item by item)."""
        for line_item_id in sorted(ws.iab_touched):
            check_content_categories(await ws.criteria(line_item_id))

    # ---- audience estimate ------------------------------------------------------------------

    async def audience_estimate(self, account_id: str, body: Any) -> dict[str, int]:
        """`{"min", "max"}` of the audience the body's criteria reach; every criterion is checked as
        a criterion of a line item would be."""
        resolved: list[Resolved] = []
        for item in _criteria_of(body):
            if not isinstance(item, dict):
                raise errors.invalid_parameter(
                    "targeting_criteria", "Each targeting criterion must be an object"
                )
            values, _, problems = parse_all(ESTIMATE_CRITERION, item, {})
            if problems:
                raise errors.AdsError(400, problems)
            resolved.append(
                await self._resolver.resolve(
                    account_id, values["targeting_type"], values["targeting_value"], values["operator_type"]
                )
            )
        if not has_primary(resolved):
            raise errors.invalid_parameter(
                "targeting_criteria",
                "At least one primary targeting criterion is required (followers, custom audiences, "
                "interests, keywords, TV shows, conversations, events or engagement)",
            )
        return estimate(resolved)


def _criteria_of(body: Any) -> list[Any]:
    """`{"targeting_criteria": [...]}`, or the bare array some clients send."""
    criteria = body.get("targeting_criteria") if isinstance(body, dict) else body
    if criteria is None:
        raise errors.missing_parameter("targeting_criteria")
    if not isinstance(criteria, list):
        raise errors.invalid_parameter("targeting_criteria", "Expected an array of targeting criteria")
    if not criteria:
        raise errors.invalid_parameter(
            "targeting_criteria", "A minimum of 1 items must be provided for targeting_criteria"
        )
    if len(criteria) > ESTIMATE_MAX:
        raise errors.invalid_parameter(
            "targeting_criteria", f"A maximum of {ESTIMATE_MAX} items can be provided for targeting_criteria"
        )
    return criteria
