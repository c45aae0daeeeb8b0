"""The user object: fields, vocabulary names and rendering (one of the kinds in `roost.domain.objects`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from roost.core import jsonio
from roost.core.clock import iso_ms
from roost.core.fields import POST_VOCAB, BoundRenderer, RenderContext, Row


def _json(value: str | None) -> Any:
    return None if value is None else jsonio.loads(value)


USER_FIELDS = tuple(
    sorted(
        {
            "affiliation",
            "confirmed_email",
            "connection_status",
            "created_at",
            "description",
            "entities",
            "id",
            "is_identity_verified",
            "location",
            "most_recent_tweet_id",
            "name",
            "parody",
            "pinned_tweet_id",
            "profile_banner_url",
            "profile_image_url",
            "protected",
            "public_metrics",
            "receives_your_dm",
            "subscribes_to_you",
            "subscription",
            "subscription_type",
            "url",
            "username",
            "verified",
            "verified_followers_count",
            "verified_type",
            "withheld",
        }
    )
)
EMAIL_SCOPE = "users.email"  # the OAuth 2.0 scope that reveals `confirmed_email`
USER_ALIASES = {"most_recent_post_id": "most_recent_tweet_id", "pinned_post_id": "pinned_tweet_id"}


def _user_metrics(row: Row, vocab: str) -> dict[str, int]:
    # Live traffic names the count `tweet_count`; the newer specification (and the official SDK's
    # validation) requires `post_count`. The tweet vocabulary carries both, the post vocabulary one.
    metrics = {"followers_count": row["followers_count"], "following_count": row["following_count"]}
    if vocab != POST_VOCAB:
        metrics["tweet_count"] = row["tweet_count"]
    metrics["post_count"] = row["tweet_count"]
    metrics.update(
        listed_count=row["listed_count"], like_count=row["like_count"], media_count=row["media_count"]
    )
    return metrics


def _connection_status(row: Row, ctx: RenderContext) -> list[str] | None:
    if ctx.viewer_id is None or ctx.viewer_id == row["id"]:
        return None
    status = []
    if (ctx.viewer_id, row["id"]) in ctx.relations:
        status.append("following")
    if (row["id"], ctx.viewer_id) in ctx.relations:
        status.append("followed_by")
    return status


def _user_field(row: Row, name: str, ctx: RenderContext) -> Any:
    if name == "created_at":
        return iso_ms(row["created_at"])
    if name in ("description", "url", "verified_type", "subscription_type"):
        return row[name]
    if name in ("location", "profile_image_url", "profile_banner_url"):
        return row[name]
    if name in ("protected", "verified", "parody", "is_identity_verified"):
        return bool(row[name])
    if name == "public_metrics":
        return _user_metrics(row, ctx.vocab)
    if name == "pinned_tweet_id":
        value = row["pinned_post_id"]
        return None if value is None else str(value)
    if name == "most_recent_tweet_id":
        value = row["most_recent_post_id"]
        return None if value is None else str(value)
    if name == "entities":
        return _json(row["entities"])
    if name == "affiliation":
        affiliation = _json(row["affiliation"])
        if not affiliation:
            return None
        return {**affiliation, "user_id": [str(i) for i in affiliation.get("user_id", [])]}
    if name == "withheld":
        return _json(row["withheld"])
    if name == "connection_status":
        return _connection_status(row, ctx)
    if name == "confirmed_email":
        # The platform's rule: only on the viewer's own user object, only with `users.email`.
        if ctx.viewer_id is None or ctx.viewer_id != row["id"] or EMAIL_SCOPE not in ctx.scopes:
            return None
        return row["email"] or None
    if name == "receives_your_dm":
        return True
    if name == "subscribes_to_you":
        return False
    if name == "verified_followers_count":
        return 0
    return None


_USER_KEYS = {
    POST_VOCAB: {"pinned_tweet_id": "pinned_post_id", "most_recent_tweet_id": "most_recent_post_id"}
}


def compile_user(names: tuple[str, ...], vocab: str) -> BoundRenderer:
    """A user renderer for one field selection (the default one renders only the three base fields)."""
    keys = _USER_KEYS.get(vocab, {})
    plan = tuple((keys.get(name, name), name) for name in names if name not in _BASE)

    def render(row: Row, ctx: RenderContext) -> dict[str, Any]:
        out: dict[str, Any] = {"id": str(row["id"]), "name": row["name"], "username": row["username"]}
        for key, name in plan:
            value = _user_field(row, name, ctx)
            if value is not None:
                out[key] = value
        return out

    return render


_BASE = frozenset({"id", "name", "username"})
_compiled_user = lru_cache(maxsize=256)(compile_user)


def render_user(row: Row, names: Sequence[str], ctx: RenderContext) -> dict[str, Any]:
    return _compiled_user(tuple(names), ctx.vocab)(row, ctx)
