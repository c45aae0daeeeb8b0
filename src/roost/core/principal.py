"""Who is calling, and what of a request identifies them: plain values the pipelines, the
authenticator (`roost.auth`) and the domain pass around, with no web toolkit or storage behind them."""

from __future__ import annotations

from dataclasses import dataclass

WRITE_LEVELS = frozenset({"read-write", "read-write-directmessages"})


@dataclass(frozen=True, slots=True)
class Principal:
    kind: str  # app | oauth1 | oauth2
    app_id: int
    project_id: int
    user_id: int | None
    access_level: str
    scopes: frozenset[str] = frozenset()
    token: str = ""
    package: str = "enterprise"  # the app's access package (domain/packages.py)

    @property
    def can_write(self) -> bool:
        return self.access_level in WRITE_LEVELS


@dataclass(frozen=True, slots=True)
class RequestAuth:
    """What the authenticator needs from an HTTP request, independent of the web toolkit."""

    method: str
    scheme: str
    host: str
    path: str
    authorization: str | None
    forwarded_proto: str | None
    query_pairs: list[tuple[str, str]]
    form_pairs: list[tuple[str, str]]
