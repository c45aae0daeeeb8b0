"""What an ads handler receives (`AdsCall`) and what it is (`AdsHandler`); the operation table and
the handlers import this, the pipeline builds it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from roost.core.principal import Principal
from roost.core.records import Row

if TYPE_CHECKING:
    from roost.services import Services


@dataclass(slots=True)
class AdsCall:
    principal: Principal
    params: dict[str, Any]  # typed values, defaults filled in
    echo: dict[str, Any]  # what `request.params` shows
    body: Any  # the decoded JSON body of batch and audience-estimate requests
    services: Services
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


AdsHandler = Callable[[AdsCall], Awaitable[Any]]
