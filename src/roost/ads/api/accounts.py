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
from roost.ads.paging import AdsResult, page_window, stored_page
from roost.ads.params import AdsParam, Bool, EnumList, Ids, Text, format_time
from roost.ads.params import Enum as EnumKind
from roost.storage.ads import AccountQuery

ACCOUNT_SORTS = ("created_at", "updated_at", "deleted", "name")


async def list_accounts(call: AdsCall) -> AdsResult:
    params = call.params
    offset, count = page_window(params)
    rows, total = await call.services.ads.accounts(
        AccountQuery(
            user_id=call.user_id,
            sandbox=call.sandbox,
            ids=params.get("account_ids"),
            name_prefix=params.get("q"),
            with_deleted=bool(params.get("with_deleted")),
            sort=params.get("sort_by"),
            offset=offset,
            limit=count,
            with_total=bool(params.get("with_total_count")),
        )
    )
    return stored_page([row["body"] for row in rows], offset, count, total, params)


async def get_account(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    return call.account["body"]


async def create_sandbox_account(call: AdsCall) -> AdsResult:
    async with call.services.db.transaction() as tx:
        body = await accounts.create_account(
            call.services, tx, owner_user_id=call.user_id, sandbox=True, now_ms=call.now_ms
        )
    # The platform answers this one create with a one-item list.
    return AdsResult([body], paged=True)


async def update_account(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    changes = {name: call.params[name] for name in ("name", "industry_type") if name in call.params}
    body = {**call.account["body"], **changes}
    body["updated_at"] = format_time(call.now_ms)
    async with call.services.db.transaction() as tx:
        await call.services.ads.update_account(tx, call.account_id, body, call.now_ms)
    return body


async def delete_sandbox_account(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    body = {**call.account["body"], "deleted": True, "updated_at": format_time(call.now_ms)}
    async with call.services.db.transaction() as tx:
        await call.services.ads.update_account(tx, call.account_id, body, call.now_ms)
    return body


async def authenticated_user_access(call: AdsCall) -> dict[str, Any]:
    return {"user_id": str(call.user_id), "permissions": list(call.permissions)}


async def get_features(call: AdsCall) -> list[str]:
    assert call.account is not None
    granted: list[str] = list(call.account["features"])
    wanted = call.params.get("feature_keys")
    return [key for key in granted if wanted is None or key in wanted]


async def add_features(call: AdsCall) -> list[str]:
    assert call.account is not None
    features = list(call.account["features"])
    features.extend(key for key in call.params["feature_keys"] if key not in features)
    async with call.services.db.transaction() as tx:
        await call.services.ads.set_account_json(tx, call.account_id, "features", features)
    return features


async def remove_features(call: AdsCall) -> list[str]:
    assert call.account is not None
    removing = set(call.params["feature_keys"])
    features = [key for key in call.account["features"] if key not in removing]
    async with call.services.db.transaction() as tx:
        await call.services.ads.set_account_json(tx, call.account_id, "features", features)
    return features


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
