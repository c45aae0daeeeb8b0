"""Reference data of the ads API: targeting catalogs, IAB and content categories, bidding rules
and placements, as plain dicts in the API's item shapes.

Everything here is generated from tables shipped with the package: no network, no clock, no
unseeded randomness, so a value seen once stays valid across runs and installs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .basic import (
    app_store_categories,
    devices,
    interests,
    languages,
    network_operators,
    platform_localized_name,
    platform_versions,
    platforms,
)
from .bidding import (
    CURRENCIES,
    PLACEMENTS,
    PRODUCT_TYPES,
    bidding_rule,
    bidding_rules,
    brand_placement,
    brand_placements,
    canonical_placement,
    placement_sets,
    placements,
)
from .content import (
    advertiser_business_categories,
    content_categories,
    content_category,
    curated_categories,
    curated_category,
    iab_categories,
    iab_category,
    publishers,
)
from .places import LOCATION_TYPES, country_of, location, locations
from .topics import CONVERSATION_TYPES, EVENT_TYPES, conversations, event, events
from .tv import normalize_locale, show_locales, tv_markets, tv_show, tv_shows

__all__ = [
    "AGE_BUCKETS",
    "CATALOG_TARGETING_TYPES",
    "CONVERSATION_TYPES",
    "CURRENCIES",
    "EVENT_TYPES",
    "LOCATION_TYPES",
    "PLACEMENTS",
    "PRODUCT_TYPES",
    "advertiser_business_categories",
    "app_store_categories",
    "bidding_rule",
    "bidding_rules",
    "brand_placement",
    "brand_placements",
    "canonical_placement",
    "content_categories",
    "content_category",
    "conversations",
    "country_of",
    "curated_categories",
    "curated_category",
    "devices",
    "event",
    "events",
    "iab_categories",
    "iab_category",
    "interests",
    "languages",
    "localized_name",
    "location",
    "locations",
    "network_operators",
    "normalize_locale",
    "placement_sets",
    "placements",
    "platform_versions",
    "platforms",
    "publishers",
    "show_locales",
    "targeting_entry",
    "tv_markets",
    "tv_show",
    "tv_shows",
]

AGE_BUCKETS: tuple[str, ...] = (
    "AGE_13_TO_24", "AGE_13_TO_34", "AGE_13_TO_49", "AGE_13_TO_54", "AGE_OVER_13", "AGE_18_TO_34",
    "AGE_18_TO_49", "AGE_18_TO_54", "AGE_OVER_18", "AGE_21_TO_34", "AGE_21_TO_49", "AGE_21_TO_54",
    "AGE_OVER_21", "AGE_25_TO_49", "AGE_25_TO_54", "AGE_OVER_25", "AGE_35_TO_49", "AGE_35_TO_54",
    "AGE_OVER_35", "AGE_OVER_50",
)  # fmt: skip

_GENDERS = {"1": "Male", "2": "Female"}
_ENGAGEMENT_TYPES = ("IMPRESSION", "ENGAGEMENT")


def _find(items: list[dict[str, Any]], value: str) -> dict[str, Any] | None:
    for item in items:
        if str(item["targeting_value"]) == value:
            return item
    return None


def _simple(targeting_type: str, value: str, name: str) -> dict[str, Any]:
    return {"name": name, "targeting_type": targeting_type, "targeting_value": value}


def _age(value: str) -> dict[str, Any] | None:
    upper = value.upper()
    return _simple("AGE", upper, upper) if upper in AGE_BUCKETS else None


def _gender(value: str) -> dict[str, Any] | None:
    return _simple("GENDER", value, _GENDERS[value]) if value in _GENDERS else None


def _engagement_type(value: str) -> dict[str, Any] | None:
    upper = value.upper()
    return _simple("ENGAGEMENT_TYPE", upper, upper) if upper in _ENGAGEMENT_TYPES else None


def _app_store_category(targeting_type: str) -> Callable[[str], dict[str, Any] | None]:
    def lookup(value: str) -> dict[str, Any] | None:
        item = _find(app_store_categories(), value.lower())
        return {**item, "targeting_type": targeting_type} if item else None

    return lookup


def _tv_show(value: str) -> dict[str, Any] | None:
    item = tv_show(value)
    return {**item, "targeting_type": "TV_SHOW"} if item else None


def _iab(value: str) -> dict[str, Any] | None:
    item = iab_category(value)
    return _simple("IAB_CATEGORY", item["id"], item["name"]) if item else None


_LOOKUPS: dict[str, Callable[[str], dict[str, Any] | None]] = {
    "LOCATION": location,
    "LANGUAGE": lambda v: _find(languages(), v.lower()),
    "INTEREST": lambda v: _find(interests(), v),
    "PLATFORM": lambda v: _find(platforms(), v),
    "PLATFORM_VERSION": lambda v: _find(platform_versions(), v),
    "DEVICE": lambda v: _find(devices(), v.lower()),
    "NETWORK_OPERATOR": lambda v: _find(network_operators(country_code=None), v.lower()),
    "APP_STORE_CATEGORY": _app_store_category("APP_STORE_CATEGORY"),
    "APP_STORE_CATEGORY_LOOKALIKE": _app_store_category("APP_STORE_CATEGORY_LOOKALIKE"),
    "CONVERSATION": lambda v: _find(conversations(), v.lower()),
    "EVENT": lambda v: event(v.lower()),
    "TV_SHOW": _tv_show,
    "IAB_CATEGORY": _iab,
    "AGE": _age,
    "GENDER": _gender,
    "ENGAGEMENT_TYPE": _engagement_type,
}

# Targeting types whose values come from these catalogs; for them an unknown value is invalid.
CATALOG_TARGETING_TYPES: frozenset[str] = frozenset(_LOOKUPS)


def targeting_entry(targeting_type: str, value: str | int) -> dict[str, Any] | None:
    """The catalog item a targeting value stands for, or None when it names nothing.

    The item has at least name, targeting_type and targeting_value; LOCATION adds
    location_type and country_code, TV_SHOW its locales. Types outside
    CATALOG_TARGETING_TYPES (keywords, users, audiences) also give None.
    """
    lookup = _LOOKUPS.get(targeting_type.strip().upper())
    text = str(value).strip()
    if lookup is None or not text:
        return None
    return lookup(text)


def localized_name(targeting_type: str, value: str | int, lang: str | None) -> str | None:
    """The criterion's name in lang: platforms are translated, other names stay in English."""
    entry = targeting_entry(targeting_type, value)
    if entry is None:
        return None
    if entry["targeting_type"] == "PLATFORM":
        return platform_localized_name(str(entry["targeting_value"]), lang)
    return str(entry["name"])
