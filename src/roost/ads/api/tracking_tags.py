"""Tracking tags: third-party impression tags attached to a line item (list, get, create, delete)."""

from __future__ import annotations

from typing import Any

from roost.ads.api.lookup import requested
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Text
from roost.ads.params import Enum as EnumKind
from roost.ads.tracking_tags import KIND, TAG_TYPES

ENTITY_SORTS = ("created_at", "updated_at", "deleted")


async def list_tags(call: AdsCall) -> AdsResult:
    params = call.params
    return await call.ads.entities.page(
        KIND,
        call.account_id,
        params,
        ids=params.get("tracking_tag_ids"),
        parent_ids=params.get("line_item_ids"),
    )


async def get_tag(call: AdsCall) -> dict[str, Any]:
    return await requested(call, KIND, "tracking_tag_id")


async def create_tag(call: AdsCall) -> dict[str, Any]:
    return await call.ads.tracking_tags.create(call.actor, call.params)


async def delete_tag(call: AdsCall) -> dict[str, Any]:
    return await call.ads.tracking_tags.delete(call.actor, call.params["tracking_tag_id"])


OPERATIONS = [
    AdsOperation(
        "listTrackingTags",
        "GET",
        "/accounts/{account_id}/tracking_tags",
        list_tags,
        params=(
            ACCOUNT_ID,
            AdsParam("line_item_ids", Ids()),
            AdsParam("tracking_tag_ids", Ids()),
            *list_params(sort=ENTITY_SORTS),
        ),
        category=ENTITY_READ,
        paginated=True,
    ),
    AdsOperation(
        "getTrackingTag",
        "GET",
        "/accounts/{account_id}/tracking_tags/{tracking_tag_id}",
        get_tag,
        params=(ACCOUNT_ID, path_param("tracking_tag_id"), AdsParam("with_deleted", Bool(), default=False)),
        category=ENTITY_READ,
    ),
    AdsOperation(
        "createTrackingTag",
        "POST",
        "/accounts/{account_id}/tracking_tags",
        create_tag,
        params=(
            ACCOUNT_ID,
            AdsParam("line_item_id", Text(max_length=64), required=True),
            AdsParam("tracking_tag_type", EnumKind(TAG_TYPES), required=True),
            AdsParam("tracking_tag_url", Text(max_length=2048), required=True),
        ),
        category=WRITE,
        write=True,
    ),
    AdsOperation(
        "deleteTrackingTag",
        "DELETE",
        "/accounts/{account_id}/tracking_tags/{tracking_tag_id}",
        delete_tag,
        params=(ACCOUNT_ID, path_param("tracking_tag_id")),
        category=WRITE,
        write=True,
    ),
]
