"""Spaces: the v2 operations (reads only; Spaces are made and ended through the control plane)."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from roost.core.errors import ParamError
from roost.core.params import CsvOf, Enum, IntRange, Kind, Param, Snowflake, Token
from roost.platform.operations import APP, OAUTH2, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.platform.timelines import page_objects

SPACE_ID_PATTERN = "^[a-zA-Z0-9]{1,13}$"
_SPACE_ID = re.compile(r"[a-zA-Z0-9]{1,13}")


class SpaceId(Kind):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "pattern": SPACE_ID_PATTERN}

    def parse(self, name: str, raw: str) -> str:
        if _SPACE_ID.fullmatch(raw) is None:
            raise ParamError(f"The `{name}` query parameter value [{raw}] does not match {SPACE_ID_PATTERN}")
        return raw


class SearchText(Kind):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "minLength": 1, "maxLength": 2048}

    def parse(self, name: str, raw: str) -> str:
        if len(raw) > 2048:
            raise ParamError(f"The `{name}` query parameter value [{raw}] is not valid")
        return raw


async def space(call: Call) -> Objects:
    page = await call.domain.space_reads.one(call.params["id"])
    return Objects(page.rows, single=True, errors=page.errors)


async def spaces(call: Call) -> Objects:
    return page_objects(await call.domain.space_reads.many(call.params["ids"]))


async def by_creators(call: Call) -> Objects:
    return page_objects(await call.domain.space_reads.by_creators(call.params["user_ids"]))


async def search(call: Call) -> Objects:
    params = call.params
    return page_objects(
        await call.domain.space_reads.search(params["query"], params["state"], params["max_results"])
    )


async def buyers(call: Call) -> Objects:
    params = call.params
    page = await call.domain.space_reads.buyers(
        call.principal.user_id, params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


async def space_posts(call: Call) -> Objects:
    params = call.params
    page = await call.domain.space_reads.posts(
        call.principal.user_id, params["id"], params["max_results"], params.get("pagination_token")
    )
    return page_objects(page)


SPACE_ID = Param("id", SpaceId(), required=True, in_path=True)
SCOPES = ("space.read", "tweet.read", "users.read")
LIMIT = RateLimit(app=300, user=300)
PAGING = (Param("max_results", IntRange(1, 100), default=100), Param("pagination_token", Token()))

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getSpacesById",
        "GET",
        "/2/spaces/{id}",
        space,
        (APP, OAUTH2),
        SCOPES,
        params=(SPACE_ID,),
        returns="space",
        rate_limit=LIMIT,
        tag="Spaces",
        summary="Get Spaces by ID",
    ),
    Operation(
        "getSpacesByIds",
        "GET",
        "/2/spaces",
        spaces,
        (APP, OAUTH2),
        SCOPES,
        params=(Param("ids", CsvOf(SpaceId(), 100), required=True),),
        returns="space",
        rate_limit=LIMIT,
        tag="Spaces",
        summary="Get Spaces by IDs",
    ),
    Operation(
        "getSpacesByCreatorIds",
        "GET",
        "/2/spaces/by/creator_ids",
        by_creators,
        (APP, OAUTH2),
        SCOPES,
        params=(Param("user_ids", CsvOf(Snowflake(), 100), required=True),),
        returns="space",
        rate_limit=LIMIT,
        tag="Spaces",
        summary="Get Spaces by Creator IDs",
    ),
    Operation(
        "searchSpaces",
        "GET",
        "/2/spaces/search",
        search,
        (APP, OAUTH2),
        SCOPES,
        params=(
            Param("query", SearchText(), required=True),
            Param("state", Enum(("live", "scheduled", "all")), default="all"),
            Param("max_results", IntRange(1, 100), default=100),
        ),
        returns="space",
        rate_limit=LIMIT,
        tag="Spaces",
        summary="Search Spaces",
    ),
    Operation(
        "getSpacesBuyers",
        "GET",
        "/2/spaces/{id}/buyers",
        buyers,
        (OAUTH2,),
        SCOPES,
        params=(SPACE_ID, *PAGING),
        returns="user",
        rate_limit=LIMIT,
        tag="Spaces",
        summary="Get Space ticket buyers",
    ),
    Operation(
        "getSpacesPosts",
        "GET",
        "/2/spaces/{id}/tweets",
        space_posts,
        (APP, OAUTH2),
        SCOPES,
        params=(SPACE_ID, *PAGING),
        returns="tweet",
        rate_limit=LIMIT,
        tag="Spaces",
        summary="Get Space Posts",
    ),
)
