"""What an ads handler receives (`AdsCall`) and what it is (`AdsHandler`); the operation table and
the handlers import this, the pipeline builds it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from roost.ads.actor import Actor
from roost.ads.domain import AdsDomain
from roost.core.principal import Principal
from roost.core.records import Row


@dataclass(slots=True)
class AdsCall:
    principal: Principal
    params: dict[str, Any]  # typed values, defaults filled in
    echo: dict[str, Any]  # what `request.params` shows
    body: Any  # the decoded JSON body of batch and audience-estimate requests
    ads: AdsDomain
    now_ms: int
    sandbox: bool
    version: str
    account: Row | None  # the account named in the path (decoded), when there is one
    permissions: list[str]

    @property
    def account_id(self) -> str:
        assert self.account is not None
        return str(self.account["id"])

    @property
    def user_id(self) -> int:
        assert self.principal.user_id is not None
        return self.principal.user_id

    @property
    def actor(self) -> Actor:
        """The caller acting on the path's account at this request's instant."""
        assert self.account is not None
        return Actor(self.account, self.user_id, self.now_ms)


AdsHandler = Callable[[AdsCall], Awaitable[Any]]
