"""The audience estimate model: a deterministic size for a set of targeting criteria.

The platform's rule: primary criteria (followers, custom audiences, interests, keywords, TV, topics,
engagement) are ORed together, every other type is ANDed with them, and criteria of one type are
ORed among themselves. roost models the reachable population as `POPULATION` users and:

- each primary criterion reaches a share of it: catalog figures where the catalog has them (TV
  show `estimated_users`, event `reach.total_reach`, built-in custom audience sizes, a user's
  followers), otherwise a stable pseudo-random share seeded by the criterion; primaries are
  combined as independent events, P(any) = 1 - prod(1 - p_i); NE primaries (exclusions) multiply
  the result by (1 - p);
- each other type contributes the sum of its criteria's shares, capped at 1 (age buckets from a
  fixed age distribution, genders 56/44, languages and platforms from fixed tables, locations
  from the country's share times the place's share of it, the rest seeded); the type shares are
  multiplied;
- the answer is the central figure -5% / +5%, as a range.
"""

from __future__ import annotations

import hashlib
import math
import re

from roost.ads.targeting import KEYWORD_TYPES, PRIMARY_TYPES, Resolved

POPULATION = 450_000_000

_AGE_BANDS = ((13, 17, 0.08), (18, 20, 0.08), (21, 24, 0.12), (25, 34, 0.27), (35, 49, 0.25), (50, 120, 0.20))
_GENDER = {"1": 0.56, "2": 0.44}
_LANGUAGE = {"en": 0.42, "ja": 0.12, "es": 0.10, "pt": 0.05, "ar": 0.04, "fr": 0.03, "tr": 0.03, "ko": 0.02}
_PLATFORM = {"0": 0.34, "1": 0.46, "2": 0.002, "3": 0.06, "4": 0.22}
_COUNTRY = {"US": 0.21, "JP": 0.13, "IN": 0.06, "GB": 0.05, "BR": 0.05, "ID": 0.05, "MX": 0.04, "TR": 0.04}
_LOCATION_PART = {
    "REGION": (0.02, 0.15),
    "METRO": (0.005, 0.06),
    "CITY": (0.001, 0.04),
    "POSTAL_CODE": (0.0001, 0.001),
}
_AGE = re.compile(r"AGE_(?:(\d+)_TO_(\d+)|OVER_(\d+))")


def _seeded(low: float, high: float, *parts: str) -> float:
    """A stable value in [low, high) for an identity."""
    digest = hashlib.sha256("|".join(parts).encode()).digest()
    return low + (high - low) * (int.from_bytes(digest[:8], "big") / 2**64)


def _primary_share(criterion: Resolved) -> float:
    kind, value, entry = criterion.targeting_type, criterion.targeting_value, criterion.entry
    if kind == "TV_SHOW" and entry.get("estimated_users"):
        users = float(entry["estimated_users"])
    elif kind == "EVENT" and isinstance(entry.get("reach"), dict):
        users = float(entry["reach"].get("total_reach") or 0)
    elif "size" in entry:
        users = float(entry["size"])
    elif kind in ("FOLLOWERS_OF_USER", "USER_ENGAGEMENT"):
        users = max(float(entry.get("followers_count", 0)), _seeded(2_000, 400_000, kind, value))
    elif kind in KEYWORD_TYPES:
        users = _seeded(50_000, 12_000_000, "keyword", value.lower())
    elif kind.endswith("LOOKALIKE") or kind == "SIMILAR_TO_FOLLOWERS_OF_USER":
        users = _seeded(500_000, 6_000_000, kind, value)
    else:  # interests, conversations, app store categories, campaign engagers
        users = _seeded(300_000, 25_000_000, kind, value)
    return min(1.0, users / POPULATION)


def _age_share(bucket: str) -> float:
    match = _AGE.fullmatch(bucket)
    if match is None:
        return 1.0
    low = int(match[1] or match[3])
    high = int(match[2]) if match[2] else 120
    return sum(share for start, end, share in _AGE_BANDS if start >= low and end <= high) or 0.01


def _location_share(criterion: Resolved) -> float:
    entry = criterion.entry
    country = str(entry.get("country_code", ""))
    country_share = _COUNTRY.get(country) or _seeded(0.001, 0.02, "country", country)
    if criterion.location_type in (None, "COUNTRY"):
        return country_share
    low, high = _LOCATION_PART.get(criterion.location_type, (0.001, 0.01))
    return country_share * _seeded(low, high, "location", criterion.targeting_value)


def _other_share(criterion: Resolved) -> float:
    kind, value = criterion.targeting_type, criterion.targeting_value
    if kind == "AGE":
        return _age_share(value)
    if kind == "GENDER":
        return _GENDER.get(value, 0.5)
    if kind == "LANGUAGE":
        return _LANGUAGE.get(value) or _seeded(0.001, 0.01, "language", value)
    if kind == "PLATFORM":
        return _PLATFORM.get(value, 0.01)
    if kind == "LOCATION":
        return _location_share(criterion)
    if kind == "WIFI_ONLY":
        return 0.6
    if kind == "NETWORK_ACTIVATION_DURATION":
        recent = min(1.0, int(value) / 120)
        return recent if criterion.operator_type == "LT" else 1.0 - recent
    if kind in ("ENGAGEMENT_TYPE", "IAB_CATEGORY"):
        return 1.0  # refine engagement targeting / content placement, not who is reached
    return _seeded(0.005, 0.08, kind, value)  # devices, OS versions, carriers


def estimate(criteria: list[Resolved]) -> dict[str, int]:
    """`{"min", "max"}` for the criteria (which must hold at least one EQ primary criterion)."""
    reach_none = 1.0
    excluded = 1.0
    by_type: dict[str, float] = {}
    for criterion in criteria:
        if criterion.targeting_type in PRIMARY_TYPES:
            share = _primary_share(criterion)
            if criterion.operator_type == "NE":
                excluded *= 1.0 - share
            else:
                reach_none *= 1.0 - share
        elif criterion.operator_type == "NE":  # app list exclusions: a small slice of users
            excluded *= 0.98
        else:
            kind = criterion.targeting_type
            by_type[kind] = min(1.0, by_type.get(kind, 0.0) + _other_share(criterion))
    share = (1.0 - reach_none) * excluded * math.prod(by_type.values())
    central = POPULATION * share
    return {"min": math.floor(central * 0.95), "max": math.ceil(central * 1.05)}


def has_primary(criteria: list[Resolved]) -> bool:
    return any(c.targeting_type in PRIMARY_TYPES and c.operator_type != "NE" for c in criteria)
