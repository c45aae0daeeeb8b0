"""Bidding rules per currency and line item placements per product type."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# (currency, minimum CPE bid, maximum CPE bid, minimum denomination), all in micros.
# Zero-decimal currencies step in whole units.
# fmt: off
_BIDDING_RULES: tuple[tuple[str, int, int, int], ...] = (
    ("AED", 40_000, 4_000_000_000, 10_000),
    ("ARS", 1_000_000, 1_000_000_000_000, 10_000),
    ("AUD", 10_000, 1_500_000_000, 10_000),
    ("BRL", 10_000, 5_000_000_000, 10_000),
    ("CAD", 10_000, 1_300_000_000, 10_000),
    ("CHF", 10_000, 1_000_000_000, 10_000),
    ("CLP", 10_000_000, 900_000_000_000, 1_000_000),
    ("COP", 30_000_000, 4_000_000_000_000, 1_000_000),
    ("DKK", 70_000, 7_000_000_000, 10_000),
    ("EUR", 10_000, 1_000_000_000, 10_000),
    ("GBP", 10_000, 1_000_000_000, 10_000),
    ("HKD", 80_000, 8_000_000_000, 10_000),
    ("IDR", 150_000_000, 15_000_000_000_000, 1_000_000),
    ("ILS", 40_000, 4_000_000_000, 10_000),
    ("INR", 1_000_000, 80_000_000_000, 10_000),
    ("JPY", 1_000_000, 150_000_000_000, 1_000_000),
    ("KRW", 10_000_000, 1_300_000_000_000, 1_000_000),
    ("MXN", 10_000, 20_000_000_000, 10_000),
    ("MYR", 40_000, 4_500_000_000, 10_000),
    ("NOK", 100_000, 10_000_000_000, 10_000),
    ("NZD", 10_000, 1_600_000_000, 10_000),
    ("PHP", 500_000, 55_000_000_000, 10_000),
    ("PLN", 40_000, 4_000_000_000, 10_000),
    ("RUB", 1_000_000, 90_000_000_000, 10_000),
    ("SAR", 40_000, 3_750_000_000, 10_000),
    ("SEK", 100_000, 10_000_000_000, 10_000),
    ("SGD", 10_000, 1_350_000_000, 10_000),
    ("THB", 300_000, 35_000_000_000, 10_000),
    ("TRY", 300_000, 30_000_000_000, 10_000),
    ("TWD", 300_000, 30_000_000_000, 10_000),
    ("USD", 10_000, 1_000_000_000, 10_000),
    ("ZAR", 150_000, 18_000_000_000, 10_000),
)
# fmt: on

CURRENCIES: tuple[str, ...] = tuple(row[0] for row in _BIDDING_RULES)


def bidding_rules(currency: str | None = None) -> list[dict[str, Any]]:
    """Rules for one currency, or for every supported currency when none is named."""
    wanted = currency.strip().upper() if currency else None
    return [
        {
            "currency": code,
            "minimum_cpe_bid_local_micro": minimum,
            "maximum_cpe_bid_local_micro": maximum,
            "minimum_denomination": denomination,
        }
        for code, minimum, maximum, denomination in _BIDDING_RULES
        if wanted is None or code == wanted
    ]


def bidding_rule(currency: str) -> dict[str, Any] | None:
    rules = bidding_rules(currency)
    return rules[0] if rules else None


PRODUCT_TYPES: tuple[str, ...] = ("MEDIA", "PROMOTED_ACCOUNT", "PROMOTED_TWEETS")

PLACEMENTS: tuple[str, ...] = (
    "ALL_ON_TWITTER", "PUBLISHER_NETWORK", "TAP_BANNER", "TAP_FULL", "TAP_FULL_LANDSCAPE", "TAP_NATIVE",
    "TAP_MRECT", "TWITTER_PROFILE", "TWITTER_REPLIES", "TWITTER_SEARCH", "TWITTER_TIMELINE",
)  # fmt: skip

# The placement combinations a line item of each product type may use, in the platform's order.
_PLACEMENT_SETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "PROMOTED_TWEETS": (
        ("ALL_ON_TWITTER",),
        ("ALL_ON_TWITTER", "PUBLISHER_NETWORK"),
        ("PUBLISHER_NETWORK",),
        ("PUBLISHER_NETWORK", "TWITTER_TIMELINE"),
        ("TWITTER_SEARCH",),
        ("TWITTER_TIMELINE",),
    ),
    "PROMOTED_ACCOUNT": (("ALL_ON_TWITTER",), ("TWITTER_TIMELINE",)),
    "MEDIA": (("ALL_ON_TWITTER",), ("PUBLISHER_NETWORK",)),
}

_REAL_BRAND = "TWITTER"
_SERVICE_BRAND = "SERVICE"


def placements(product_type: str | None = None, brand: str | None = None) -> list[dict[str, Any]]:
    """Allowed placement combinations per product type (one product type when named)."""
    wanted = product_type.strip().upper() if product_type else None
    order = ("PROMOTED_TWEETS", "PROMOTED_ACCOUNT", "MEDIA")
    return [
        {
            "product_type": kind,
            "placements": [brand_placements(combo, brand) for combo in _PLACEMENT_SETS[kind]],
        }
        for kind in order
        if wanted is None or kind == wanted
    ]


def placement_sets(product_type: str) -> list[list[str]]:
    """The allowed combinations for a product type, in the real spelling (for validating line items)."""
    return [list(combo) for combo in _PLACEMENT_SETS.get(product_type.strip().upper(), ())]


def _is_service_brand(brand: str | None) -> bool:
    return (brand or "").strip().lower() == "service"


def brand_placement(value: str, brand: str | None = None) -> str:
    """One placement value as the brand profile spells it ("service" gives ALL_ON_SERVICE)."""
    canonical = canonical_placement(value)
    if _is_service_brand(brand):
        return canonical.replace(_REAL_BRAND, _SERVICE_BRAND)
    return canonical


def brand_placements(values: Iterable[str], brand: str | None = None) -> list[str]:
    return [brand_placement(value, brand) for value in values]


def canonical_placement(value: str) -> str:
    """The real spelling of a placement given in either spelling; unknown values pass through upper-cased."""
    upper = value.strip().upper()
    if _SERVICE_BRAND in upper:
        candidate = upper.replace(_SERVICE_BRAND, _REAL_BRAND)
        if candidate in PLACEMENTS:
            return candidate
    return upper
