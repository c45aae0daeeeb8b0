"""Operator tables of the query language, per product, and their value validators.

Which operators exist, which may stand alone, and what their values look like follow
platform-facts §3.2; choices the sources leave open are listed in docs/query-language.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from roost.search.ast import Product

# A validator returns None for a good value, "" for a bad one, or a reason that is worth telling.
Validator = Callable[[str], "str | None"]

LANG_CODES: frozenset[str] = frozenset(
    c.lower()
    for c in [
        "am",
        "ar",
        "hy",
        "eu",
        "bn",
        "bg",
        "ca",
        "hr",
        "cs",
        "da",
        "nl",
        "en",
        "et",
        "fi",
        "fr",
        "ka",
        "de",
        "el",
        "gu",
        "iw",
        "hi",
        "hu",
        "in",
        "it",
        "ja",
        "kn",
        "ko",
        "lv",
        "lt",
        "ml",
        "mr",
        "no",
        "fa",
        "pl",
        "pt",
        "ro",
        "ru",
        "sr",
        "zh-CN",
        "zh-TW",
        "sk",
        "sl",
        "es",
        "sv",
        "ta",
        "te",
        "th",
        "tr",
        "uk",
        "ur",
        "vi",
        "und",
    ]
)
IS_VALUES: frozenset[str] = frozenset({"retweet", "reply", "quote", "verified", "nullcast"})
HAS_VALUES: frozenset[str] = frozenset(
    {"hashtags", "cashtags", "links", "mentions", "media", "images", "video_link", "geo"}
)

# Lucene's English stop set: the platform's rule engine grew out of a Lucene-based one, and the
# only documented stopword case (`a`) is in it.
STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)

_USER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
MAX_RADIUS_KM = 40.0
MAX_RADIUS_MI = 25.0
MAX_BOX_MI = 25.0
_MI_PER_DEG_LAT = 69.0
_MI_PER_DEG_LON_EQUATOR = 69.172


def _user(value: str) -> str | None:
    # A username (1..15 of [A-Za-z0-9_]) or a numeric user id.
    if value.isascii() and value.isdigit() and len(value) <= 19:
        return None
    if 1 <= len(value) <= 15 and all(c in _USER_CHARS for c in value):
        return None
    return ""


def _id(value: str) -> str | None:
    return None if value.isascii() and value.isdigit() and 1 <= len(value) <= 19 else ""


def _text(value: str) -> str | None:
    return None if value.strip() else ""


def _context(value: str) -> str | None:
    domain, dot, entity = value.partition(".")
    if not dot or not (domain.isascii() and domain.isdigit()):
        return ""
    if entity == "*" or (entity.isascii() and entity.isdigit()):
        return None
    return ""


def _country(value: str) -> str | None:
    return None if len(value) == 2 and value.isascii() and value.isalpha() else ""


def _lang(value: str) -> str | None:
    return None if value.lower() in LANG_CODES else ""


def _int_between(lo: int, hi: int | None) -> Validator:
    def check(value: str) -> str | None:
        if not (value.isascii() and value.isdigit()) or len(value) > 12:
            return ""
        n = int(value)
        if n < lo or (hi is not None and n > hi):
            return f"the value must be between {lo} and {hi}" if hi is not None else ""
        return None

    return check


def _count_range(value: str) -> str | None:
    # `N` or `N..M`, N ≤ M.
    lo, dots, hi = value.partition("..")
    for part in (lo, hi) if dots else (lo,):
        if not (part.isascii() and part.isdigit()) or len(part) > 12:
            return ""
    if dots and int(lo) > int(hi):
        return ""
    return None


def _threshold(value: str) -> str | None:
    try:
        x = float(value)
    except ValueError:
        return ""
    return None if 0.0 <= x <= 1.0 else ""


def _bracketed(value: str, n: int) -> list[str] | None:
    if len(value) < 2 or value[0] != "[" or value[-1] != "]":
        return None
    parts = value[1:-1].split()
    return parts if len(parts) == n else None


def _coord(lon: str, lat: str) -> tuple[float, float] | None:
    try:
        x, y = float(lon), float(lat)
    except ValueError:
        return None
    if not (math.isfinite(x) and math.isfinite(y) and -180 <= x <= 180 and -90 <= y <= 90):
        return None
    return x, y


def _point_radius(value: str) -> str | None:
    parts = _bracketed(value, 3)
    if parts is None or _coord(parts[0], parts[1]) is None:
        return ""
    radius = parts[2].lower()
    unit = radius[-2:]
    if unit not in ("km", "mi"):
        return ""
    try:
        r = float(radius[:-2])
    except ValueError:
        return ""
    if not math.isfinite(r) or r <= 0:
        return ""
    if r > (MAX_RADIUS_KM if unit == "km" else MAX_RADIUS_MI):
        return "the radius must be at most 25 mi (40 km)"
    return None


def _bounding_box(value: str) -> str | None:
    parts = _bracketed(value, 4)
    if parts is None:
        return ""
    sw, ne = _coord(parts[0], parts[1]), _coord(parts[2], parts[3])
    if sw is None or ne is None or sw[0] > ne[0] or sw[1] > ne[1]:
        return ""
    # Width measured along the parallel nearest the equator, where the box is widest.
    widest_lat = 0.0 if sw[1] <= 0 <= ne[1] else min(abs(sw[1]), abs(ne[1]))
    width = (ne[0] - sw[0]) * _MI_PER_DEG_LON_EQUATOR * math.cos(math.radians(widest_lat))
    height = (ne[1] - sw[1]) * _MI_PER_DEG_LAT
    if width > MAX_BOX_MI or height > MAX_BOX_MI:
        return "the width and height of the box must be at most 25 mi"
    return None


@dataclass(frozen=True, slots=True)
class OperatorSpec:
    standalone: bool
    validate: Validator
    negatable: bool = True
    negated_only: bool = False


_STANDALONE_COMMON: dict[str, Validator] = {
    "from": _user,
    "to": _user,
    "retweets_of": _user,
    "url": _text,
    "context": _context,
    "entity": _text,
    "conversation_id": _id,
    "place": _text,
    "place_country": _country,
    "point_radius": _point_radius,
    "bounding_box": _bounding_box,
    "in_reply_to_tweet_id": _id,
    "retweets_of_tweet_id": _id,
}

_SEARCH: dict[str, OperatorSpec] = {
    **{name: OperatorSpec(True, v) for name, v in _STANDALONE_COMMON.items()},
    "list": OperatorSpec(True, _id),
    "quotes_of_tweet_id": OperatorSpec(True, _id),
    "lang": OperatorSpec(False, _lang),
    # Deprecated on 2026-01-19 but still accepted (changelog; a 2026-10 live check).
    "min_likes": OperatorSpec(False, _int_between(0, None)),
    "min_replies": OperatorSpec(False, _int_between(0, None)),
    "min_reposts": OperatorSpec(False, _int_between(0, None)),
}

_STREAM: dict[str, OperatorSpec] = {
    **{name: OperatorSpec(True, v) for name, v in _STANDALONE_COMMON.items()},
    "from_affiliate_of": OperatorSpec(True, _user),
    "to_affiliate_of": OperatorSpec(True, _user),
    "bio": OperatorSpec(True, _text),
    "bio_name": OperatorSpec(True, _text),
    "bio_location": OperatorSpec(True, _text),
    "url_title": OperatorSpec(True, _text),
    "url_description": OperatorSpec(True, _text),
    "url_contains": OperatorSpec(True, _text),
    "source": OperatorSpec(True, _text),
    "embedding": OperatorSpec(True, _text, negatable=False),
    "embedding_threshold": OperatorSpec(False, _threshold),
    "min_followers": OperatorSpec(False, _int_between(0, None)),
    "followers_count": OperatorSpec(False, _count_range),
    "tweets_count": OperatorSpec(False, _count_range),
    "following_count": OperatorSpec(False, _count_range),
    "listed_count": OperatorSpec(False, _count_range),
    "lang": OperatorSpec(False, _lang),
    "sample": OperatorSpec(False, _int_between(1, 100), negatable=False),
}

OPERATORS: dict[Product, dict[str, OperatorSpec]] = {"search": _SEARCH, "stream": _STREAM}

# `is:` and `has:` are families keyed by value: `is:nullcast` may only appear negated.
IS_HAS_SPEC = OperatorSpec(False, _text)
NULLCAST_SPEC = OperatorSpec(False, _text, negated_only=True)
