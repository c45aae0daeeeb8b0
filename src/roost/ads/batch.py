"""Batch operations: campaigns, line items and targeting criteria, applied all or nothing.

A batch is a JSON array of `{"operation_type", "params"}` items, applied in one transaction: every
item is checked with the same rules the single-item endpoints use; when any item fails, nothing is
written and the response lists each item's problems under `operation_errors` (an empty list for
good items). Request-level problems use `errors`. Reading an item's parameters is the caller's
(`ParseItem`): the batch knows the rules, not the parameter declarations of the endpoints.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.campaigns import Campaigns
from roost.ads.line_items import LineItems, presented
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Enum, parse_all
from roost.ads.targeting_criteria import KIND as CRITERION
from roost.ads.targeting_criteria import Targeting, Workspace
from roost.storage.db import Database, Executor

MAX_ITEMS = 40
CRUD = ("Create", "Update", "Delete")
CRITERIA_MAX = 500
CRITERIA_OPERATIONS = ("Create", "Delete")

# parse_item(operation_type, raw item params) -> (typed values, echo); raises AdsError for an item
# whose parameters are wrong (with the echo attached).
ParseItem = Callable[[str, dict[str, Any]], tuple[dict[str, Any], dict[str, Any]]]
# apply_item(tx, operation_type, raw item params) -> the item's API object; raises AdsError.
ApplyItem = Callable[[Executor, str, dict[str, Any]], Awaitable[dict[str, Any]]]


class _Rollback(Exception):
    """Raised inside the batch transaction so that nothing of a failed batch is written."""


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


class Batches:
    def __init__(
        self, db: Database, campaigns: Campaigns, line_items: LineItems, targeting: Targeting
    ) -> None:
        self._db = db
        self._campaigns = campaigns
        self._line_items = line_items
        self._targeting = targeting

    async def campaigns(self, actor: Actor, body: Any, parse: ParseItem) -> AdsResult:
        campaigns = self._campaigns

        async def apply(tx: Executor, operation: str, raw: dict[str, Any]) -> dict[str, Any]:
            params, echo = parse(operation, raw)
            try:
                if operation == "Create":
                    created = await campaigns.create_in(tx, actor, params)
                elif operation == "Update":
                    created = await campaigns.update_in(tx, actor, params["campaign_id"], params)
                else:
                    created = await campaigns.delete_in(tx, actor, params["campaign_id"])
            except errors.AdsError as error:
                raise error.with_params(echo) from None
            return (await campaigns.presented(actor.account_id, [created], tx))[0]

        return await self._run(actor, body, "campaign", MAX_ITEMS, CRUD, apply)

    async def line_items(self, actor: Actor, body: Any, parse: ParseItem) -> AdsResult:
        line_items = self._line_items

        async def apply(tx: Executor, operation: str, raw: dict[str, Any]) -> dict[str, Any]:
            params, echo = parse(operation, raw)
            try:
                if operation == "Create":
                    stored = await line_items.create_in(tx, actor, params)
                elif operation == "Update":
                    stored = await line_items.update_in(tx, actor, params["line_item_id"], params)
                else:
                    stored = await line_items.delete_in(tx, actor, params["line_item_id"])
            except errors.AdsError as error:
                raise error.with_params(echo) from None
            return presented(stored, line_items.brand)

        return await self._run(actor, body, "line_item", MAX_ITEMS, CRUD, apply)

    async def targeting_criteria(self, actor: Actor, body: Any, parse: ParseItem) -> AdsResult:
        """Create and Delete items (no Update): one transaction, one `Workspace`, so each item sees
        what the items before it created or deleted."""
        targeting = self._targeting
        items = body if isinstance(body, list) else []
        applicable = sum(
            1
            for item in items
            if isinstance(item, dict) and item.get("operation_type") in CRITERIA_OPERATIONS
        )
        workspace: list[Workspace] = []  # made with the batch's transaction, on the first item
        applied = 0

        async def apply(tx: Executor, operation: str, raw: dict[str, Any]) -> dict[str, Any]:
            nonlocal applied
            if not workspace:
                workspace.append(targeting.workspace(tx, actor))
            ws = workspace[0]
            applied += 1
            params, echo = parse(operation, raw)
            try:
                if operation == "Create":
                    done = await targeting.create_in(ws, params)
                else:
                    done = await targeting.delete_in(ws, params["targeting_criterion_id"])
                if applied == applicable:
                    # Whole-request rules run once every item is in; the last item carries their error.
                    await targeting.finish(ws)
            except errors.AdsError as error:
                raise error.with_params(echo) from None
            return done

        return await self._run(actor, body, CRITERION, CRITERIA_MAX, CRITERIA_OPERATIONS, apply)

    async def _run(
        self,
        actor: Actor,
        body: Any,
        data_type: str,
        max_items: int,
        allowed_operations: Sequence[str],
        apply_item: ApplyItem,
    ) -> AdsResult:
        """Apply every item in one transaction; any item failing rolls all of them back (400 with
        `operation_errors` index-aligned with the items, `[]` for good ones). Item order is kept."""
        items = _items(body, max_items)
        data: list[dict[str, Any]] = []
        echoes: list[dict[str, Any]] = []
        problems: list[list[dict[str, Any]]] = []
        try:
            async with self._db.transaction() as tx:
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
                    echo: dict[str, Any] = {"params": _echo(raw, error, actor.account_id)}
                    if sent is not None:  # like any parameter, shown only when sent
                        echo["operation_type"] = sent
                    echoes.append(echo)
                    problems.append(list(error.items) if error is not None else [])
                if any(problems):
                    raise _Rollback
        except _Rollback:
            raise errors.operation_errors(problems, echoes) from None
        return AdsResult(data, extra={"data_type": data_type}, request=echoes)
