"""IAB categories and the content side of the publisher network: content categories,
advertiser business categories, publishers and curated categories."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from ._iab import IAB_TAXONOMY
from ._util import base36, codes, hex_value, seeded

# (id, name, IAB tier-1 groups whose whole subtree the category maps to)
# fmt: off
_CONTENT_CATEGORIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("s1", "Automotive", ("IAB2",)),
    ("s2", "Beauty & Fashion", ("IAB18",)),
    ("s3", "Business & Finance", ("IAB3", "IAB13")),
    ("s4", "Comedy", ("IAB1-4",)),
    ("s5", "Entertainment & Pop Culture", ("IAB1-2", "IAB1-5", "IAB1-7")),
    ("s6", "Esports & Gaming", ("IAB9-30",)),
    ("s7", "Food & Drink", ("IAB8",)),
    ("s8", "Health & Fitness", ("IAB7",)),
    ("s9", "Music", ("IAB1-6",)),
    ("sa", "News & Politics", ("IAB11", "IAB12")),
    ("sb", "Science & Technology", ("IAB15", "IAB19")),
    ("sc", "Sports", ("IAB17",)),
    ("sd", "Travel & Lifestyle", ("IAB20", "IAB14")),
    ("se", "Home & Family", ("IAB6", "IAB10")),
)

_ADVERTISER_BUSINESS_CATEGORIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("ab1", "Automotive", ("IAB2",)),
    ("ab2", "Consumer Packaged Goods", ("IAB8", "IAB18-1")),
    ("ab3", "Education", ("IAB5",)),
    ("ab4", "Entertainment & Media", ("IAB1",)),
    ("ab5", "Financial Services", ("IAB13",)),
    ("ab6", "Gaming", ("IAB9-30", "IAB9-5", "IAB9-7")),
    ("ab7", "Government & Politics", ("IAB11",)),
    ("ab8", "Health & Pharmaceuticals", ("IAB7",)),
    ("ab9", "Real Estate", ("IAB21",)),
    ("aba", "Restaurants", ("IAB8-9",)),
    ("abb", "Retail", ("IAB22", "IAB18")),
    ("abc", "Technology", ("IAB19",)),
    ("abd", "Telecommunications", ("IAB19-6", "IAB19-18")),
    ("abe", "Travel & Hospitality", ("IAB20",)),
)

# (name, content category id, country codes)
_PUBLISHERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Motor Trend Daily", "s1", ("US", "CA")), ("Top Gear Clips", "s1", ("GB", "AU")),
    ("Glam Report", "s2", ("US", "GB")), ("Runway Now", "s2", ("FR", "IT", "US")),
    ("Market Minute", "s3", ("US",)), ("The Ledger", "s3", ("GB", "US", "IN")),
    ("Stand-Up Central", "s4", ("US",)), ("Sketch Club", "s4", ("GB", "IE")),
    ("Red Carpet Live", "s5", ("US", "CA", "GB")), ("Cine Latino", "s5", ("MX", "US", "ES")),
    ("Respawn Arena", "s6", ("US", "BR", "KR")), ("Pixel League", "s6", ("JP", "US")),
    ("Kitchen Table", "s7", ("US", "CA")), ("Sabores", "s7", ("MX", "ES", "AR")),
    ("Daily Workout", "s8", ("US", "AU")), ("Wellness Weekly", "s8", ("GB", "US")),
    ("Chart Toppers", "s9", ("US", "GB", "BR")), ("K-Wave Music", "s9", ("KR", "JP", "US")),
    ("Newsroom 24", "sa", ("US",)), ("World Desk", "sa", ("GB", "FR", "DE")),
    ("Lab Notes", "sb", ("US", "IN")), ("Gadget Hour", "sb", ("US", "GB", "DE", "JP")),
    ("Matchday", "sc", ("GB", "ES", "IT", "DE", "FR")), ("Hoops Nation", "sc", ("US", "CA")),
    ("Cricket Pulse", "sc", ("IN", "GB", "AU")), ("Gol Brasil", "sc", ("BR",)),
    ("Wander Often", "sd", ("US", "GB", "AU")), ("Home & Heart", "se", ("US", "CA")),
)

# (name, description, country codes, content category ids drawing the publishers)
_CURATED_CATEGORIES: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("Sports Highlights", "Highlights and analysis from major leagues.", ("US", "CA", "GB"), ("sc",)),
    ("Football Across Europe", "Club football coverage from Europe's top leagues.",
     ("GB", "ES", "IT", "DE", "FR"), ("sc",)),
    ("Cricket Fans", "Live cricket coverage and commentary.", ("IN", "GB", "AU"), ("sc",)),
    ("Gaming & Esports", "Esports tournaments and gaming creators.", ("US", "BR", "KR", "JP"), ("s6",)),
    ("Breaking News", "Trusted news publishers with live coverage.", ("US", "GB", "FR", "DE"), ("sa",)),
    ("Pop Culture", "Celebrity, film and television news.", ("US", "CA", "GB", "MX", "ES"), ("s5", "s4")),
    ("Music Discovery", "New releases and live performances.", ("US", "GB", "BR", "KR", "JP"), ("s9",)),
    ("Tech Enthusiasts", "Gadgets, reviews and science explainers.", ("US", "GB", "DE", "JP", "IN"), ("sb",)),
    ("Money Matters", "Markets, investing and personal finance.", ("US", "GB", "IN"), ("s3",)),
    ("Food Lovers", "Recipes, restaurants and food culture.", ("US", "CA", "MX", "ES", "AR"), ("s7",)),
    ("Healthy Living", "Fitness, wellness and nutrition.", ("US", "GB", "AU"), ("s8",)),
    ("Style Setters", "Fashion and beauty from runway to street.", ("US", "GB", "FR", "IT"), ("s2",)),
    ("Auto Enthusiasts", "Car reviews, racing and car culture.", ("US", "CA", "GB", "AU"), ("s1",)),
    ("Family Time", "Parenting, home and family entertainment.", ("US", "CA"), ("se", "sd")),
)
# fmt: on


@cache
def _iab() -> tuple[dict[str, Any], ...]:
    items = []
    for parent_id, name, children in IAB_TAXONOMY:
        items.append({"id": parent_id, "parent_id": None, "name": name})
        for number, child in enumerate(children, start=1):
            items.append({"id": f"{parent_id}-{number}", "parent_id": parent_id, "name": child})
    return tuple(items)


def iab_categories() -> list[dict[str, Any]]:
    """All IAB categories, each tier-1 category followed by its children."""
    return [dict(item) for item in _iab()]


def iab_category(category_id: str) -> dict[str, Any] | None:
    wanted = category_id.strip().upper()
    for item in _iab():
        if item["id"] == wanted:
            return dict(item)
    return None


def _expand(groups: Iterable[str]) -> list[str]:
    """IAB ids for each group: a tier-1 id brings its whole subtree, a tier-2 id only itself."""
    out: list[str] = []
    for group in groups:
        for item in _iab():
            if (item["id"] == group or item["parent_id"] == group) and item["id"] not in out:
                out.append(item["id"])
    return out


@cache
def _content_categories() -> tuple[dict[str, Any], ...]:
    publishers_per_category: dict[str, int] = {}
    for _name, category_id, _countries in _PUBLISHERS:
        publishers_per_category[category_id] = publishers_per_category.get(category_id, 0) + 1
    items = []
    for category_id, name, groups in _CONTENT_CATEGORIES:
        rng = seeded("content_category", category_id)
        items.append(
            {
                "id": category_id,
                "name": name,
                "iab_categories": _expand(groups),
                "publishers_in_last_thirty_days": publishers_per_category.get(category_id, 0),
                "videos_monetized_in_last_thirty_days": rng.randrange(800, 60_000),
            }
        )
    return tuple(items)


def content_categories() -> list[dict[str, Any]]:
    return [{**item, "iab_categories": list(item["iab_categories"])} for item in _content_categories()]


def content_category(category_id: str) -> dict[str, Any] | None:
    for item in content_categories():
        if item["id"] == category_id:
            return item
    return None


def advertiser_business_categories() -> list[dict[str, Any]]:
    return [
        {"id": category_id, "name": name, "iab_categories": _expand(groups)}
        for category_id, name, groups in _ADVERTISER_BUSINESS_CATEGORIES
    ]


def _publisher_user_id(name: str) -> str:
    return str(10**17 + int(hex_value("publisher", name), 16) % (9 * 10**17))


@cache
def _publishers() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "id": base36(20_000 + index),
            "name": name,
            "user_id": _publisher_user_id(name),
            "content_category_ids": [category_id],
            "country_codes": list(countries),
        }
        for index, (name, category_id, countries) in enumerate(_PUBLISHERS)
    )


def publishers() -> list[dict[str, Any]]:
    return [
        {
            **item,
            "content_category_ids": list(item["content_category_ids"]),
            "country_codes": list(item["country_codes"]),
        }
        for item in _publishers()
    ]


def _curated_id(name: str) -> str:
    # Twelve base-36 characters, the platform's format for these ids.
    return base36(36**11 + int(hex_value("curated_category", name), 16) % (35 * 36**11))


@cache
def _curated() -> tuple[dict[str, Any], ...]:
    items = []
    for index, (name, description, countries, category_ids) in enumerate(_CURATED_CATEGORIES):
        members = [
            _publisher_user_id(pub_name)
            for pub_name, category_id, pub_countries in _PUBLISHERS
            if category_id in category_ids and set(pub_countries) & set(countries)
        ]
        rng = seeded("curated_category", name)
        # Fixed creation dates spread through 2024-2025: reference data does not move with the clock.
        created = f"2024-{1 + index % 12:02d}-{1 + (index * 7) % 28:02d}T{(index * 5) % 24:02d}:00:00Z"
        updated = f"2025-{1 + (index * 5) % 12:02d}-{1 + (index * 3) % 28:02d}T{(index * 7) % 24:02d}:30:00Z"
        items.append(
            {
                "id": _curated_id(name),
                "name": name,
                "description": description,
                "country_codes": list(countries),
                "publisher_user_ids": members,
                "videos_monetized_in_last_thirty_days": rng.randrange(500, 40_000),
                "created_at": created,
                "updated_at": updated,
            }
        )
    return tuple(items)


def _copy_curated(item: dict[str, Any]) -> dict[str, Any]:
    return {
        **item,
        "country_codes": list(item["country_codes"]),
        "publisher_user_ids": list(item["publisher_user_ids"]),
    }


def curated_categories(country_codes: str | Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Curated categories available in any of the given countries (all of them when None)."""
    wanted = codes(country_codes)
    return [
        _copy_curated(item) for item in _curated() if wanted is None or set(item["country_codes"]) & wanted
    ]


def curated_category(category_id: str) -> dict[str, Any] | None:
    for item in _curated():
        if item["id"] == category_id:
            return _copy_curated(item)
    return None
