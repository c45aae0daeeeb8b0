"""Custom audiences: the audiences (list, get, create, update, delete), their users upload, their
sharing permissions and the line items targeting them."""

from __future__ import annotations

from typing import Any

from roost.ads.audience_users import MAX_BODY_BYTES
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ACCOUNT_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Text
from roost.ads.params import Enum as EnumKind

AUDIENCE_ID = path_param("custom_audience_id")
PERMISSION_LEVELS = ("READ_ONLY", "READ_WRITE")
SORTS = ("created_at", "updated_at", "deleted", "name")
_AUDIENCES = "/accounts/{account_id}/custom_audiences"
_AUDIENCE = _AUDIENCES + "/{custom_audience_id}"


async def list_audiences(call: AdsCall) -> AdsResult:
    return await call.ads.audiences.page(call.account_id, call.params)


async def get_audience(call: AdsCall) -> dict[str, Any]:
    return await call.ads.audiences.get(
        call.account_id, call.params["custom_audience_id"], with_deleted=bool(call.params.get("with_deleted"))
    )


async def create_audience(call: AdsCall) -> dict[str, Any]:
    return await call.ads.audiences.create(call.actor, call.params)


async def update_audience(call: AdsCall) -> dict[str, Any]:
    return await call.ads.audiences.update(call.actor, call.params["custom_audience_id"], call.params)


async def delete_audience(call: AdsCall) -> dict[str, Any]:
    return await call.ads.audiences.delete(call.actor, call.params["custom_audience_id"])


async def upload_users(call: AdsCall) -> dict[str, int]:
    return await call.ads.audiences.upload_users(call.actor, call.params["custom_audience_id"], call.body)


async def list_permissions(call: AdsCall) -> AdsResult:
    return await call.ads.audiences.permissions(
        call.account_id, call.params["custom_audience_id"], call.params
    )


async def grant_permission(call: AdsCall) -> dict[str, Any]:
    return await call.ads.audiences.grant(call.actor, call.params["custom_audience_id"], call.params)


async def revoke_permission(call: AdsCall) -> dict[str, Any]:
    params = call.params
    return await call.ads.audiences.revoke(
        call.actor, params["custom_audience_id"], params["custom_audience_permission_id"]
    )


async def targeted(call: AdsCall) -> AdsResult:
    return await call.ads.audiences.targeted(call.account_id, call.params["custom_audience_id"], call.params)


OPERATIONS = [
    AdsOperation(
        "listCustomAudiences",
        "GET",
        _AUDIENCES,
        list_audiences,
        params=(
            ACCOUNT_ID,
            AdsParam("custom_audience_ids", Ids()),
            AdsParam("permission_scope", EnumKind(("OWNER", "SHARED")), default="OWNER"),
            AdsParam("q", Text(max_length=255, min_length=1)),
            *list_params(sort=SORTS),
        ),
        category=ACCOUNT_READ,
        paginated=True,
    ),
    AdsOperation(
        "getCustomAudience",
        "GET",
        _AUDIENCE,
        get_audience,
        params=(ACCOUNT_ID, AUDIENCE_ID, AdsParam("with_deleted", Bool(), default=False)),
        category=ACCOUNT_READ,
    ),
    AdsOperation(
        "createCustomAudience",
        "POST",
        _AUDIENCES,
        create_audience,
        params=(
            ACCOUNT_ID,
            AdsParam("name", Text(max_length=255, min_length=1), required=True),
            AdsParam("description", Text(max_length=1024)),
        ),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "updateCustomAudience",
        "PUT",
        _AUDIENCE,
        update_audience,
        params=(
            ACCOUNT_ID,
            AUDIENCE_ID,
            AdsParam("name", Text(max_length=255, min_length=1)),
            AdsParam("description", Text(max_length=1024), nullable=True),
        ),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteCustomAudience",
        "DELETE",
        _AUDIENCE,
        delete_audience,
        params=(ACCOUNT_ID, AUDIENCE_ID),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "updateCustomAudienceUsers",
        "POST",
        _AUDIENCE + "/users",
        upload_users,
        params=(ACCOUNT_ID, AUDIENCE_ID),
        category=WRITE,
        write=True,
        body="json",
        max_body=MAX_BODY_BYTES,
    ),
    AdsOperation(
        "listCustomAudiencePermissions",
        "GET",
        _AUDIENCE + "/permissions",
        list_permissions,
        params=(
            ACCOUNT_ID,
            AUDIENCE_ID,
            AdsParam("granted_account_ids", Ids()),
            AdsParam("custom_audience_permission_ids", Ids()),
            *list_params(sort=("created_at", "updated_at"), deleted=False),
        ),
        category=ACCOUNT_READ,
        paginated=True,
    ),
    AdsOperation(
        "createCustomAudiencePermission",
        "POST",
        _AUDIENCE + "/permissions",
        grant_permission,
        params=(
            ACCOUNT_ID,
            AUDIENCE_ID,
            AdsParam("granted_account_id", Text(max_length=64, min_length=1), required=True),
            AdsParam("permission_level", EnumKind(PERMISSION_LEVELS), required=True),
        ),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteCustomAudiencePermission",
        "DELETE",
        _AUDIENCE + "/permissions/{custom_audience_permission_id}",
        revoke_permission,
        params=(ACCOUNT_ID, AUDIENCE_ID, path_param("custom_audience_permission_id")),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "getCustomAudienceTargeted",
        "GET",
        _AUDIENCE + "/targeted",
        targeted,
        params=(
            ACCOUNT_ID,
            AUDIENCE_ID,
            AdsParam("with_active", Bool(), default=True),
            *list_params(total=False, deleted=False),
        ),
        category=ACCOUNT_READ,
        paginated=True,
    ),
]
