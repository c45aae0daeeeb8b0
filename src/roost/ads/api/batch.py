"""Batch operations on campaigns and line items (the targeting criteria batch is in targeting.py).

The batch itself, one transaction applied all or nothing, is the rule layer's (`roost.ads.batch`);
what a handler adds is how each item's parameters are read: as the single-item endpoint reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.ads import errors
from roost.ads.api import campaigns as campaign_api
from roost.ads.api import line_items as line_item_api
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, WRITE, AdsOperation
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Text, parse_all


def parse_item(
    account_id: str, declared: Sequence[AdsParam], raw: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Typed values and echo of one item's params (the account comes from the path)."""
    values, echo, problems = parse_all(declared, raw, path={"account_id": account_id})
    if problems:
        raise errors.AdsError(400, problems, params=echo)
    return values, echo


def _declared(kind: str, operation: str) -> tuple[AdsParam, ...]:
    key = AdsParam(f"{kind}_id", Text(max_length=64), required=True)
    api = campaign_api if kind == "campaign" else line_item_api
    if operation == "Create":
        return api.CREATE_PARAMS
    if operation == "Update":
        return (ACCOUNT_ID, key, *api.UPDATE_FIELDS)
    return (ACCOUNT_ID, key)


async def batch_campaigns(call: AdsCall) -> AdsResult:
    def parse(operation: str, raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        return parse_item(call.account_id, _declared("campaign", operation), raw)

    return await call.ads.batches.campaigns(call.actor, call.body, parse)


async def batch_line_items(call: AdsCall) -> AdsResult:
    def parse(operation: str, raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        params, echo = parse_item(call.account_id, _declared("line_item", operation), raw)
        return params, line_item_api.branded_echo(echo, call.ads.line_items)

    return await call.ads.batches.line_items(call.actor, call.body, parse)


OPERATIONS = [
    AdsOperation(
        "batchCampaigns",
        "POST",
        "/batch/accounts/{account_id}/campaigns",
        batch_campaigns,
        params=(ACCOUNT_ID,),
        category=WRITE,
        write=True,
        body="json",
    ),
    AdsOperation(
        "batchLineItems",
        "POST",
        "/batch/accounts/{account_id}/line_items",
        batch_line_items,
        params=(ACCOUNT_ID,),
        category=WRITE,
        write=True,
        body="json",
    ),
]
