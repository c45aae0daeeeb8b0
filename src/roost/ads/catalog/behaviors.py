"""Behaviors (partner audiences) and their taxonomy: the `targeting_criteria/behaviors` and
`targeting_criteria/behavior_taxonomies` catalogs the SDK still calls.

BEHAVIOR is not a targeting type of v11 or v12 (partner audiences were retired), so these values
can be looked up but not targeted (docs/decisions.md, issue 23). Generated from the table below:
stable across runs and installs, not the platform's list.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from ._util import base36

COUNTRIES = ("US", "GB")
_STAMP = "2017-03-06T00:00:00Z"
_TAXONOMY_BASE = 36**2 * 11
_BEHAVIOR_BASE = 36**3 * 17

# (top-level category, subcategories, behaviors per subcategory)
# fmt: off
_TABLE: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = (
    ("Automotive", (
        ("Purchase intent", ("New car buyers", "Used car buyers", "Electric vehicle intenders")),
        ("Ownership", ("Luxury vehicle owners", "Pickup truck owners")),
    )),
    ("Financial", (
        ("Banking", ("Online banking users", "Premium card holders")),
        ("Investing", ("Active investors", "Retirement planners")),
    )),
    ("Retail", (
        ("Shopping habits", ("Frequent online shoppers", "Coupon users", "Big-box shoppers")),
        ("Apparel", ("Athletic apparel buyers", "Luxury fashion buyers")),
    )),
    ("Travel", (
        ("Business travel", ("Frequent business travellers",)),
        ("Leisure travel", ("Cruise travellers", "Family vacationers", "International travellers")),
    )),
)
# fmt: on


@cache
def _catalog() -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    taxonomies: list[dict[str, Any]] = []
    behaviors: list[dict[str, Any]] = []

    def node(name: str, parent_id: str | None) -> str:
        ident = base36(_TAXONOMY_BASE + len(taxonomies) * 37)
        taxonomies.append(
            {"id": ident, "name": name, "parent_id": parent_id, "created_at": _STAMP, "updated_at": _STAMP}
        )
        return ident

    for category, subcategories in _TABLE:
        root = node(category, None)
        for subcategory, names in subcategories:
            leaf = node(subcategory, root)
            for country_index, country in enumerate(COUNTRIES):
                for position, name in enumerate(names):
                    ident = base36(_BEHAVIOR_BASE + len(behaviors) * 53)
                    size = 150_000 * (len(behaviors) % 7 + 1) // (country_index + 1) + 1_000 * position
                    behaviors.append(
                        {
                            "id": ident,
                            "name": name,
                            "targeting_type": "BEHAVIOR",
                            "targeting_value": ident,
                            "behavior_taxonomy_id": leaf,
                            "country_code": country,
                            "partner_source": "OTHER",
                            "audience_size": size,
                            "created_at": _STAMP,
                            "updated_at": _STAMP,
                            "deleted": False,
                        }
                    )
    return tuple(taxonomies), tuple(behaviors)


def behavior_taxonomies(
    ids: Iterable[str] | None = None, parent_ids: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    """Taxonomy nodes, filtered by id and by parent (`null` among the parents names the roots)."""
    wanted = set(ids) if ids is not None else None
    parents = set(parent_ids) if parent_ids is not None else None
    return [
        dict(item)
        for item in _catalog()[0]
        if (wanted is None or item["id"] in wanted)
        and (parents is None or (item["parent_id"] or "null") in parents)
    ]


def behaviors(ids: Iterable[str] | None = None, country_code: str = "US") -> list[dict[str, Any]]:
    wanted = set(ids) if ids is not None else None
    return [
        dict(item)
        for item in _catalog()[1]
        if item["country_code"] == country_code and (wanted is None or item["id"] in wanted)
    ]
