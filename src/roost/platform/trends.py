"""Trends: by place (WOEID) and personalized for the authenticated user, computed from recent posts."""

from __future__ import annotations

from typing import Any, ClassVar

from roost.core.errors import ParamError
from roost.core.params import IntRange, Kind, Param
from roost.platform.operations import APP, OAUTH2, USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects


class Woeid(Kind):
    """A Yahoo! Where On Earth ID: a 32-bit integer (the document gives no bounds)."""

    openapi: ClassVar[dict[str, Any]] = {"type": "integer", "format": "int32"}

    def parse(self, name: str, raw: str) -> int:
        if not (raw.isascii() and raw.isdigit()) or int(raw) >= 1 << 31:
            raise ParamError(f"The `{name}` query parameter value [{raw}] is not a valid Int")
        return int(raw)


async def trends_by_woeid(call: Call) -> Objects:
    page = await call.domain.trends.by_woeid(call.params["woeid"], call.params["max_trends"])
    return Objects(page.rows, errors=page.errors)


async def personalized_trends(call: Call) -> Objects:
    assert call.principal.user_id is not None
    page = await call.domain.trends.personalized(call.principal.user_id)
    return Objects(page.rows)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getTrendsByWoeid",
        "GET",
        "/2/trends/by/woeid/{woeid}",
        trends_by_woeid,
        (APP, OAUTH2),
        (),
        params=(
            Param("woeid", Woeid(), required=True, in_path=True),
            Param("max_trends", IntRange(1, 50), default=20),
        ),
        returns="trend",
        # The platform's trends lookup: 75 requests per 15 minutes.
        rate_limit=RateLimit(app=75, user=75),
        tag="Trends",
        summary="Get Trends by WOEID",
    ),
    Operation(
        "getTrendsPersonalizedTrends",
        "GET",
        "/2/users/personalized_trends",
        personalized_trends,
        USER_AUTH,
        ("tweet.read", "users.read"),
        returns="personalized_trend",
        rate_limit=RateLimit(user=10),
        tag="Trends",
        summary="Get personalized Trends",
    ),
)
