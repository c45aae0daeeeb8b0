"""Targeting criteria: list, get, create, delete and the targeting criteria batch. The rules live in
roost/ads/targeting.py; the single POST and every batch item run the same `create_in` / `delete_in`
inside one transaction and one `Workspace`."""

from __future__ import annotations

from typing import Any

from roost.ads import entities, errors
from roost.ads import targeting as rules
from roost.ads.api.batch import parse_item, run_batch
from roost.ads.api.lookup import requested
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Text
from roost.ads.params import Enum as EnumKind
from roost.storage.ads import EntityQuery
from roost.storage.db import Executor

KIND = "targeting_criterion"
ENTITY_SORTS = ("created_at", "updated_at", "deleted")
BATCH_MAX = 500
BATCH_OPERATIONS = ("Create", "Delete")
LANG = AdsParam("lang", Text(min_length=2, max_length=10))
WITH_DELETED = AdsParam("with_deleted", Bool(), default=False)
CREATE_PARAMS = (
    ACCOUNT_ID,
    AdsParam("line_item_id", Text(max_length=64), required=True),
    AdsParam("targeting_type", EnumKind(rules.TARGETING_TYPES), required=True),
    AdsParam("targeting_value", Text(max_length=1024), required=True),
    AdsParam("operator_type", EnumKind(rules.OPERATORS), required=True),
)
DELETE_PARAMS = (ACCOUNT_ID, AdsParam("targeting_criterion_id", Text(max_length=64), required=True))


# ---- the shared units of work ----------------------------------------------------------------


async def create_in(ws: rules.Workspace, params: dict[str, Any], now_ms: int, user_id: int) -> dict[str, Any]:
    """Validate and store one criterion inside the workspace's transaction (single POST and batch)."""
    services, tx, account_id = ws.services, ws.tx, ws.account_id
    line_item = await entities.load(
        services,
        "line_item",
        account_id,
        params["line_item_id"],
        parameter="line_item_id",
        reader=tx,
    )
    line_item_id = line_item["body"]["id"]
    resolved = await rules.resolve(
        services, account_id, params["targeting_type"], params["targeting_value"], params["operator_type"], tx
    )
    current = await ws.criteria(line_item_id)
    existing = rules.check_line_item(current, resolved)
    if existing is not None:
        return existing
    body = await entities.create(
        services,
        tx,
        KIND,
        account_id,
        resolved.attributes(line_item_id),
        now_ms=now_ms,
        user_id=user_id,
        parent_id=line_item_id,
    )
    await ws.added(body)
    if resolved.targeting_type == "IAB_CATEGORY":
        ws.iab_touched.add(line_item_id)
    return body


async def delete_in(ws: rules.Workspace, criterion_id: str, now_ms: int, user_id: int) -> dict[str, Any]:
    row = await entities.load(
        ws.services,
        KIND,
        ws.account_id,
        criterion_id,
        parameter="targeting_criterion_id",
        reader=ws.tx,
    )
    body = await entities.delete(ws.services, ws.tx, row, now_ms=now_ms, user_id=user_id)
    await ws.removed(body)
    return body


async def finish(ws: rules.Workspace) -> None:
    """Rules over a request's whole result: a request that adds IAB categories must leave whole
    content categories (deleting is always allowed, so a category can be taken apart item by item)."""
    for line_item_id in sorted(ws.iab_touched):
        rules.check_content_categories(await ws.criteria(line_item_id))


# ---- handlers --------------------------------------------------------------------------------


async def list_criteria(call: AdsCall) -> AdsResult:
    query = EntityQuery(
        KIND,
        call.account_id,
        ids=call.params.get("targeting_criterion_ids"),
        parent_ids=call.params["line_item_ids"],
    )
    result = await entities.list_page(call.services, query, call.params)
    result.data = [rules.localized(body, call.params.get("lang")) for body in result.data]
    return result


async def get_criterion(call: AdsCall) -> dict[str, Any]:
    row = await requested(call, KIND, "targeting_criterion_id")
    return rules.localized(row["body"], call.params.get("lang"))


async def create_criterion(call: AdsCall) -> dict[str, Any]:
    async with call.services.db.transaction() as tx:
        ws = rules.Workspace(call.services, tx, call.account_id)
        body = await create_in(ws, call.params, call.now_ms, call.user_id)
        await finish(ws)
        return body


async def delete_criterion(call: AdsCall) -> dict[str, Any]:
    async with call.services.db.transaction() as tx:
        ws = rules.Workspace(call.services, tx, call.account_id)
        return await delete_in(ws, call.params["targeting_criterion_id"], call.now_ms, call.user_id)


# ---- batch -----------------------------------------------------------------------------------


async def batch_criteria(call: AdsCall) -> AdsResult:
    """Create and Delete items (no Update) through the shared `run_batch`: one transaction, one
    `Workspace`, so each item sees what the items before it created or deleted."""
    items = call.body if isinstance(call.body, list) else []
    applicable = sum(
        1 for item in items if isinstance(item, dict) and item.get("operation_type") in BATCH_OPERATIONS
    )
    state: dict[str, Any] = {"ws": None, "applied": 0}

    async def apply(tx: Executor, operation: str, raw: dict[str, Any]) -> dict[str, Any]:
        if state["ws"] is None:
            state["ws"] = rules.Workspace(call.services, tx, call.account_id)
        ws: rules.Workspace = state["ws"]
        state["applied"] += 1
        declared = CREATE_PARAMS if operation == "Create" else DELETE_PARAMS
        params, echo = parse_item(call, declared, raw)
        try:
            if operation == "Create":
                body = await create_in(ws, params, call.now_ms, call.user_id)
            else:
                body = await delete_in(ws, params["targeting_criterion_id"], call.now_ms, call.user_id)
            if state["applied"] == applicable:
                # Whole-request rules run once every item is in; the last item carries their error.
                await finish(ws)
        except errors.AdsError as error:
            raise error.with_params(echo) from None
        return body

    return await run_batch(call, KIND, BATCH_MAX, BATCH_OPERATIONS, apply)


OPERATIONS = [
    AdsOperation(
        "listTargetingCriteria",
        "GET",
        "/accounts/{account_id}/targeting_criteria",
        list_criteria,
        params=(
            ACCOUNT_ID,
            AdsParam("line_item_ids", Ids(), required=True),
            AdsParam("targeting_criterion_ids", Ids()),
            LANG,
            *list_params(sort=ENTITY_SORTS),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getTargetingCriterion",
        "GET",
        "/accounts/{account_id}/targeting_criteria/{targeting_criterion_id}",
        get_criterion,
        params=(ACCOUNT_ID, path_param("targeting_criterion_id"), LANG, WITH_DELETED),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "createTargetingCriterion",
        "POST",
        "/accounts/{account_id}/targeting_criteria",
        create_criterion,
        params=CREATE_PARAMS,
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteTargetingCriterion",
        "DELETE",
        "/accounts/{account_id}/targeting_criteria/{targeting_criterion_id}",
        delete_criterion,
        params=(ACCOUNT_ID, path_param("targeting_criterion_id")),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "batchTargetingCriteria",
        "POST",
        "/batch/accounts/{account_id}/targeting_criteria",
        batch_criteria,
        params=(ACCOUNT_ID,),
        category=WRITE,
        write=True,
        body="json",
    ),
]
