"""Targeting criteria: list, get, create, delete and the targeting criteria batch. The rules live in
roost/ads/targeting.py and roost/ads/targeting_criteria.py; the single POST and every batch item
run the same units of work inside one transaction."""

from __future__ import annotations

from typing import Any

from roost.ads import targeting as rules
from roost.ads.api.batch import parse_item
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Text
from roost.ads.params import Enum as EnumKind

ENTITY_SORTS = ("created_at", "updated_at", "deleted")
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


async def list_criteria(call: AdsCall) -> AdsResult:
    return await call.ads.targeting.page(call.account_id, call.params)


async def get_criterion(call: AdsCall) -> dict[str, Any]:
    return await call.ads.targeting.get(
        call.account_id,
        call.params["targeting_criterion_id"],
        with_deleted=bool(call.params.get("with_deleted")),
        lang=call.params.get("lang"),
    )


async def create_criterion(call: AdsCall) -> dict[str, Any]:
    return await call.ads.targeting.create(call.actor, call.params)


async def delete_criterion(call: AdsCall) -> dict[str, Any]:
    return await call.ads.targeting.delete(call.actor, call.params["targeting_criterion_id"])


async def batch_criteria(call: AdsCall) -> AdsResult:
    """Create and Delete items (no Update), read as the single POST and DELETE read theirs."""

    def parse(operation: str, raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        return parse_item(call.account_id, CREATE_PARAMS if operation == "Create" else DELETE_PARAMS, raw)

    return await call.ads.batches.targeting_criteria(call.actor, call.body, parse)


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
