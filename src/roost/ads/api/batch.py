"""Batch operations: campaigns and line items (and, through `run_batch`, other kinds).

A batch is a JSON array of `{"operation_type", "params"}` items, applied all or nothing in one
transaction: every item is validated with the same functions the single-item endpoints use; when
any item fails, nothing is written and the response lists each item's problems under
`operation_errors` (an empty list for good items). Request-level problems use `errors`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from roost.ads import campaigns, errors, line_items
from roost.ads.api import campaigns as campaign_api
from roost.ads.api import line_items as line_item_api
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, WRITE, AdsOperation
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Enum, Text, parse_all
from roost.storage.db import Executor

MAX_ITEMS = 40
CRUD = ("Create", "Update", "Delete")

# apply_item(tx, operation_type, raw item params) -> the item's API object; raise AdsError for an
# item problem (use `parse_item`, which attaches the typed echo to the error).
ApplyItem = Callable[[Executor, str, dict[str, Any]], Awaitable[dict[str, Any]]]


class _Rollback(Exception):
    """Raised inside the batch transaction so that nothing of a failed batch is written."""


def parse_item(
    call: AdsCall, declared: Sequence[AdsParam], raw: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Typed values and echo of one item's params (the account comes from the path)."""
    values, echo, problems = parse_all(declared, raw, path={"account_id": call.account_id})
    if problems:
        raise errors.AdsError(400, problems, params=echo)
    return values, echo


def _echo(raw: dict[str, Any], error: errors.AdsError | None, account_id: str) -> dict[str, Any]:
    shown = error.body.get("request", {}).get("params") if error is not None else None
    params = {k: v for k, v in (shown or raw).items() if k != "account_id"}
    params["account_id"] = account_id
    return params


def _items(body: Any, max_items: int) -> list[dict[str, Any]]:
    if not isinstance(body, list):
        raise errors.invalid_parameter(None, "Expected a JSON array of batch items")
    if not body:
        raise errors.invalid_parameter(None, "A minimum of 1 items must be provided for the batch")
    if len(body) > max_items:
        raise errors.invalid_parameter(None, f"A maximum of {max_items} items can be provided for the batch")
    return body


def _operation(sent: Any, allowed: Sequence[str]) -> tuple[str | None, errors.AdsError | None]:
    """An item's `operation_type`, checked as any required enum parameter is, so that a missing
    one is MISSING_PARAMETER rather than a bad value."""
    declared = (AdsParam("operation_type", Enum(tuple(allowed)), required=True),)
    values, _, problems = parse_all(declared, {"operation_type": sent}, path={})
    if problems:
        return None, errors.AdsError(400, problems)
    return values["operation_type"], None


async def run_batch(
    call: AdsCall,
    data_type: str,
    max_items: int,
    allowed_operations: Sequence[str],
    apply_item: ApplyItem,
) -> AdsResult:
    """Apply every item in one transaction; any item failing rolls all of them back (400 with
    `operation_errors` index-aligned with the items, `[]` for good ones). Item order is kept."""
    items = _items(call.body, max_items)
    data: list[dict[str, Any]] = []
    echoes: list[dict[str, Any]] = []
    problems: list[list[dict[str, Any]]] = []
    try:
        async with call.services.db.transaction() as tx:
            for item in items:
                sent = item.get("operation_type") if isinstance(item, dict) else None
                raw = item.get("params") if isinstance(item, dict) else None
                raw = raw if isinstance(raw, dict) else {}
                operation, error = _operation(sent, allowed_operations)
                if operation is not None:
                    try:
                        data.append(await apply_item(tx, operation, raw))
                    except errors.AdsError as failed:
                        error = failed
                echo: dict[str, Any] = {"params": _echo(raw, error, call.account_id)}
                if sent is not None:  # like any parameter, shown only when sent
                    echo["operation_type"] = sent
                echoes.append(echo)
                problems.append(list(error.items) if error is not None else [])
            if any(problems):
                raise _Rollback
    except _Rollback:
        raise errors.operation_errors(problems, echoes) from None
    return AdsResult(data, extra={"data_type": data_type}, request=echoes)


# ---- campaigns and line items -------------------------------------------------------------------


def _declared(kind: str, operation: str) -> tuple[AdsParam, ...]:
    key = AdsParam(f"{kind}_id", Text(max_length=64), required=True)
    api = campaign_api if kind == "campaign" else line_item_api
    if operation == "Create":
        return api.CREATE_PARAMS
    if operation == "Update":
        return (ACCOUNT_ID, key, *api.UPDATE_FIELDS)
    return (ACCOUNT_ID, key)


async def batch_campaigns(call: AdsCall) -> AdsResult:
    assert call.account is not None
    account, services = call.account, call.services
    now, user = call.now_ms, call.user_id

    async def apply(tx: Executor, operation: str, raw: dict[str, Any]) -> dict[str, Any]:
        params, echo = parse_item(call, _declared("campaign", operation), raw)
        try:
            if operation == "Create":
                body = await campaigns.create_campaign(
                    services, tx, account, params, now_ms=now, user_id=user
                )
            elif operation == "Update":
                body = await campaigns.update_campaign(
                    services, tx, account, params["campaign_id"], params, now_ms=now, user_id=user
                )
            else:
                body = await campaigns.delete_campaign(
                    services, tx, account, params["campaign_id"], now_ms=now, user_id=user
                )
        except errors.AdsError as error:
            raise error.with_params(echo) from None
        return (await campaigns.presented(services, call.account_id, [body], tx))[0]

    return await run_batch(call, "campaign", MAX_ITEMS, CRUD, apply)


async def batch_line_items(call: AdsCall) -> AdsResult:
    assert call.account is not None
    account, services = call.account, call.services
    now, user = call.now_ms, call.user_id

    async def apply(tx: Executor, operation: str, raw: dict[str, Any]) -> dict[str, Any]:
        params, echo = parse_item(call, _declared("line_item", operation), raw)
        line_item_api.branded_echo(echo, services.settings.brand)
        try:
            if operation == "Create":
                body = await line_items.create_line_item(
                    services, tx, account, params, now_ms=now, user_id=user
                )
            elif operation == "Update":
                body = await line_items.update_line_item(
                    services, tx, account, params["line_item_id"], params, now_ms=now, user_id=user
                )
            else:
                body = await line_items.delete_line_item(
                    services, tx, account, params["line_item_id"], now_ms=now, user_id=user
                )
        except errors.AdsError as error:
            raise error.with_params(echo) from None
        return line_items.presented(body, services.settings.brand)

    return await run_batch(call, "line_item", MAX_ITEMS, CRUD, apply)


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
