"""The `media_analytics` object kind (`GET /2/media/analytics`): a video's playback metrics over a
window, bucketed by hour, by day or in one total. roost plays no video, so every counter is zero;
the buckets follow the requested window."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.core.clock import iso_ms
from roost.core.fields import Expansion, ObjectKind, RenderContext, Row

METRICS = (
    "cta_url_clicks",
    "cta_watch_clicks",
    "play_from_tap",
    "playback25",
    "playback50",
    "playback75",
    "playback_complete",
    "playback_start",
    "video_views",
    "watch_time_ms",
)
ANALYTICS_FIELDS = tuple(sorted((*METRICS, "media_key", "timestamp", "timestamped_metrics")))
ANALYTICS_DEFAULTS = ("media_key", "timestamped_metrics")
BUCKET_MS = {"hourly": 3_600_000, "daily": 86_400_000}
MAX_BUCKETS = 24 * 31  # a month of hours


def analytics_row(media_key: str, start_ms: int, end_ms: int, granularity: str) -> dict[str, Any]:
    step = BUCKET_MS.get(granularity)
    if step is None:
        buckets = [start_ms]
    else:
        first = start_ms - start_ms % step
        buckets = list(range(first, end_ms, step))[:MAX_BUCKETS] or [first]
    return {"media_key": media_key, "start": start_ms, "buckets": buckets}


def render_analytics(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name == "media_key":
            out[name] = row["media_key"]
        elif name == "timestamp":
            out[name] = iso_ms(row["start"])
        elif name == "timestamped_metrics":
            out[name] = [
                {"timestamp": iso_ms(at), "metrics": dict.fromkeys(METRICS, 0)} for at in row["buckets"]
            ]
        elif name in METRICS:
            out[name] = 0
    return out


MEDIA_OBJECT_KINDS = (
    ObjectKind(
        "media_analytics",
        "media",
        ("media_analytics.fields",),
        ANALYTICS_FIELDS,
        {},
        ANALYTICS_DEFAULTS,
        {"tweet": "media_analytics", "post": "media_analytics"},
        render_analytics,
        lambda row: row["media_key"],
    ),
)
MEDIA_OBJECT_EXPANSIONS: dict[str, tuple[Expansion, ...]] = {"media_analytics": ()}
