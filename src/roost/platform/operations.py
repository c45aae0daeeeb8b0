"""The declarative operation table: everything the pipeline needs to serve one endpoint."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from roost.core.params import Param
from roost.domain.packages import EVERY_PACKAGE

if TYPE_CHECKING:
    from roost.platform.pipeline import Call

APP = "app"
OAUTH1 = "oauth1"
OAUTH2 = "oauth2"
USER_AUTH = (OAUTH1, OAUTH2)
ANY_AUTH = (APP, OAUTH1, OAUTH2)


@dataclass(frozen=True)
class RateLimit:
    """Requests per window for app-only callers and per user (per app) for user-context callers;
    `per_app`: user-context calls count in their app's window too (webhook management, 450 per app
    whatever the credentials)."""

    app: int | None = None
    user: int | None = None
    window_s: int = 900
    per_app: bool = False


@dataclass(frozen=True)
class DailyCap:
    """The 24-hour creation caps with their own x-app-limit-24hour-* / x-user-limit-24hour-* headers."""

    app: int
    user: int


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method: str
    path: str  # OpenAPI style: /2/tweets/{id}
    handler: Callable[[Call], Awaitable[Any]]
    auth: tuple[str, ...] = ANY_AUTH
    scopes: tuple[str, ...] = ()
    write: bool = False  # needs an OAuth 1.0a token with write access
    dm: bool = False  # needs an OAuth 1.0a token with direct-message access (error code 93)
    params: tuple[Param, ...] = ()
    returns: str | None = None  # object kind the fields engine renders (tweet, user, media ...)
    selectable: bool = True  # accepts *.fields / expansions (False: always the default fields)
    body: bool = False  # takes a JSON body
    body_optional: bool = False  # ...which may be absent (the handler then gets None)
    raw_body: bool = False  # takes its body as it came (a `RawBody`: multipart, forms, JSON with files)
    max_body: int | None = None  # a larger body cap than the server's (file uploads)
    rate_limit: RateLimit = field(default_factory=RateLimit)
    daily_cap: DailyCap | None = None
    status: int = 200
    tag: str = ""
    summary: str = ""
    # The access packages that have this endpoint; an app on another is answered client-forbidden.
    packages: frozenset[str] = EVERY_PACKAGE

    @property
    def path_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.in_path)

    @property
    def query_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if not p.in_path)
