"""Reference data: targeting option catalogs, IAB and content categories, publishers, curated
categories, bidding rules, line item placements and (closed beta) recommendations."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from roost.ads import catalog, errors
from roost.ads.call import AdsCall
from roost.ads.operations import (
    ACCOUNT_ID,
    ACCOUNT_READ,
    CATALOG,
    GLOBAL_READ,
    TV_CATALOG,
    AdsOperation,
    list_params,
    path_param,
)
from roost.ads.paging import AdsResult, page_of
from roost.ads.params import AdsParam, EnumList, Int, Text, TextList, Time
from roost.ads.params import Enum as EnumKind

COUNTRY = r"[A-Za-z]{2}"
_COUNTRY = re.compile(COUNTRY)
CATALOG_PAGING = list_params(total=False, deleted=False)
COUNT = AdsParam("count", Int(1, 1000), default=200)
QUERY = AdsParam("q", Text(max_length=255, min_length=1))


def _country(call: AdsCall, name: str) -> str | None:
    value: str | None = call.params.get(name)
    if value is not None and _COUNTRY.fullmatch(value) is None:
        raise errors.invalid_parameter(name, f'Expected two-letter country code, got "{value}" for {name}')
    return value.upper() if value else None


def _first(items: list[dict[str, Any]], call: AdsCall) -> list[dict[str, Any]]:
    """Catalogs without a cursor still honour count by cutting the list."""
    return items[: int(call.params.get("count") or len(items) or 1)]


# ---- targeting option catalogs ----------------------------------------------------------------


async def app_store_categories(call: AdsCall) -> list[dict[str, Any]]:
    return catalog.app_store_categories(q=call.params.get("q"), os_type=call.params.get("os_type"))


async def conversations(call: AdsCall) -> AdsResult:
    items = catalog.conversations(conversation_type=call.params.get("conversation_type"))
    return page_of(items, call.params)


async def devices(call: AdsCall) -> list[dict[str, Any]]:
    return _first(catalog.devices(q=call.params.get("q")), call)


def _moment(ms: int | None) -> dt.datetime | None:
    return None if ms is None else dt.datetime.fromtimestamp(ms / 1000, dt.UTC)


async def events(call: AdsCall) -> AdsResult:
    params = call.params
    start = params.get("start_time", call.now_ms)
    end = params.get("end_time")
    if end is not None and end <= start:
        raise errors.bad_request("INVALID_TIME_WINDOW", "end_time must be after start_time", "end_time")
    items = catalog.events(
        event_types=params["event_types"],
        country_codes=params.get("country_codes"),
        start_time=_moment(start),
        end_time=_moment(end),
    )
    result = page_of(items, params)
    result.extra["data_type"] = "events"
    return result


async def interests(call: AdsCall) -> AdsResult:
    return page_of(catalog.interests(q=call.params.get("q")), call.params)


async def languages(call: AdsCall) -> AdsResult:
    return page_of(catalog.languages(q=call.params.get("q")), call.params)


async def locations(call: AdsCall) -> AdsResult:
    items = catalog.locations(
        q=call.params.get("q"),
        country_code=_country(call, "country_code"),
        location_type=call.params.get("location_type"),
    )
    return page_of(items, call.params)


async def network_operators(call: AdsCall) -> AdsResult:
    items = catalog.network_operators(q=call.params.get("q"), country_code=_country(call, "country_code"))
    return page_of(items, call.params)


async def platform_versions(call: AdsCall) -> AdsResult:
    return AdsResult(
        catalog.platform_versions(q=call.params.get("q")), extra={"data_type": "platform_version"}
    )


async def platforms(call: AdsCall) -> list[dict[str, Any]]:
    return _first(catalog.platforms(q=call.params.get("q"), lang=call.params.get("lang")), call)


async def tv_markets(call: AdsCall) -> list[dict[str, Any]]:
    return catalog.tv_markets()


async def tv_shows(call: AdsCall) -> AdsResult:
    raw = call.params["locale"]
    locale = catalog.normalize_locale(raw)
    if locale is None:
        markets = ", ".join(market["locale"] for market in catalog.tv_markets())
        raise errors.invalid_parameter("locale", f'Expected a value in {markets}, got "{raw}" for locale')
    result = page_of(catalog.tv_shows(locale, q=call.params.get("q")), call.params)
    # The platform echoes the locale parsed into its parts.
    language, _, country = locale.partition("-")
    echo = {**call.echo, "locale": {"countryCode": country, "languageCode": language}}
    result.request = {"params": echo}
    return result


# ---- categories, publishers, bidding rules, placements -----------------------------------------


async def bidding_rules(call: AdsCall) -> AdsResult:
    rules = catalog.bidding_rules(call.params.get("currency"))
    return AdsResult(rules, total_count=len(rules), extra={"data_type": "bidding_rule"})


async def iab_categories(call: AdsCall) -> AdsResult:
    return page_of(catalog.iab_categories(), call.params)


async def content_categories(call: AdsCall) -> AdsResult:
    items = catalog.content_categories()
    return AdsResult(items, total_count=len(items))


async def advertiser_business_categories(call: AdsCall) -> list[dict[str, Any]]:
    return catalog.advertiser_business_categories()


async def publishers(call: AdsCall) -> list[dict[str, Any]]:
    return catalog.publishers()


async def curated_categories(call: AdsCall) -> AdsResult:
    items = catalog.curated_categories([code.upper() for code in call.params["country_codes"]])
    result = page_of(items, call.params)
    result.total_count = len(items)
    return result


async def curated_category(call: AdsCall) -> AdsResult:
    ident = call.params["curated_category_id"]
    item = catalog.curated_category(ident)
    if item is None:
        raise errors.not_found("curated_category", ident, call.account_id, "curated_category_id")
    # The platform echoes this one's path id as `id`.
    return AdsResult(item, request={"params": {"account_id": call.account_id, "id": ident}})


async def line_item_placements(call: AdsCall) -> list[dict[str, Any]]:
    return call.ads.line_items.placements(call.params.get("product_type"))


# ---- recommendations (closed beta) ------------------------------------------------------------


async def list_recommendations(call: AdsCall) -> AdsResult:
    assert call.account is not None
    return await call.ads.recommendations.page(call.account, call.params)


async def get_recommendation(call: AdsCall) -> AdsResult:
    assert call.account is not None
    return await call.ads.recommendations.get(call.account, call.params["recommendation_id"])


# ---- the operation table -----------------------------------------------------------------------


def _catalog(
    operation_id: str, name: str, handler: Any, params: tuple[AdsParam, ...], paginated: bool
) -> AdsOperation:
    return AdsOperation(
        operation_id,
        "GET",
        f"/targeting_criteria/{name}",
        handler,
        params=params,
        category=TV_CATALOG if name.startswith("tv_") else CATALOG,
        paginated=paginated,
    )


OPERATIONS = [
    _catalog(
        "getAppStoreCategories",
        "app_store_categories",
        app_store_categories,
        (QUERY, AdsParam("os_type", EnumKind(("ANDROID", "IOS")))),
        paginated=False,
    ),
    _catalog(
        "getConversations",
        "conversations",
        conversations,
        (AdsParam("conversation_type", EnumKind(catalog.CONVERSATION_TYPES)), *CATALOG_PAGING),
        paginated=True,
    ),
    _catalog("getDevices", "devices", devices, (COUNT, QUERY), paginated=False),
    _catalog(
        "getEvents",
        "events",
        events,
        (
            AdsParam("event_types", EnumList(catalog.EVENT_TYPES), required=True),
            AdsParam("country_codes", TextList(max_items=200, pattern=COUNTRY)),
            AdsParam("start_time", Time()),
            AdsParam("end_time", Time()),
            *CATALOG_PAGING,
        ),
        paginated=True,
    ),
    _catalog("getInterests", "interests", interests, (QUERY, *CATALOG_PAGING), paginated=True),
    _catalog("getLanguages", "languages", languages, (QUERY, *CATALOG_PAGING), paginated=True),
    _catalog(
        "getLocations",
        "locations",
        locations,
        (
            QUERY,
            AdsParam("location_type", EnumKind(catalog.LOCATION_TYPES)),
            AdsParam("country_code", Text(max_length=2)),
            *CATALOG_PAGING,
        ),
        paginated=True,
    ),
    _catalog(
        "getNetworkOperators",
        "network_operators",
        network_operators,
        (QUERY, AdsParam("country_code", Text(max_length=2), default="US"), *CATALOG_PAGING),
        paginated=True,
    ),
    _catalog("getPlatformVersions", "platform_versions", platform_versions, (QUERY,), paginated=False),
    _catalog(
        "getPlatforms",
        "platforms",
        platforms,
        (COUNT, QUERY, AdsParam("lang", Text(max_length=10, min_length=2))),
        paginated=False,
    ),
    _catalog("getTvMarkets", "tv_markets", tv_markets, (), paginated=False),
    _catalog(
        "getTvShows",
        "tv_shows",
        tv_shows,
        (
            AdsParam("locale", Text(max_length=10), required=True),
            QUERY,
            *list_params(count_default=50, count_max=50, total=False, deleted=False),
        ),
        paginated=True,
    ),
    AdsOperation(
        "getBiddingRules",
        "GET",
        "/bidding_rules",
        bidding_rules,
        params=(AdsParam("currency", Text(max_length=3, min_length=3)),),
        category=GLOBAL_READ,
    ),
    AdsOperation(
        "getIabCategories",
        "GET",
        "/iab_categories",
        iab_categories,
        params=list_params(deleted=False),
        category=GLOBAL_READ,
        paginated=True,
    ),
    AdsOperation(
        "getContentCategories", "GET", "/content_categories", content_categories, category=GLOBAL_READ
    ),
    AdsOperation(
        "getAdvertiserBusinessCategories",
        "GET",
        "/advertiser_business_categories",
        advertiser_business_categories,
        category=GLOBAL_READ,
    ),
    AdsOperation("getPublishers", "GET", "/publishers", publishers, category=GLOBAL_READ),
    AdsOperation(
        "getCuratedCategories",
        "GET",
        "/accounts/{account_id}/curated_categories",
        curated_categories,
        params=(
            ACCOUNT_ID,
            AdsParam("country_codes", TextList(max_items=200, pattern=COUNTRY), required=True),
            AdsParam("cursor", Text(max_length=512)),
        ),
        category=ACCOUNT_READ,
        paginated=True,
    ),
    AdsOperation(
        "getCuratedCategory",
        "GET",
        "/accounts/{account_id}/curated_categories/{curated_category_id}",
        curated_category,
        params=(ACCOUNT_ID, path_param("curated_category_id")),
        category=ACCOUNT_READ,
    ),
    AdsOperation(
        "getLineItemPlacements",
        "GET",
        "/line_items/placements",
        line_item_placements,
        params=(AdsParam("product_type", EnumKind(catalog.PRODUCT_TYPES)),),
        category=GLOBAL_READ,
    ),
    AdsOperation(
        "listRecommendations",
        "GET",
        "/accounts/{account_id}/recommendations",
        list_recommendations,
        params=(ACCOUNT_ID, *list_params(total=False, deleted=False)),
        category=ACCOUNT_READ,
        versions=("5",),
        paginated=True,
    ),
    AdsOperation(
        "getRecommendation",
        "GET",
        "/accounts/{account_id}/recommendations/{recommendation_id}",
        get_recommendation,
        params=(ACCOUNT_ID, path_param("recommendation_id")),
        category=ACCOUNT_READ,
        versions=("5",),
    ),
]
