"""Analytics reports from hourly delivery: time buckets (HOUR, DAY in the account's time zone,
TOTAL), the metric groups' keys, segments, and the active-entities summary. Pure functions: every
bucket is a sum of model hours, so HOUR, DAY and TOTAL reports of one window agree."""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from roost.ads.params import format_time
from roost.ads.stats_model import BASE_METRICS, HOUR_MS, INDEX, Interval, Vector, add, intersect, split

ENGAGEMENT = (
    "engagements",
    "impressions",
    "retweets",
    "replies",
    "likes",
    "follows",
    "card_engagements",
    "clicks",
    "app_clicks",
    "url_clicks",
    "qualified_impressions",
    "carousel_swipes",
)
# What ACCOUNT and FUNDING_INSTRUMENT reports carry of the ENGAGEMENT group.
ENGAGEMENT_TOP = ("engagements", "impressions", "retweets", "replies", "likes", "follows")
CONVERSION_OBJECT_GROUPS: dict[str, tuple[str, ...]] = {
    "WEB_CONVERSION": (
        "conversion_purchases",
        "conversion_sign_ups",
        "conversion_site_visits",
        "conversion_downloads",
        "conversion_custom",
    ),
    "MOBILE_CONVERSION": tuple(
        "mobile_conversion_" + name
        for name in (
            "spent_credits",
            "installs",
            "content_views",
            "add_to_wishlists",
            "checkouts_initiated",
            "reservations",
            "tutorials_completed",
            "achievements_unlocked",
            "searches",
            "add_to_carts",
            "payment_info_additions",
            "re_engages",
            "shares",
            "rates",
            "logins",
            "updates",
            "levels_achieved",
            "invites",
            "key_page_views",
            "downloads",
            "purchases",
            "sign_ups",
            "site_visits",
        )
    ),
    "LIFE_TIME_VALUE_MOBILE_CONVERSION": tuple(
        "mobile_conversion_lifetime_value_" + name
        for name in (
            "purchases",
            "sign_ups",
            "updates",
            "tutorials_completed",
            "reservations",
            "add_to_carts",
            "add_to_wishlists",
            "checkouts_initiated",
            "levels_achieved",
            "achievements_unlocked",
            "shares",
            "invites",
            "payment_info_additions",
            "spent_credits",
            "rates",
        )
    ),
}
COUNTED_GROUPS: dict[str, tuple[str, ...]] = {
    "ENGAGEMENT": ENGAGEMENT,
    "BILLING": ("billed_engagements", "billed_charge_local_micro"),
    "VIDEO": tuple(name for name in BASE_METRICS if name.startswith("video_")),
    "MEDIA": ("media_views", "media_engagements"),
}
# Segments roost splits delivery into, with their audience shares.
SEGMENTS: dict[str, tuple[tuple[str, str, float], ...]] = {
    "GENDER": (("Male", "1", 0.56), ("Female", "2", 0.44)),
    "AGE": (
        ("13 to 17", "AGE_13_TO_17", 0.08),
        ("18 to 24", "AGE_18_TO_24", 0.20),
        ("25 to 34", "AGE_25_TO_34", 0.27),
        ("35 to 49", "AGE_35_TO_49", 0.25),
        ("50 and up", "AGE_OVER_50", 0.20),
    ),
    "PLATFORMS": (("iOS", "0", 0.34), ("Android", "1", 0.46), ("Desktop and laptop computers", "4", 0.20)),
}

Hours = Mapping[int, Vector]


def bucket_edges(start: int, end: int, granularity: str, zone: ZoneInfo) -> list[int]:
    """The buckets' boundaries: n+1 instants for n buckets."""
    if granularity == "TOTAL":
        return [start, end]
    if granularity == "HOUR":
        return list(range(start, end + 1, HOUR_MS))
    edges = [start]
    day = dt.datetime.fromtimestamp(start / 1000, zone).date()
    while edges[-1] < end:
        day += dt.timedelta(days=1)
        edges.append(min(end, int(dt.datetime(day.year, day.month, day.day, tzinfo=zone).timestamp() * 1000)))
    return edges


def bucketed(hours: Hours, edges: Sequence[int]) -> list[Vector | None]:
    """Each bucket's sum of the hours inside it (None for a bucket without delivery)."""
    buckets: list[Vector | None] = [None] * (len(edges) - 1)
    for hour, vector in hours.items():
        if edges[0] <= hour < edges[-1]:
            index = bisect.bisect_right(edges, hour) - 1
            buckets[index] = add(buckets[index], vector)
    return buckets


def metrics(buckets: Sequence[Vector | None], groups: Sequence[str], entity: str) -> dict[str, Any]:
    """The `metrics` object: per metric an array over the buckets, or null without activity."""
    out: dict[str, Any] = {}
    for group in groups:
        if group in CONVERSION_OBJECT_GROUPS:
            out.update(dict.fromkeys(CONVERSION_OBJECT_GROUPS[group]))  # roost records no conversions
            continue
        names = (
            ENGAGEMENT_TOP
            if group == "ENGAGEMENT" and entity in ("ACCOUNT", "FUNDING_INSTRUMENT")
            else COUNTED_GROUPS[group]
        )
        for name in names:
            index = INDEX[name]
            series = [vector[index] if vector is not None else 0 for vector in buckets]
            out[name] = series if any(series) else None
    return out


def id_data(
    hours: Hours, edges: Sequence[int], groups: Sequence[str], entity: str, segmentation: str | None
) -> list[dict[str, Any]]:
    if segmentation is None:
        return [{"segment": None, "metrics": metrics(bucketed(hours, edges), groups, entity)}]
    segments = SEGMENTS[segmentation]
    weights = {value: share for _, value, share in segments}
    per_segment: dict[str, dict[int, Vector]] = {value: {} for _, value, _ in segments}
    for hour, vector in hours.items():
        for value, part in split(vector, weights).items():
            per_segment[value][hour] = part
    return [
        {
            "segment": {"segment_name": name, "segment_value": value},
            "metrics": metrics(bucketed(per_segment[value], edges), groups, entity),
        }
        for name, value, _ in segments
    ]


def activity(hours: Hours, serving: Sequence[Interval], start: int, end: int) -> tuple[str, str] | None:
    """(activity_start_time, activity_end_time) of the delivery inside [start, end), to the second:
    from the first moment served in the first hour with delivery to the last in the last one."""
    inside = sorted(hour for hour, vector in hours.items() if start <= hour < end and any(vector))
    if not inside:
        return None
    first = intersect(serving, [(inside[0], inside[0] + HOUR_MS)])
    last = intersect(serving, [(inside[-1], inside[-1] + HOUR_MS)])
    began = first[0][0] if first else inside[0]
    ended = (last[-1][1] if last else inside[-1] + HOUR_MS) - 1000
    return format_time(began) or "", format_time(max(began, ended)) or ""
