"""The media library, account media and media creatives of an ads account (issue 23)."""

from __future__ import annotations

from typing import Any

from roost.ads.api.lookup import requested
from roost.ads.call import AdsCall
from roost.ads.media_library import ACCOUNT_MEDIA, CREATIVE_TYPES, MEDIA_CREATIVE, MEDIA_TYPES
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, EnumList, Ids, Int, Text
from roost.ads.params import Enum as EnumKind

SORTS = ("created_at", "updated_at", "deleted")
WITH_DELETED = AdsParam("with_deleted", Bool(), default=False)
MEDIA_KEY = path_param("media_key")
LIBRARY_FIELDS = (
    AdsParam("name", Text(max_length=100)),
    AdsParam("file_name", Text(max_length=255)),
    AdsParam("title", Text(max_length=70)),
    AdsParam("description", Text(max_length=200)),
    AdsParam("poster_media_key", Text(max_length=64)),
)


async def list_library(call: AdsCall) -> AdsResult:
    return await call.ads.media_library.page(call.account_id, call.params)


async def get_library_item(call: AdsCall) -> dict[str, Any]:
    return await call.ads.media_library.get(call.account_id, call.params["media_key"])


async def add_library_item(call: AdsCall) -> dict[str, Any]:
    return await call.ads.media_library.add(call.actor, call.params)


async def update_library_item(call: AdsCall) -> dict[str, Any]:
    return await call.ads.media_library.update(call.actor, call.params["media_key"], call.params)


async def delete_library_item(call: AdsCall) -> dict[str, Any]:
    return await call.ads.media_library.delete(call.actor, call.params["media_key"])


async def list_account_media(call: AdsCall) -> AdsResult:
    return await call.ads.media_library.account_media_page(call.account_id, call.params)


async def get_account_media(call: AdsCall) -> dict[str, Any]:
    return await requested(call, ACCOUNT_MEDIA, "account_media_id")


async def delete_account_media(call: AdsCall) -> dict[str, Any]:
    return await call.ads.media_library.delete_account_media(call.actor, call.params["account_media_id"])


async def list_creatives(call: AdsCall) -> AdsResult:
    return await call.ads.media_library.creatives_page(call.account_id, call.params)


async def get_creative(call: AdsCall) -> dict[str, Any]:
    return await requested(call, MEDIA_CREATIVE, "media_creative_id")


async def create_creative(call: AdsCall) -> dict[str, Any]:
    return await call.ads.media_library.create_creative(call.actor, call.params)


async def delete_creative(call: AdsCall) -> dict[str, Any]:
    return await call.ads.media_library.delete_creative(call.actor, call.params["media_creative_id"])


LIBRARY = "/accounts/{account_id}/media_library"
ACCOUNT_MEDIA_PATH = "/accounts/{account_id}/account_media"
CREATIVES = "/accounts/{account_id}/media_creatives"

OPERATIONS = [
    AdsOperation(
        "listMediaLibrary",
        "GET",
        LIBRARY,
        list_library,
        params=(
            ACCOUNT_ID,
            AdsParam("count", Int(1, 50), default=20),
            AdsParam("cursor", Text(max_length=512)),
            AdsParam("media_type", EnumKind(MEDIA_TYPES)),
            AdsParam("q", Text(max_length=255, min_length=1)),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getMediaLibraryItem",
        "GET",
        f"{LIBRARY}/{{media_key}}",
        get_library_item,
        params=(ACCOUNT_ID, MEDIA_KEY),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "addMediaLibraryItem",
        "POST",
        LIBRARY,
        add_library_item,
        params=(ACCOUNT_ID, AdsParam("media_key", Text(max_length=64), required=True), *LIBRARY_FIELDS),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "updateMediaLibraryItem",
        "PUT",
        f"{LIBRARY}/{{media_key}}",
        update_library_item,
        params=(ACCOUNT_ID, MEDIA_KEY, *LIBRARY_FIELDS),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteMediaLibraryItem",
        "DELETE",
        f"{LIBRARY}/{{media_key}}",
        delete_library_item,
        params=(ACCOUNT_ID, MEDIA_KEY),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "listAccountMedia",
        "GET",
        ACCOUNT_MEDIA_PATH,
        list_account_media,
        params=(
            ACCOUNT_ID,
            AdsParam("account_media_ids", Ids()),
            AdsParam("creative_types", EnumList(CREATIVE_TYPES)),
            *list_params(SORTS),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getAccountMedia",
        "GET",
        f"{ACCOUNT_MEDIA_PATH}/{{account_media_id}}",
        get_account_media,
        params=(ACCOUNT_ID, path_param("account_media_id"), WITH_DELETED),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "deleteAccountMedia",
        "DELETE",
        f"{ACCOUNT_MEDIA_PATH}/{{account_media_id}}",
        delete_account_media,
        params=(ACCOUNT_ID, path_param("account_media_id")),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "listMediaCreatives",
        "GET",
        CREATIVES,
        list_creatives,
        params=(
            ACCOUNT_ID,
            AdsParam("campaign_id", Text(max_length=64)),
            AdsParam("line_item_ids", Ids()),
            AdsParam("media_creative_ids", Ids()),
            *list_params(SORTS),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getMediaCreative",
        "GET",
        f"{CREATIVES}/{{media_creative_id}}",
        get_creative,
        params=(ACCOUNT_ID, path_param("media_creative_id"), WITH_DELETED),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "createMediaCreative",
        "POST",
        CREATIVES,
        create_creative,
        params=(
            ACCOUNT_ID,
            AdsParam("account_media_id", Text(max_length=64), required=True),
            AdsParam("line_item_id", Text(max_length=64), required=True),
            AdsParam("landing_url", Text(max_length=2048)),
        ),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteMediaCreative",
        "DELETE",
        f"{CREATIVES}/{{media_creative_id}}",
        delete_creative,
        params=(ACCOUNT_ID, path_param("media_creative_id")),
        category=WRITE,
        write=True,
    ),
]
