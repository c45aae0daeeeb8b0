"""Rate limits of the OAuth endpoints: per endpoint and client address, 15-minute windows.

The platform says every OAuth endpoint is rate limited but publishes no figures; the defaults below
are roost's, overridable per endpoint name with `roost serve --limits FILE` (like the v2 operations).
"""

from __future__ import annotations

from starlette.requests import Request

from roost.core import errors
from roost.core.clock import Clock
from roost.core.ratelimit import RateLimiter

WINDOW_S = 900
DEFAULT_LIMITS = {
    "oauthRequestToken": 450,
    "oauthAuthorize": 450,
    "oauthAccessToken": 450,
    "oauthInvalidateToken": 450,
    "oauth2BearerToken": 450,
    "oauth2InvalidateBearer": 450,
    "oauth2Authorize": 500,
    "oauth2Token": 500,
    "oauth2Revoke": 500,
}


class OAuthLimits:
    """The OAuth endpoints' windows, counted in the server's limiter (so a reset clears them too)."""

    def __init__(
        self, limiter: RateLimiter, clock: Clock, overrides: dict[str, dict[str, int | None]]
    ) -> None:
        self._limiter = limiter
        self._clock = clock
        self._overrides = overrides  # `roost serve --limits`, by endpoint name

    def count(self, request: Request, name: str) -> dict[str, str]:
        """Count one request; the window's headers, or the platform's 429 (code 88) when it is spent."""
        override = self._overrides.get(name) or {}
        limit = override.get("user") or override.get("app") or DEFAULT_LIMITS[name]
        window_s = override.get("window_s") or WINDOW_S
        client = request.client.host if request.client else ""
        window, allowed = self._limiter.hit((name, client), limit, window_s, self._clock.now())
        headers = {
            "x-rate-limit-limit": str(window.limit),
            "x-rate-limit-remaining": str(max(window.remaining, 0)),
            "x-rate-limit-reset": str(window.reset_s),
        }
        if not allowed:
            raise errors.coded(429, 88, headers=headers)
        return headers
