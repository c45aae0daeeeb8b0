"""The analytics request rules: entities, metric groups and placements, the time window (whole
hours, account-midnight days, the 7- and 90-day limits) and segmentation's companions. No storage;
the errors are the platform's (docs/ads.md, "Analytics")."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from roost.ads import errors
from roost.ads.params import _DATE, Kind, Parsed, Raw, _scalar, format_time, parse_time

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS

SYNC_ENTITIES = (
    "ACCOUNT",
    "CAMPAIGN",
    "FUNDING_INSTRUMENT",
    "LINE_ITEM",
    "ORGANIC_TWEET",
    "PROMOTED_ACCOUNT",
    "PROMOTED_TWEET",
    "MEDIA_CREATIVE",
)
ACTIVE_ENTITIES = (
    "CAMPAIGN",
    "FUNDING_INSTRUMENT",
    "LINE_ITEM",
    "MEDIA_CREATIVE",
    "PROMOTED_ACCOUNT",
    "PROMOTED_TWEET",
)
GRANULARITIES = ("DAY", "HOUR", "TOTAL")
METRIC_GROUPS = (
    "BILLING",
    "ENGAGEMENT",
    "LIFE_TIME_VALUE_MOBILE_CONVERSION",
    "MEDIA",
    "MOBILE_CONVERSION",
    "VIDEO",
    "WEB_CONVERSION",
)
# v12-era docs name the first two; today's add SPOTLIGHT and TREND (docs/decisions.md).
PLACEMENTS = ("ALL_ON_TWITTER", "PUBLISHER_NETWORK", "SPOTLIGHT", "TREND")
# The groups each entity has (the docs' "Metrics and Segmentation" table).
ENTITY_GROUPS = {
    "ACCOUNT": ("ENGAGEMENT",),
    "FUNDING_INSTRUMENT": ("ENGAGEMENT", "BILLING"),
    "ORGANIC_TWEET": ("ENGAGEMENT", "VIDEO"),
}
SEGMENTATION_TYPES = (
    "AGE",
    "APP_STORE_CATEGORY",
    "AUDIENCES",
    "CITIES",
    "CONVERSATIONS",
    "CONVERSION_TAGS",
    "DEVICES",
    "EVENTS",
    "GENDER",
    "INTERESTS",
    "KEYWORDS",
    "LANGUAGES",
    "LOCATIONS",
    "METROS",
    "PLATFORMS",
    "PLATFORM_VERSIONS",
    "POSTAL_CODES",
    "REGIONS",
    "SLIDES",
    "SIMILAR_TO_FOLLOWERS_OF_USER",
    "TV_SHOWS",
)
NEEDS_COUNTRY = ("CITIES", "METROS", "POSTAL_CODES", "REGIONS")
NEEDS_PLATFORM = ("DEVICES", "PLATFORM_VERSIONS")
# The segmentations roost splits delivery by (fixed audience shares); the others are refused.
SUPPORTED_SEGMENTATIONS = ("AGE", "GENDER", "PLATFORMS")

SYNC_WINDOW_DAYS = 7
ASYNC_WINDOW_DAYS = 90
SEGMENTED_WINDOW_DAYS = 45
ACTIVE_WINDOW_DAYS = 90
MAX_ENTITY_IDS = 20


@dataclass(frozen=True, slots=True)
class LocalDate:
    """A date-only time: midnight in the account's time zone, known once the account is."""

    text: str


class StatsTime(Kind):
    """A time or a date; a date means the account's midnight, so it is resolved by the handler."""

    def parse(self, name: str, raw: Raw) -> Parsed:
        text = _scalar(name, raw).strip()
        if _DATE.match(text) and parse_time(text) is not None:
            return Parsed(LocalDate(text), text)
        moment = parse_time(text)
        if moment is None:
            raise errors.expected("time", raw, name)
        return Parsed(moment, format_time(moment))


def account_zone(account: Any) -> ZoneInfo:
    body = account.get("body") if isinstance(account, dict) else None
    name = (body or {}).get("timezone") or "America/Los_Angeles"
    try:
        return ZoneInfo(str(name))
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def resolve_times(params: dict[str, Any], echo: dict[str, Any], zone: ZoneInfo) -> tuple[int, int]:
    """`start_time` and `end_time` in epoch ms; dates become the account's midnight, echoed in UTC."""
    out = []
    for name in ("start_time", "end_time"):
        value = params[name]
        if isinstance(value, LocalDate):
            day = dt.date.fromisoformat(value.text)
            value = int(dt.datetime(day.year, day.month, day.day, tzinfo=zone).timestamp() * 1000)
            params[name] = value
            echo[name] = format_time(value)
        out.append(value)
    return out[0], out[1]


def _window_error(message: str) -> errors.AdsError:
    return errors.AdsError(400, [errors.item("INVALID_TIME_WINDOW", message, "")])


def check_window(start: int, end: int, granularity: str | None, max_days: int, zone: ZoneInfo) -> None:
    """Whole hours, start before end, at most `max_days` (+1 hour, for a day that changes its clock),
    and for DAY both ends at the account's midnight (the platform lists that problem twice)."""
    if start % HOUR_MS or end % HOUR_MS:
        raise _window_error("Time cannot be fractional hours")
    if end <= start:
        raise _window_error("The start_time must be before the end_time")
    if end - start > max_days * DAY_MS + HOUR_MS:
        raise _window_error(f"The end_time can be a maximum of {max_days}.days+1.hours after the start_time")
    if granularity == "DAY":
        problems = [moment for moment in (start, end) if not _local_midnight(moment, zone)]
        if problems:
            message = "Expect time to be midnight in the account's local timezone for day granularity"
            raise errors.AdsError(400, [errors.item("INVALID_TIME_WINDOW", message, "")] * 2)


def _local_midnight(moment: int, zone: ZoneInfo) -> bool:
    local = dt.datetime.fromtimestamp(moment / 1000, zone)
    return (local.hour, local.minute, local.second) == (0, 0, 0)


def check_metric_groups(entity: str, groups: list[str]) -> None:
    allowed = ENTITY_GROUPS.get(entity)
    if allowed is not None:
        for group in groups:
            if group not in allowed:
                raise errors.invalid_parameter(
                    "metric_groups",
                    f'Expected a value in {", ".join(allowed)}, got "{group}" for metric_groups '
                    f"with entity {entity}",
                )
    if "MOBILE_CONVERSION" in groups and len(set(groups)) > 1:
        raise errors.invalid_parameter(
            "metric_groups", "MOBILE_CONVERSION must be requested separately from other metric groups"
        )


def check_segmentation(params: dict[str, Any], entity: str) -> str | None:
    """The segmentation asked for, with its required companion parameter, or None."""
    segmentation = params.get("segmentation_type")
    if segmentation is None:
        return None
    if entity in ("MEDIA_CREATIVE", "ORGANIC_TWEET"):
        raise errors.invalid_parameter(
            "segmentation_type", f"Segmentation is not supported for entity {entity}"
        )
    if segmentation in NEEDS_COUNTRY and not params.get("country"):
        raise errors.missing_parameter("country")
    if segmentation in NEEDS_PLATFORM and not params.get("platform"):
        raise errors.missing_parameter("platform")
    if segmentation not in SUPPORTED_SEGMENTATIONS:
        raise errors.invalid_parameter(
            "segmentation_type",
            f'Expected a value in {", ".join(SUPPORTED_SEGMENTATIONS)}, got "{segmentation}" '
            "for segmentation_type",
        )
    return str(segmentation)
