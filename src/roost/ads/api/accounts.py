"""Accounts, authenticated_user_access and features."""

from __future__ import annotations

from typing import Any

from roost.ads import accounts
from roost.ads.call import AdsCall
from roost.ads.operations import (
    ACCOUNT_ID,
    ACCOUNT_LIST,
    ACCOUNT_READ,
    ENTITY_READ,
    WRITE,
    AdsOperation,
    list_params,
)
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, EnumList, Ids, Text
from roost.ads.params import Enum as EnumKind

ACCOUNT_SORTS = ("created_at", "updated_at", "deleted", "name")


async def list_accounts(call: AdsCall) -> AdsResult:
    return await call.ads.accounts.page(call.user_id, call.sandbox, call.params)


async def get_account(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    return call.account["body"]  # loaded and checked by the pipeline


async def create_sandbox_account(call: AdsCall) -> AdsResult:
    body = await call.ads.accounts.create_sandbox(call.user_id, call.now_ms)
    # The platform answers this one create with a one-item list.
    return AdsResult([body], paged=True)


async def update_account(call: AdsCall) -> dict[str, Any]:
    changes: dict[str, Any] = {
        name: call.params[name] for name in ("name", "industry_type") if name in call.params
    }
    return await call.ads.accounts.update(call.actor, changes)


async def delete_sandbox_account(call: AdsCall) -> dict[str, Any]:
    return await call.ads.accounts.delete_sandbox(call.actor)


async def authenticated_user_access(call: AdsCall) -> dict[str, Any]:
    return {"user_id": str(call.user_id), "permissions": list(call.permissions)}


async def get_features(call: AdsCall) -> list[str]:
    assert call.account is not None
    return call.ads.accounts.features(call.account, call.params.get("feature_keys"))


async def add_features(call: AdsCall) -> list[str]:
    assert call.account is not None
    return await call.ads.accounts.add_features(call.account, call.params["feature_keys"])


async def remove_features(call: AdsCall) -> list[str]:
    assert call.account is not None
    return await call.ads.accounts.remove_features(call.account, call.params["feature_keys"])


OPERATIONS = [
    AdsOperation(
        "listAdsAccounts",
        "GET",
        "/accounts",
        list_accounts,
        params=(
            AdsParam("account_ids", Ids()),
            AdsParam("q", Text(max_length=255, min_length=1)),
            *list_params(sort=ACCOUNT_SORTS),
        ),
        category=ACCOUNT_LIST,
        paginated=True,
    ),
    AdsOperation(
        "getAdsAccount",
        "GET",
        "/accounts/{account_id}",
        get_account,
        params=(ACCOUNT_ID, AdsParam("with_deleted", Bool(), default=False)),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "createSandboxAccount",
        "POST",
        "/accounts",
        create_sandbox_account,
        category=WRITE,
        write=True,
        sandbox_only=True,
    ),
    AdsOperation(
        "updateAdsAccount",
        "PUT",
        "/accounts/{account_id}",
        update_account,
        params=(
            ACCOUNT_ID,
            AdsParam("name", Text(max_length=255, min_length=1)),
            AdsParam("industry_type", EnumKind(accounts.INDUSTRY_TYPES)),
        ),
        category=WRITE,
        write=True,
        roles=("ACCOUNT_ADMIN",),
    ),
    AdsOperation(
        "deleteSandboxAccount",
        "DELETE",
        "/accounts/{account_id}",
        delete_sandbox_account,
        params=(ACCOUNT_ID,),
        category=WRITE,
        write=True,
        sandbox_only=True,
        roles=("ACCOUNT_ADMIN",),
    ),
    AdsOperation(
        "getAuthenticatedUserAccess",
        "GET",
        "/accounts/{account_id}/authenticated_user_access",
        authenticated_user_access,
        params=(ACCOUNT_ID,),
        category=ACCOUNT_READ,
    ),
    AdsOperation(
        "getAccountFeatures",
        "GET",
        "/accounts/{account_id}/features",
        get_features,
        params=(ACCOUNT_ID, AdsParam("feature_keys", EnumList(accounts.FEATURE_FILTER_KEYS))),
        category=ACCOUNT_READ,
    ),
    AdsOperation(
        "addSandboxFeatures",
        "POST",
        "/accounts/{account_id}/features",
        add_features,
        params=(ACCOUNT_ID, AdsParam("feature_keys", EnumList(accounts.FEATURE_KEYS), required=True)),
        category=WRITE,
        write=True,
        sandbox_only=True,
    ),
    AdsOperation(
        "removeSandboxFeatures",
        "DELETE",
        "/accounts/{account_id}/features",
        remove_features,
        params=(ACCOUNT_ID, AdsParam("feature_keys", EnumList(accounts.FEATURE_KEYS), required=True)),
        category=WRITE,
        write=True,
        sandbox_only=True,
    ),
]
