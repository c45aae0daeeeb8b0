"""Location targeting options: countries, regions, US metros, cities and postal codes."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from ._cities import ABBREVIATED_REGIONS, CITIES
from ._countries import COUNTRIES
from ._metros import METROS, POSTAL_CODES
from ._regions import REGIONS
from ._util import codes, hex_value, name_matches

# Values the platform's own documentation shows, kept so copied examples keep working.
_KNOWN_VALUES: dict[tuple[str, str], str] = {("COUNTRIES", "US"): "96683cc9126741d1"}

LOCATION_TYPES: tuple[str, ...] = ("COUNTRIES", "REGIONS", "METROS", "CITIES", "POSTAL_CODES")


def _item(name: str, country_code: str, location_type: str, *identity: str) -> dict[str, Any]:
    return {
        "name": name,
        "country_code": country_code,
        "location_type": location_type,
        "targeting_value": _KNOWN_VALUES.get((location_type, identity[0]))
        or hex_value("location", location_type, country_code, *identity),
        "targeting_type": "LOCATION",
    }


@cache
def _all() -> tuple[dict[str, Any], ...]:
    items: list[dict[str, Any]] = []
    for cc, name in COUNTRIES:
        items.append(_item(name, cc, "COUNTRIES", cc))
    region_names: dict[tuple[str, str], str] = {}
    for cc, regions in REGIONS.items():
        for code, name in regions:
            region_names[cc, code] = name
            items.append(_item(f"{name}, {cc}", cc, "REGIONS", code))
    for code, name, state in METROS:
        items.append(_item(f"{name} {state}, US", "US", "METROS", code))
    for cc, cities in CITIES.items():
        for name, region in cities:
            label = region if cc in ABBREVIATED_REGIONS else region_names[cc, region]
            items.append(_item(f"{name}, {label}, {cc}", cc, "CITIES", region, name))
    for cc, postal in POSTAL_CODES.items():
        for code, _region in postal:
            items.append(_item(f"{code}, {cc}", cc, "POSTAL_CODES", code))
    return tuple(items)


@cache
def _by_value() -> dict[str, dict[str, Any]]:
    return {item["targeting_value"]: item for item in _all()}


def locations(
    q: str | None = None,
    country_code: str | Iterable[str] | None = None,
    location_type: str | Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """Locations matching every given filter, countries first, then regions, metros, cities, postcodes."""
    countries = codes(country_code)
    types = codes(location_type)
    return [
        dict(item)
        for item in _all()
        if (countries is None or item["country_code"] in countries)
        and (types is None or item["location_type"] in types)
        and name_matches(item["name"], q)
    ]


def location(targeting_value: str) -> dict[str, Any] | None:
    item = _by_value().get(targeting_value.strip().lower())
    return dict(item) if item else None


def country_of(targeting_value: str) -> str | None:
    """The country a location value lies in (TV show targeting checks locations against markets)."""
    item = _by_value().get(targeting_value.strip().lower())
    return item["country_code"] if item else None
