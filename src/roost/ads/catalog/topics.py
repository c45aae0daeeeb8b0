"""Conversation topics and events."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from functools import cache
from typing import Any

from ._conversations import CONVERSATION_TYPES, CONVERSATIONS
from ._events import EVENT_TYPES, EVENTS
from ._util import base36, codes, name_matches, seeded

__all__ = ["CONVERSATION_TYPES", "EVENT_TYPES", "conversations", "events"]

_CONVERSATION_BASE = 361  # "a1"
_EVENT_BASE = 1833  # "1ex"
_AUDIENCE_COUNTRIES = ("US", "GB", "JP", "BR", "IN", "MX", "CA", "FR", "DE", "ES", "AU", "SA", "TR")


@cache
def _conversations() -> tuple[dict[str, Any], ...]:
    items: list[dict[str, Any]] = []
    for conversation_type, names in CONVERSATIONS:
        for name in names:
            items.append(
                {
                    "name": name,
                    "conversation_type": conversation_type,
                    "targeting_type": "CONVERSATION",
                    "targeting_value": base36(_CONVERSATION_BASE + len(items)),
                }
            )
    return tuple(items)


def conversations(
    conversation_type: str | Iterable[str] | None = None, q: str | None = None
) -> list[dict[str, Any]]:
    types = codes(conversation_type)
    return [
        dict(item)
        for item in _conversations()
        if (types is None or item["conversation_type"] in types) and name_matches(item["name"], q)
    ]


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _percentages(rng: Any, keys: tuple[str, ...]) -> dict[str, float]:
    weights = [rng.uniform(0.5, 3.0) for _ in keys]
    total = sum(weights)
    shares = [round(100 * w / total, 2) for w in weights]
    # Keep the total at exactly 100 despite rounding.
    shares[0] = round(100 - sum(shares[1:]), 2)
    return dict(zip(keys, shares, strict=True))


def _event(index: int, row: tuple[str, str, str, str, str | None]) -> dict[str, Any]:
    event_type, name, first, last, country = row
    rng = seeded("event", name)
    start = datetime.combine(date.fromisoformat(first), datetime.min.time(), UTC)
    end = datetime.combine(date.fromisoformat(last), datetime.min.time(), UTC) + timedelta(days=1)
    words = ["".join(ch for ch in word if ch.isalnum()) for word in name.split()]
    tag = "".join(word[:1].upper() + word[1:] for word in words)
    if country:
        others = [c for c in _AUDIENCE_COUNTRIES if c != country]
        audience = (country, *rng.sample(others, 3))
    else:
        audience = tuple(rng.sample(_AUDIENCE_COUNTRIES, 5))
    country_split = _percentages(rng, audience)
    if country:
        # The host country dominates a local event's audience.
        country_split = {c: round(v / 2, 2) for c, v in country_split.items()}
        country_split[country] = round(100 - sum(v for c, v in country_split.items() if c != country), 2)
    male = round(rng.uniform(35, 70), 2)
    return {
        "name": name,
        "event_type": event_type,
        "targeting_type": "EVENT",
        "targeting_value": base36(_EVENT_BASE + index),
        "start_time": _stamp(start),
        "end_time": _stamp(end),
        "country_code": country,
        "is_global": country is None,
        "reach": {"total_reach": rng.randrange(2_000_000, 250_000_000 if country is None else 60_000_000)},
        "top_users": [str(rng.randrange(10**17, 10**18)) for _ in range(3)],
        "top_tweets": [str(rng.randrange(10**18, 2 * 10**18)) for _ in range(3)],
        "top_hashtags": list(dict.fromkeys([f"#{tag}", f"#{tag.rstrip('0123456789')}", f"#{words[0]}"])),
        "gender_breakdown_percentage": {"male": male, "female": round(100 - male, 2)},
        "device_breakdown_percentage": _percentages(rng, ("ios", "android", "desktop", "other")),
        "country_breakdown_percentage": country_split,
    }


@cache
def _events() -> tuple[dict[str, Any], ...]:
    return tuple(_event(index, row) for index, row in enumerate(EVENTS))


def _parse(moment: str) -> datetime:
    return datetime.strptime(moment, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def events(
    event_types: str | Iterable[str] | None = None,
    country_codes: str | Iterable[str] | None = None,
    start_time: datetime | None = None,
    end_time: datetime | None = None,
    q: str | None = None,
) -> list[dict[str, Any]]:
    """Events of the given types still running at start_time and begun by end_time, by start time.

    A country filter keeps that country's events and the global ones, which run everywhere.
    """
    types = codes(event_types)
    countries = codes(country_codes)
    out = []
    for item in _events():
        if types is not None and item["event_type"] not in types:
            continue
        if countries is not None and not (item["is_global"] or item["country_code"] in countries):
            continue
        if start_time is not None and _parse(item["end_time"]) <= start_time:
            continue
        if end_time is not None and _parse(item["start_time"]) > end_time:
            continue
        if not name_matches(item["name"], q):
            continue
        out.append(item)
    out.sort(key=lambda item: (item["start_time"], item["targeting_value"]))
    return [_deep_copy(item) for item in out]


def _deep_copy(item: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v)
        for k, v in item.items()
    }


def event(targeting_value: str) -> dict[str, Any] | None:
    for item in _events():
        if item["targeting_value"] == targeting_value:
            return _deep_copy(item)
    return None
