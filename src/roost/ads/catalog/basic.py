"""Languages, interests, platforms, OS versions, devices, carriers and app store categories."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from ._devices import (
    APP_STORE_CATEGORIES,
    DEVICES,
    NETWORK_OPERATORS,
    PLATFORM_NAMES_LOCALIZED,
    PLATFORM_VERSIONS,
    PLATFORMS,
)
from ._interests import INTEREST_TAXONOMY
from ._languages import LANGUAGES
from ._util import base36, codes, hex_value, name_matches

# Sequential base-36 values start past the one-character range so every value has two characters or more.
_DEVICE_BASE = 50
_OPERATOR_BASE = 400


def _copy(items: Iterable[dict[str, Any]], q: str | None) -> list[dict[str, Any]]:
    return [dict(item) for item in items if name_matches(item["name"], q)]


@cache
def _languages() -> tuple[dict[str, Any], ...]:
    return tuple(
        {"name": name, "targeting_type": "LANGUAGE", "targeting_value": code} for code, name in LANGUAGES
    )


def languages(q: str | None = None) -> list[dict[str, Any]]:
    return _copy(_languages(), q)


@cache
def _interests() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "name": f"{category}/{sub}",
            "targeting_type": "INTEREST",
            "targeting_value": f"{number}{position:03d}",
        }
        for number, (category, subs) in enumerate(INTEREST_TAXONOMY, start=1)
        for position, sub in enumerate(subs, start=1)
    )


def interests(q: str | None = None) -> list[dict[str, Any]]:
    """Interests whose full name or subcategory matches q ("soccer" finds "Sports/Soccer")."""
    if not q:
        return _copy(_interests(), None)
    return [
        dict(item)
        for item in _interests()
        if name_matches(item["name"], q) or name_matches(item["name"].split("/", 1)[1], q)
    ]


def platform_localized_name(value: str, lang: str | None) -> str | None:
    names = PLATFORM_NAMES_LOCALIZED.get((lang or "").split("-")[0].lower())
    for index, (code, name) in enumerate(PLATFORMS):
        if code == value:
            return names[index] if names else name
    return None


def platforms(q: str | None = None, lang: str | None = None) -> list[dict[str, Any]]:
    """Platforms; with lang each item also carries localized_name (English where untranslated)."""
    out = []
    for code, name in PLATFORMS:
        if not name_matches(name, q):
            continue
        item: dict[str, Any] = {"name": name, "targeting_type": "PLATFORM", "targeting_value": code}
        if lang:
            item["localized_name"] = platform_localized_name(code, lang)
        out.append(item)
    return out


@cache
def _platform_versions() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "name": name,
            "number": number,
            "os_type": os_type,
            "targeting_type": "PLATFORM_VERSION",
            "targeting_value": value,
        }
        for value, name, number, os_type in PLATFORM_VERSIONS
    )


def platform_versions(q: str | None = None) -> list[dict[str, Any]]:
    return [
        dict(item)
        for item in _platform_versions()
        if name_matches(item["name"], q) or name_matches(f"{item['os_type']} {item['number']}", q)
    ]


@cache
def _devices() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "name": name,
            "manufacturer": manufacturer,
            "os_type": os_type,
            "targeting_type": "DEVICE",
            "targeting_value": base36(_DEVICE_BASE + index),
        }
        for index, (name, manufacturer, os_type) in enumerate(DEVICES)
    )


def devices(q: str | None = None) -> list[dict[str, Any]]:
    return [
        dict(item)
        for item in _devices()
        if name_matches(item["name"], q) or name_matches(f"{item['manufacturer']} {item['name']}", q)
    ]


@cache
def _network_operators() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "name": name,
            "country_code": country_code,
            "targeting_type": "NETWORK_OPERATOR",
            "targeting_value": base36(_OPERATOR_BASE + index),
        }
        for index, (name, country_code) in enumerate(NETWORK_OPERATORS)
    )


def network_operators(
    q: str | None = None, country_code: str | Iterable[str] | None = "US"
) -> list[dict[str, Any]]:
    """Carriers of one country (the US unless told otherwise); None lists every country's."""
    countries = codes(country_code)
    return [
        dict(item)
        for item in _network_operators()
        if (countries is None or item["country_code"] in countries) and name_matches(item["name"], q)
    ]


def _store_value(os_type: str, name: str) -> str:
    # Four base-36 characters, like the platform's values for these categories.
    return base36(36**3 + int(hex_value("app_store_category", os_type, name), 16) % (36**4 - 36**3))


@cache
def _app_store_categories() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "name": name,
            "os_type": os_type,
            "targeting_type": "APP_STORE_CATEGORY",
            "targeting_value": _store_value(os_type, name),
        }
        for os_type, name in APP_STORE_CATEGORIES
    )


def app_store_categories(q: str | None = None, os_type: str | None = None) -> list[dict[str, Any]]:
    wanted = os_type.strip().upper() if os_type else None
    return [
        dict(item)
        for item in _app_store_categories()
        if (wanted is None or item["os_type"] == wanted) and name_matches(item["name"], q)
    ]
