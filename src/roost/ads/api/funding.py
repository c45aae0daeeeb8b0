"""Funding instruments (list, get; sandbox create and delete) and promotable users (list, get)."""

from __future__ import annotations

from typing import Any

from roost.ads.api.lookup import requested
from roost.ads.call import AdsCall
from roost.ads.catalog import CURRENCIES
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Long, Time
from roost.ads.params import Enum as EnumKind

FUNDING_TYPES = ("AGENCY_CREDIT_LINE", "CREDIT_CARD", "CREDIT_LINE", "INSERTION_ORDER", "PARTNER_MANAGED")
FUNDING_SORTS = ("created_at", "updated_at", "deleted", "funded_amount_local_micro", "start_time", "end_time")
ENTITY_SORTS = ("created_at", "updated_at", "deleted")
WITH_DELETED = AdsParam("with_deleted", Bool(), default=False)


async def list_funding_instruments(call: AdsCall) -> AdsResult:
    ids = call.params.get("funding_instrument_ids")
    return await call.ads.entities.page("funding_instrument", call.account_id, call.params, ids=ids)


async def get_funding_instrument(call: AdsCall) -> dict[str, Any]:
    return await requested(call, "funding_instrument", "funding_instrument_id")


async def create_funding_instrument(call: AdsCall) -> dict[str, Any]:
    return await call.ads.accounts.create_funding_instrument(call.actor, call.params)


async def delete_funding_instrument(call: AdsCall) -> dict[str, Any]:
    return await call.ads.accounts.delete_funding_instrument(call.actor, call.params["funding_instrument_id"])


async def list_promotable_users(call: AdsCall) -> AdsResult:
    ids = call.params.get("promotable_user_ids")
    return await call.ads.entities.page("promotable_user", call.account_id, call.params, ids=ids)


async def get_promotable_user(call: AdsCall) -> dict[str, Any]:
    return await requested(call, "promotable_user", "promotable_user_id")


OPERATIONS = [
    AdsOperation(
        "listFundingInstruments",
        "GET",
        "/accounts/{account_id}/funding_instruments",
        list_funding_instruments,
        params=(ACCOUNT_ID, AdsParam("funding_instrument_ids", Ids()), *list_params(sort=FUNDING_SORTS)),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getFundingInstrument",
        "GET",
        "/accounts/{account_id}/funding_instruments/{funding_instrument_id}",
        get_funding_instrument,
        params=(ACCOUNT_ID, path_param("funding_instrument_id"), WITH_DELETED),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "createSandboxFundingInstrument",
        "POST",
        "/accounts/{account_id}/funding_instruments",
        create_funding_instrument,
        params=(
            ACCOUNT_ID,
            # The bidding-rules table is roost's list of currencies: bids and budgets are checked
            # against the instrument's currency there, so any other currency would have no rules.
            AdsParam("currency", EnumKind(CURRENCIES), required=True),
            AdsParam("start_time", Time(), required=True),
            AdsParam("type", EnumKind(FUNDING_TYPES), required=True),
            AdsParam("end_time", Time()),
            AdsParam("credit_limit_local_micro", Long(low=0)),
            AdsParam("funded_amount_local_micro", Long(low=0)),
        ),
        category=WRITE,
        write=True,
        sandbox_only=True,
    ),
    AdsOperation(
        "deleteSandboxFundingInstrument",
        "DELETE",
        "/accounts/{account_id}/funding_instruments/{funding_instrument_id}",
        delete_funding_instrument,
        params=(ACCOUNT_ID, path_param("funding_instrument_id")),
        category=WRITE,
        write=True,
        sandbox_only=True,
    ),
    AdsOperation(
        "listPromotableUsers",
        "GET",
        "/accounts/{account_id}/promotable_users",
        list_promotable_users,
        params=(ACCOUNT_ID, AdsParam("promotable_user_ids", Ids()), *list_params(sort=ENTITY_SORTS)),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getPromotableUser",
        "GET",
        "/accounts/{account_id}/promotable_users/{promotable_user_id}",
        get_promotable_user,
        params=(ACCOUNT_ID, path_param("promotable_user_id"), WITH_DELETED),
        category=ENTITY_READ,
    ),
]
