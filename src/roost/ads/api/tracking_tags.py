"""Tracking tags: third-party impression tags attached to a line item (list, get, create, delete)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from roost.ads import entities, errors
from roost.ads.api.lookup import requested
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ENTITY_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Bool, Ids, Text
from roost.ads.params import Enum as EnumKind
from roost.storage.ads import EntityQuery

KIND = "tracking_tag"
TAG_TYPES = ("IMPRESSION_TAG",)
ENTITY_SORTS = ("created_at", "updated_at", "deleted")


def _checked_url(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in url.strip()):
        raise errors.invalid_parameter("tracking_tag_url", f'Expected URL, got "{url}" for tracking_tag_url')
    return url.strip()


async def list_tags(call: AdsCall) -> AdsResult:
    query = EntityQuery(
        KIND,
        call.account_id,
        ids=call.params.get("tracking_tag_ids"),
        parent_ids=call.params.get("line_item_ids"),
    )
    return await entities.list_page(call.services, query, call.params)


async def get_tag(call: AdsCall) -> dict[str, Any]:
    row = await requested(call, KIND, "tracking_tag_id")
    return row["body"]


async def create_tag(call: AdsCall) -> dict[str, Any]:
    url = _checked_url(call.params["tracking_tag_url"])
    async with call.services.db.transaction() as tx:
        line_item = await entities.load(
            call.services,
            "line_item",
            call.account_id,
            call.params["line_item_id"],
            parameter="line_item_id",
            reader=tx,
        )
        line_item_id = line_item["body"]["id"]
        return await entities.create(
            call.services,
            tx,
            KIND,
            call.account_id,
            {
                "line_item_id": line_item_id,
                "tracking_tag_type": call.params["tracking_tag_type"],
                "tracking_tag_url": url,
            },
            now_ms=call.now_ms,
            user_id=call.user_id,
            parent_id=line_item_id,
        )


async def delete_tag(call: AdsCall) -> dict[str, Any]:
    tag_id = call.params["tracking_tag_id"]
    async with call.services.db.transaction() as tx:
        row = await entities.load(call.services, KIND, call.account_id, tag_id, reader=tx)
        return await entities.delete(call.services, tx, row, now_ms=call.now_ms, user_id=call.user_id)


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
