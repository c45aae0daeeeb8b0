"""The object kinds of issue 15: community notes (`note.fields`), news stories (`news.fields`) and
communities (`community.fields`). None is the target of an expansion, so StoreLoader loads none.

Rows are plain mappings the domain builds (`notes.note_view`, `news.story_view`,
`communities.community_view`); the renderers pick the selected fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from roost.core.clock import iso_ms
from roost.core.fields import ObjectKind, RenderContext, Row

NOTE_FIELDS = ("id", "info", "scoring_status", "status", "test_result")
# The documentation's notes_written items carry the id and the note's contents.
NOTE_DEFAULTS = ("id", "info")

# The document's names, and the seed's `last_updated_at_ms` (the documentation's example uses it
# for the same instant the document calls `updated_at`).
NEWS_FIELDS = (
    "category",
    "cluster_posts_results",
    "contexts",
    "disclaimer",
    "hook",
    "id",
    "keywords",
    "last_updated_at_ms",
    "name",
    "summary",
    "updated_at",
)
NEWS_DEFAULTS = ("id", "name")

COMMUNITY_FIELDS = ("access", "created_at", "description", "id", "join_policy", "member_count", "name")
COMMUNITY_DEFAULTS = ("id", "name")


TREND_FIELDS = ("trend_name", "tweet_count")
PERSONALIZED_TREND_FIELDS = ("category", "post_count", "trend_name", "trending_since")


def render_trend(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name == "trend_name":
            out[name] = row["trend_name"]
        elif name == "tweet_count":
            out[name] = int(row["post_count"])
    return out


def render_personalized_trend(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name in ("trend_name", "category"):
            out[name] = row[name]
        elif name == "post_count":
            # A string, as the 2.167 document and the official SDK built from it have it (2.159 said
            # integer; the SDK's model refuses one).
            out[name] = str(int(row["post_count"]))
        elif name == "trending_since":
            out[name] = iso_ms(int(row["trending_since"]))
    return out


ANALYTICS_METRICS = (
    "app_install_attempts",
    "app_opens",
    "bookmarks",
    "detail_expands",
    "email_tweet",
    "engagements",
    "follows",
    "hashtag_clicks",
    "impressions",
    "likes",
    "media_views",
    "permalink_clicks",
    "quote_tweets",
    "replies",
    "retweets",
    "shares",
    "unfollows",
    "unlikes",
    "url_clicks",
    "user_profile_clicks",
)
ANALYTICS_FIELDS = tuple(sorted((*ANALYTICS_METRICS, "id", "timestamp", "timestamped_metrics")))
ANALYTICS_DEFAULTS = ("id", "timestamped_metrics")


def _stamp(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def render_analytics(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    """A post's metrics: the selected ones over the window, and per bucket (every metric when none
    is selected)."""
    chosen = [name for name in names if name in ANALYTICS_METRICS] or list(ANALYTICS_METRICS)
    out: dict[str, Any] = {}
    for name in names:
        if name == "id":
            out[name] = str(row["id"])
        elif name == "timestamp":
            out[name] = _stamp(int(row["start"]))
        elif name == "timestamped_metrics":
            out[name] = [
                {"timestamp": _stamp(at), "metrics": {metric: counts[metric] for metric in chosen}}
                for at, counts in row["buckets"]
            ]
        elif name in ANALYTICS_METRICS:
            out[name] = sum(counts[name] for _, counts in row["buckets"])
    return out


def render_note(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name == "id":
            out[name] = str(row["id"])
        elif name == "info":
            out[name] = {
                "text": row["text"],
                "classification": row["classification"],
                "misleading_tags": list(row["misleading_tags"]),
                "post_id": str(row["post_id"]),
                "trustworthy_sources": row["trustworthy_sources"],
            }
        elif name == "status":
            out[name] = row["status"]
        elif name == "test_result" and row["test_mode"]:
            score = row["claim_opinion_score"]
            bucket = "Low" if score < 0.34 else "Medium" if score < 0.67 else "High"
            out[name] = {
                "evaluation_outcome": [{"evaluator_type": "ClaimOpinion", "evaluator_score_bucket": bucket}]
            }
        elif name == "scoring_status":
            # Test notes are rated by nobody: no scoring details to share.
            out[name] = {"has_access": False}
    return out


def render_news(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name == "id":
            out[name] = str(row["id"])
        elif name in ("name", "category", "summary", "hook", "disclaimer"):
            out[name] = row[name]
        elif name == "contexts":
            out[name] = row["contexts"]
        elif name == "keywords":
            out[name] = list(row["keywords"])
        elif name == "cluster_posts_results":
            out[name] = [{"post_id": str(post_id)} for post_id in row["cluster_post_ids"]]
        elif name in ("updated_at", "last_updated_at_ms"):
            out[name] = iso_ms(int(row["updated_at"]))
    return out


def render_community(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name == "id":
            out[name] = str(row["id"])
        elif name in ("name", "description", "access", "join_policy"):
            out[name] = row[name]
        elif name == "member_count":
            out[name] = int(row["member_count"])
        elif name == "created_at":
            out[name] = iso_ms(int(row["created_at"]))
    return out


COMMUNITY_KINDS = (
    ObjectKind(
        "note",
        "note",
        ("note.fields",),
        NOTE_FIELDS,
        {},
        NOTE_DEFAULTS,
        {"tweet": "notes", "post": "notes"},
        render_note,
        lambda row: row["id"],
    ),
    ObjectKind(
        "news",
        "news",
        ("news.fields",),
        NEWS_FIELDS,
        {},
        NEWS_DEFAULTS,
        {"tweet": "news", "post": "news"},
        render_news,
        lambda row: row["id"],
    ),
    ObjectKind(
        "community",
        "community",
        ("community.fields",),
        COMMUNITY_FIELDS,
        {},
        COMMUNITY_DEFAULTS,
        {"tweet": "communities", "post": "communities"},
        render_community,
        lambda row: row["id"],
    ),
    ObjectKind(
        "trend",
        "trend",
        ("trend.fields",),
        TREND_FIELDS,
        {},
        TREND_FIELDS,
        {"tweet": "trends", "post": "trends"},
        render_trend,
        lambda row: row["trend_name"],
    ),
    ObjectKind(
        "personalized_trend",
        "personalized_trend",
        ("personalized_trend.fields",),
        PERSONALIZED_TREND_FIELDS,
        {},
        PERSONALIZED_TREND_FIELDS,
        {"tweet": "trends", "post": "trends"},
        render_personalized_trend,
        lambda row: row["trend_name"],
        # Naming it selects the 2.167 vocabulary (its string count), as search counts do.
        frozenset({"post_count"}),
    ),
    ObjectKind(
        "analytics",
        "analytics",
        ("analytics.fields",),
        ANALYTICS_FIELDS,
        {},
        ANALYTICS_DEFAULTS,
        {"tweet": "analytics", "post": "analytics"},
        render_analytics,
        lambda row: row["id"],
    ),
)
COMMUNITY_EXPANSIONS: dict[str, tuple[()]] = {}
