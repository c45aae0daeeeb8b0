"""App lists, line item apps, and the behavior catalogs (global, like the other targeting catalogs)."""

from __future__ import annotations

from typing import Any

from roost.ads.api.lookup import requested
from roost.ads.app_lists import APP_LIST, LINE_ITEM_APP, LINE_ITEM_OS_TYPES, MAX_APPS
from roost.ads.call import AdsCall
from roost.ads.catalog import behaviors as behavior_catalog
from roost.ads.operations import (
    ACCOUNT_ID,
    ACCOUNT_READ,
    CATALOG,
    ENTITY_READ,
    WRITE,
    AdsOperation,
    list_params,
    path_param,
)
from roost.ads.paging import AdsResult, page_of
from roost.ads.params import AdsParam, Bool, Ids, Text, TextList
from roost.ads.params import Enum as EnumKind

ENTITY_SORTS = ("created_at", "updated_at", "deleted")
_APP_LISTS = "/accounts/{account_id}/app_lists"
_LINE_ITEM_APPS = "/accounts/{account_id}/line_item_apps"


async def list_app_lists(call: AdsCall) -> AdsResult:
    return await call.ads.app_lists.page(call.account_id, call.params)


async def get_app_list(call: AdsCall) -> dict[str, Any]:
    return await requested(call, APP_LIST, "app_list_id")


async def create_app_list(call: AdsCall) -> dict[str, Any]:
    return await call.ads.app_lists.create(call.actor, call.params)


async def delete_app_list(call: AdsCall) -> dict[str, Any]:
    return await call.ads.app_lists.delete(call.actor, call.params["app_list_id"])


async def list_line_item_apps(call: AdsCall) -> AdsResult:
    params = call.params
    return await call.ads.entities.page(
        LINE_ITEM_APP,
        call.account_id,
        params,
        ids=params.get("line_item_app_ids"),
        parent_ids=params.get("line_item_ids"),
    )


async def get_line_item_app(call: AdsCall) -> dict[str, Any]:
    return await requested(call, LINE_ITEM_APP, "line_item_app_id")


async def create_line_item_app(call: AdsCall) -> dict[str, Any]:
    return await call.ads.app_lists.add_to_line_item(call.actor, call.params)


async def delete_line_item_app(call: AdsCall) -> dict[str, Any]:
    return await call.ads.app_lists.remove_from_line_item(call.actor, call.params["line_item_app_id"])


async def behavior_taxonomies(call: AdsCall) -> AdsResult:
    params = call.params
    items = behavior_catalog.behavior_taxonomies(
        params.get("behavior_taxonomy_ids"), params.get("parent_behavior_taxonomy_ids")
    )
    return page_of(items, params)


async def behaviors(call: AdsCall) -> AdsResult:
    params = call.params
    items = behavior_catalog.behaviors(params.get("behavior_ids"), params["country_code"])
    sort = params.get("sort_by")
    if sort is not None:
        attribute, descending = sort
        items.sort(key=lambda item: str(item[attribute]).lower(), reverse=descending)
    return page_of(items, params)


CATALOG_PAGING = list_params(total=False, deleted=False)

OPERATIONS = [
    AdsOperation(
        "listAppLists",
        "GET",
        _APP_LISTS,
        list_app_lists,
        params=(ACCOUNT_ID, AdsParam("app_list_ids", Ids()), *list_params(sort=(*ENTITY_SORTS, "name"))),
        category=ACCOUNT_READ,
        paginated=True,
    ),
    AdsOperation(
        "getAppList",
        "GET",
        _APP_LISTS + "/{app_list_id}",
        get_app_list,
        params=(ACCOUNT_ID, path_param("app_list_id"), AdsParam("with_deleted", Bool(), default=False)),
        category=ACCOUNT_READ,
    ),
    AdsOperation(
        "createAppList",
        "POST",
        _APP_LISTS,
        create_app_list,
        params=(
            ACCOUNT_ID,
            AdsParam("name", Text(max_length=255, min_length=1), required=True),
            # The cap is checked after repeated identifiers are merged (app_lists.py).
            AdsParam("app_store_identifiers", TextList(max_items=MAX_APPS * 2), required=True),
        ),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteAppList",
        "DELETE",
        _APP_LISTS + "/{app_list_id}",
        delete_app_list,
        params=(ACCOUNT_ID, path_param("app_list_id")),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "listLineItemApps",
        "GET",
        _LINE_ITEM_APPS,
        list_line_item_apps,
        params=(
            ACCOUNT_ID,
            AdsParam("line_item_ids", Ids()),
            AdsParam("line_item_app_ids", Ids()),
            *list_params(sort=ENTITY_SORTS),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getLineItemApp",
        "GET",
        _LINE_ITEM_APPS + "/{line_item_app_id}",
        get_line_item_app,
        params=(ACCOUNT_ID, path_param("line_item_app_id"), AdsParam("with_deleted", Bool(), default=False)),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "createLineItemApp",
        "POST",
        _LINE_ITEM_APPS,
        create_line_item_app,
        params=(
            ACCOUNT_ID,
            AdsParam("line_item_id", Text(max_length=64), required=True),
            AdsParam("os_type", EnumKind(LINE_ITEM_OS_TYPES), required=True),
            AdsParam("app_store_identifier", Text(max_length=255, min_length=1), required=True),
        ),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteLineItemApp",
        "DELETE",
        _LINE_ITEM_APPS + "/{line_item_app_id}",
        delete_line_item_app,
        params=(ACCOUNT_ID, path_param("line_item_app_id")),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "getBehaviorTaxonomies",
        "GET",
        "/targeting_criteria/behavior_taxonomies",
        behavior_taxonomies,
        params=(
            AdsParam("behavior_taxonomy_ids", Ids()),
            AdsParam("parent_behavior_taxonomy_ids", Ids()),
            *CATALOG_PAGING,
        ),
        category=CATALOG,
        paginated=True,
    ),
    AdsOperation(
        "getBehaviors",
        "GET",
        "/targeting_criteria/behaviors",
        behaviors,
        params=(
            AdsParam("behavior_ids", Ids()),
            AdsParam("country_code", EnumKind(behavior_catalog.COUNTRIES), default="US"),
            *list_params(sort=("created_at", "updated_at", "deleted", "name"), total=False, deleted=False),
        ),
        category=CATALOG,
        paginated=True,
    ),
]
